// Command rlskit-beam runs rlskit fit --stream as Apache Beam pipelines:
//
//	rlskit-beam fit --data 'dir/part-*.svm.gz' --learner rls --cv kfold:10 --lambda-grid 2^-10..2^10 --model m.json
//
// It takes the flags of rlskit fit, defined and planned by package plan as
// rlskit fit --stream plans them (the flags that do not apply to a streaming
// fit are refused), and prints the same JSON summary. The pipelines run on
// Prism, in process, by default; --runner flink|spark|dataflow with
// --endpoint (a job server) runs them on a cluster. See the README section
// "Larger than memory" for the job-server commands.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rlskit/rlskit/beam/rlsbeam"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/plan" // fit's flags and their plan; it imports every learner (the registry)
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/stream"
	"github.com/rlskit/rlskit/summary"
)

// beamFlags are the flags of rlskit-beam beyond rlskit fit's (package plan)
// and Beam's own (--runner, --endpoint, …).
type beamFlags struct {
	tempLocation string
	chunkRows    int
}

func main() {
	// fit's flags (package plan), rlskit-beam's and Beam's own (--runner,
	// --endpoint, --environment_type, …) live in the default flag set.
	f := &plan.Flags{}
	plan.Define(beside{flag.CommandLine}, f)
	var b beamFlags
	flag.StringVar(&b.tempLocation, "temp-location", "", "directory for the passes' results, reachable by the driver and every worker (default: a local temporary directory)")
	flag.IntVar(&b.chunkRows, "chunk-rows", 2048, "rows a worker parses at a time")
	args := os.Args[1:]
	if len(args) == 0 || args[0] != "fit" {
		fmt.Fprintln(os.Stderr, "usage: rlskit-beam fit --data PATTERN [flags of rlskit fit --stream] [--runner R --endpoint HOST:PORT]")
		flag.CommandLine.PrintDefaults()
		os.Exit(2)
	}
	if err := flag.CommandLine.Parse(args[1:]); err != nil {
		os.Exit(2)
	}
	given := map[string]bool{}
	flag.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	beam.Init() // a worker process started by a runner stops here
	if f.Quiet {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	// rlskit-beam is a streaming fit: the plan of rlskit fit --stream, whose
	// checks refuse the flags that do not apply to one (usage errors, status 2)
	f.Stream = true
	p, err := plan.New(f, func(name string) bool { return given[name] })
	if err != nil {
		fmt.Fprintln(os.Stderr, "rlskit-beam:", err)
		os.Exit(2)
	}
	ctx, stop := stream.NotifyContext(context.Background()) // SIGINT/SIGTERM: the job's directory and store are removed first
	err = run(ctx, p, f, b, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "rlskit-beam:", err)
		os.Exit(1)
	}
}

// output is fit's summary (package summary, as rlskit fit --stream prints
// it) with what the pipelines did.
type output struct {
	summary.Fit
	Beam beamSummary `json:"beam"`
}

type beamSummary struct {
	Files     []string `json:"files"`
	Passes    []string `json:"passes"`
	BasisRows []int    `json:"basis_rows,omitempty"`
}

// beside defines flags on a flag set but for the names Beam's runners have
// defined there already: Dataflow's --labels (job labels) stays Beam's, and
// fit's --labels (the labels file of .npy data) does not apply to a streaming fit.
type beside struct{ *flag.FlagSet }

func (b beside) StringVar(p *string, name, value, usage string) {
	if b.Lookup(name) == nil {
		b.FlagSet.StringVar(p, name, value, usage)
	}
}

func (b beside) BoolVar(p *bool, name string, value bool, usage string) {
	if b.Lookup(name) == nil {
		b.FlagSet.BoolVar(p, name, value, usage)
	}
}

func (b beside) IntVar(p *int, name string, value int, usage string) {
	if b.Lookup(name) == nil {
		b.FlagSet.IntVar(p, name, value, usage)
	}
}

func (b beside) Float64Var(p *float64, name string, value float64, usage string) {
	if b.Lookup(name) == nil {
		b.FlagSet.Float64Var(p, name, value, usage)
	}
}

func (b beside) Uint64Var(p *uint64, name string, value uint64, usage string) {
	if b.Lookup(name) == nil {
		b.FlagSet.Uint64Var(p, name, value, usage)
	}
}

func run(ctx context.Context, p *plan.Plan, f *plan.Flags, b beamFlags, stdout, stderr io.Writer) error {
	start := time.Now()
	opt, err := p.StreamOptions()
	if err != nil {
		return err
	}
	var res *rlsbeam.Result
	var outs dataset.Outputs
	outs.Add("--model", f.Model, func(w io.Writer) error { return res.Predictor.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	// the reader's options of rlskit fit --stream, for the pattern (Beam's
	// filesystems expand it on the workers)
	ss, err := p.StreamSource([]string{f.Data})
	if err != nil {
		return err
	}
	src := rlsbeam.Source{Patterns: ss.Files, Format: ss.Format, CSV: ss.CSV, SVM: ss.SVM}
	cfg := rlsbeam.Config{Run: beamx.Run, TempLocation: b.tempLocation, ChunkRows: b.chunkRows}
	if !f.Quiet {
		cfg.Progress = func(e progress.Event) { fmt.Fprintf(stderr, "rlskit-beam: %s\n", e.Stage) }
	}
	res, err = rlsbeam.Fit(ctx, opt, src, cfg)
	if err != nil {
		return err
	}
	res.Predictor.Features = res.FeatureNames
	res.Predictor.ZeroBased = src.SVM.Base == dataset.ZeroBased
	out := output{Fit: summary.StreamFit(opt, res.Result), Beam: beamSummary{Files: res.Files, BasisRows: res.Basis}}
	out.Timing.Total = time.Since(start).Seconds()
	for _, p := range res.Passes {
		out.Beam.Passes = append(out.Beam.Passes, p.Kind.String())
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	w := stdout
	if f.Model == "-" {
		w = stderr
	}
	return json.NewEncoder(w).Encode(out)
}
