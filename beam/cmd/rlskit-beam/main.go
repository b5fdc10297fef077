// Command rlskit-beam runs rlskit fit --stream as Apache Beam pipelines:
//
//	rlskit-beam fit --data 'dir/part-*.svm.gz' --learner rls --cv kfold:10 --lambda-grid 2^-10..2^10 --model m.json
//
// It takes the flags of rlskit fit --stream (the subset that applies to
// streaming fits) and prints the same JSON summary. The pipelines run on
// Prism, in process, by default; --runner flink|spark|dataflow with
// --endpoint (a job server) runs them on a cluster. See the README section
// "Larger than memory" for the job-server commands.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rlskit/rlskit/beam/rlsbeam"
	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners" // the registry: stream.LossOf reads the learners' declared losses
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/stream"
)

type flags struct {
	data, format, label, qid  string
	learner, kernel           string
	gamma, bias, coef0        float64
	degree, basis             int
	basisRows                 string
	seed                      uint64
	lambda                    float64
	lambdaGrid, cv, measure   string
	model, tempLocation       string
	standardize, normalize    bool
	quiet                     bool
	chunkRows                 int
	zeroBased                 bool
	changedBias, changedLamda bool
}

func main() {
	// Beam's own flags (--runner, --endpoint, --environment_type, …) live in
	// the default flag set, next to fit's.
	f := &flags{}
	define(flag.CommandLine, f)
	args := os.Args[1:]
	if len(args) == 0 || args[0] != "fit" {
		fmt.Fprintln(os.Stderr, "usage: rlskit-beam fit --data PATTERN [flags of rlskit fit --stream] [--runner R --endpoint HOST:PORT]")
		flag.CommandLine.PrintDefaults()
		os.Exit(2)
	}
	if err := flag.CommandLine.Parse(args[1:]); err != nil {
		os.Exit(2)
	}
	flag.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "bias":
			f.changedBias = true
		case "lambda":
			f.changedLamda = true
		}
	})
	beam.Init() // a worker process started by a runner stops here
	if f.quiet {
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	if err := run(context.Background(), f, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "rlskit-beam:", err)
		os.Exit(1)
	}
}

func define(fs *flag.FlagSet, f *flags) {
	fs.StringVar(&f.data, "data", "", "training data: a file or a pattern of shards, plain or gzip ('dir/part-*.svm.gz'; any Beam filesystem)")
	fs.StringVar(&f.format, "format", "", "svmlight or csv (default: from the first file's extension, .csv[.gz] is CSV)")
	fs.StringVar(&f.label, "label", "", "CSV label column(s), comma-separated")
	fs.StringVar(&f.qid, "qid", "", "CSV query/group column")
	fs.StringVar(&f.learner, "learner", "rls", "rls, globalrank or queryrank")
	fs.StringVar(&f.kernel, "kernel", "linear", "linear, or with a basis gaussian or polynomial")
	fs.Float64Var(&f.gamma, "gamma", 1, "gamma of the gaussian and polynomial kernels")
	fs.Float64Var(&f.bias, "bias", 1, "bias of the linear kernel (default 1 for rls, 0 for the rankers)")
	fs.Float64Var(&f.coef0, "coef0", 0, "coef0 of the polynomial kernel")
	fs.IntVar(&f.degree, "degree", 2, "degree of the polynomial kernel")
	fs.IntVar(&f.basis, "basis", 0, "sparse model over N basis rows drawn (with --seed) from the first rows")
	fs.StringVar(&f.basisRows, "basis-rows", "", "sparse model over the rows listed in this file (0-based, files in order)")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the k-fold hash and of the basis")
	fs.Float64Var(&f.lambda, "lambda", 0, "one λ (with --cv none)")
	fs.StringVar(&f.lambdaGrid, "lambda-grid", "", "λ grid: 0.1,1,10 or 2^a..2^b (default 2^-15..2^15)")
	fs.StringVar(&f.cv, "cv", "loo", "none, loo, kfold:K, lgo or lqo")
	fs.StringVar(&f.measure, "measure", "", "mse, auc, cindex, disagreement, accuracy or spearman (default: rls mse, queryrank disagreement, globalrank cindex)")
	fs.StringVar(&f.model, "model", "", "write the model at the best λ to this file (JSON, as rlskit predict reads it)")
	fs.StringVar(&f.tempLocation, "temp-location", "", "directory for the passes' results, reachable by the driver and every worker (default: a local temporary directory)")
	fs.BoolVar(&f.standardize, "standardize", false, "standardize the features (a first pass)")
	fs.BoolVar(&f.normalize, "query-normalize", false, "queryrank: weigh each query's pairs by 1/n_q")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress or Beam logs on stderr")
	fs.IntVar(&f.chunkRows, "chunk-rows", 2048, "rows a worker parses at a time")
	fs.BoolVar(&f.zeroBased, "zero-based", false, "svmlight feature indices start at 0 (scikit-learn's dump_svmlight_file), not 1")
}

