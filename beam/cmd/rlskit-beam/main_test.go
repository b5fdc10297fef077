package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/stream"
	"github.com/rlskit/rlskit/summary"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// TestFlags: rlskit-beam defines every flag of rlskit fit next to Beam's
// own; only --labels, which Beam's Dataflow runner defines (job labels) and
// which does not apply to a streaming fit, may be Beam's.
func TestFlags(t *testing.T) {
	fit := flag.NewFlagSet("fit", flag.ContinueOnError)
	plan.Define(fit, &plan.Flags{})
	plan.Define(beside{flag.CommandLine}, &plan.Flags{})
	fit.VisitAll(func(fl *flag.Flag) {
		got := flag.CommandLine.Lookup(fl.Name)
		switch {
		case got == nil:
			t.Errorf("--%s is not defined", fl.Name)
		case fl.Name == "labels":
			// Dataflow's job labels (or fit's, which a streaming fit refuses)
		case got.Usage != fl.Usage || got.DefValue != fl.DefValue:
			t.Errorf("--%s is defined by Beam too (%q): rlskit-beam would not take fit's", fl.Name, got.Usage)
		}
	})
}

// TestSummary: rlskit-beam prints rlskit fit --stream's summary (package
// summary's Fit of the same passes run by stream.Run: every field, the CV
// values to 1e-9, the timing but its total 0) and its "beam" section, and
// nothing else.
func TestSummary(t *testing.T) {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	f := &plan.Flags{}
	plan.Define(fs, f)
	data := filepath.Join("..", "..", "..", "docs", "data", "letor", "part-*.svm.gz")
	if err := fs.Parse([]string{"--data", data, "--learner", "queryrank", "--cv", "lqo", "--lambda-grid", "2^-4..2^4", "--quiet"}); err != nil {
		t.Fatal(err)
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	f.Stream = true
	p, err := plan.New(f, func(name string) bool { return given[name] })
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), p, f, beamFlags{chunkRows: 256}, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var got struct { // fit's summary and the beam section: nothing else
		summary.Fit
		Beam beamSummary `json:"beam"`
	}
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("not fit's summary and its beam section: %v", err)
	}
	if len(got.Beam.Files) != 4 || len(got.Beam.Passes) == 0 || got.Timing.Total <= 0 {
		t.Errorf("beam %+v, timing %+v", got.Beam, got.Timing)
	}

	opt, err := p.StreamOptions()
	if err != nil {
		t.Fatal(err)
	}
	files, err := dataset.ExpandFiles(data)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.StreamSource(files)
	if err != nil {
		t.Fatal(err)
	}
	res, err := stream.Run(context.Background(), opt, src, stream.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := summary.StreamFit(opt, res.Result)
	if got.CV == nil || want.CV == nil || len(got.CV.Curve) != len(want.CV.Curve) || len(want.CV.Curve) != 9 {
		t.Fatalf("cv %+v, want %+v", got.CV, want.CV)
	}
	for n := range want.CV.Curve {
		g, w := &got.CV.Curve[n], &want.CV.Curve[n]
		if math.Abs(g.Value-w.Value) > 1e-9*math.Abs(w.Value) {
			t.Errorf("λ = %g: %v, fit --stream %v", w.Lambda, g.Value, w.Value)
		}
		g.Value = w.Value
	}
	got.CV.Best.Value, got.Timing.Total = want.CV.Best.Value, 0
	a, _ := json.Marshal(got.Fit)
	b, _ := json.Marshal(want)
	if !bytes.Equal(a, b) {
		t.Errorf("rlskit-beam\n%s\nrlskit fit --stream\n%s", a, b)
	}
}