// options turns the flags into stream.Options (the defaults of rlskit fit).
func options(f *flags) (stream.Options, error) {
	var opt stream.Options
	switch f.learner {
	case "rls", "globalrank", "queryrank":
	default:
		return opt, fmt.Errorf("--learner %q: want rls, globalrank or queryrank", f.learner)
	}
	opt.Learner = learn.Name(f.learner)
	loss, err := stream.LossOf(opt.Learner)
	if err != nil {
		return opt, fmt.Errorf("--learner %q: %w", f.learner, err)
	}
	opt.Loss = loss
	if !f.changedBias && opt.Learner != learn.RLS {
		f.bias = 0
	}
	spec := kernel.Defaults(f.kernel)
	switch f.kernel {
	case "linear":
		spec.Bias = f.bias
	case "gaussian":
		spec.Gamma = f.gamma
	case "polynomial":
		spec.Gamma, spec.Coef0, spec.Degree = f.gamma, f.coef0, f.degree
	default:
		return opt, fmt.Errorf("--kernel %q: want linear, gaussian or polynomial", f.kernel)
	}
	opt.Kernel = spec
	opt.BasisN, opt.CV, opt.Seed, opt.Standardize, opt.QueryNormalize = f.basis, f.cv, f.seed, f.standardize, f.normalize
	switch {
	case f.changedLamda && f.lambdaGrid != "":
		return opt, errors.New("--lambda and --lambda-grid: give one of them")
	case f.changedLamda:
		opt.Lambdas = []float64{f.lambda}
	case f.lambdaGrid != "":
		g, err := selection.ParseGrid(f.lambdaGrid, true)
		if err != nil {
			return opt, fmt.Errorf("--lambda-grid: %w", err)
		}
		opt.Lambdas = g
	default:
		opt.Lambdas = selection.DefaultGrid()
	}
	name := f.measure
	if name == "" {
		switch opt.Learner {
		case learn.RLS:
			name = "mse"
		case learn.QueryRank:
			name = "disagreement"
		default:
			name = "cindex"
		}
	}
	m, err := measure.ByName(name)
	if err != nil {
		return opt, fmt.Errorf("--measure: %w", err)
	}
	opt.Measure = m
	if f.basisRows != "" {
		if f.basis > 0 {
			return opt, errors.New("--basis and --basis-rows: give one of them")
		}
		fh, err := os.Open(f.basisRows)
		if err != nil {
			return opt, err
		}
		defer fh.Close()
		if opt.BasisRows, err = dataset.ReadIndices(fh, f.basisRows, math.MaxInt32); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

type summary struct {
	Learner   string             `json:"learner"`
	Kernel    kernel.Spec        `json:"kernel"`
	Form      string             `json:"form"`
	Lambda    float64            `json:"lambda"`
	NTrain    int                `json:"n_train"`
	NFeatures int                `json:"n_features"`
	Outputs   []string           `json:"outputs"`
	NBasis    int                `json:"n_basis,omitempty"`
	CV        *cvSummary         `json:"cv"`
	Timing    map[string]float64 `json:"timing"`
	Beam      beamSummary        `json:"beam"`
}

type cvSummary struct {
	Strategy string            `json:"strategy"`
	Measure  string            `json:"measure"`
	Curve    []selection.Point `json:"curve"`
	Best     selection.Point   `json:"best"`
}

type beamSummary struct {
	Files     []string `json:"files"`
	Passes    []string `json:"passes"`
	BasisRows []int    `json:"basis_rows,omitempty"`
}

func run(ctx context.Context, f *flags, stdout, stderr io.Writer) error {
	start := time.Now()
	if f.data == "" {
		return errors.New("--data is required")
	}
	opt, err := options(f)
	if err != nil {
		return err
	}
	var res *rlsbeam.Result
	var outs dataset.Outputs
	outs.Add("--model", f.model, func(w io.Writer) error { return res.Predictor.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	format := f.format
	if format == "" {
		base := strings.TrimSuffix(strings.ToLower(filepath.Base(f.data)), ".gz")
		format = "svmlight"
		if strings.HasSuffix(base, ".csv") {
			format = "csv"
		}
	}
	src := rlsbeam.Source{Patterns: []string{f.data}, Format: format}
	if format == "csv" {
		for _, l := range strings.Split(f.label, ",") {
			if l = strings.TrimSpace(l); l != "" {
				src.CSV.Labels = append(src.CSV.Labels, l)
			}
		}
		src.CSV.Qid = f.qid
	} else if f.label != "" || f.qid != "" {
		return errors.New("--label and --qid apply to CSV data; svmlight files carry their labels and qid: fields")
	}
	if f.zeroBased {
		src.SVM.Base = dataset.ZeroBased
	}
	cfg := rlsbeam.Config{Run: beamx.Run, TempLocation: f.tempLocation, ChunkRows: f.chunkRows}
	if !f.quiet {
		cfg.Progress = func(p stream.Pass, n int) { fmt.Fprintf(stderr, "rlskit-beam: pass %d: %s\n", n, p.Kind) }
	}
	res, err = rlsbeam.Fit(ctx, opt, src, cfg)
	if err != nil {
		return err
	}
	res.Predictor.Features = res.FeatureNames
	res.Predictor.ZeroBased = f.zeroBased
	out := summary{Learner: f.learner, Kernel: opt.Kernel, Form: "linear", Lambda: res.Best.Lambda, NTrain: res.Rows,
		NFeatures: res.Width, Outputs: res.Predictor.Outputs, NBasis: len(res.Basis),
		Timing: map[string]float64{"total_s": time.Since(start).Seconds()}, Beam: beamSummary{Files: res.Files, BasisRows: res.Basis}}
	if res.Basis != nil {
		out.Form = "sparse"
	}
	for _, p := range res.Passes {
		out.Beam.Passes = append(out.Beam.Passes, p.Kind.String())
	}
	if opt.CV != "none" {
		out.CV = &cvSummary{Strategy: opt.CV, Measure: opt.Measure.Name, Curve: res.Curve, Best: res.Best}
	}
	if err := outs.Commit(); err != nil {
		return err
	}
	w := stdout
	if f.model == "-" {
		w = stderr
	}
	return json.NewEncoder(w).Encode(out)
}
