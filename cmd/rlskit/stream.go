package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/stream"
)

// fit --stream: the data are read in passes and never held (package stream
// does every computation; this file turns flags into stream.Options, reports
// progress and writes the results).

// planStream checks the flags of fit --stream, after planFit's own checks and
// before any work.
func planStream(f *fitFlags, changed func(string) bool, le *learnerEntry, cvName string) error {
	if _, err := stream.LossOf(le.name); err != nil { // the registered descriptor declares learn.CanStream
		return fmt.Errorf("--stream trains a learner whose loss streams (--learner %s), not %s: %w", streamLearners(), le.name, err)
	}
	if f.data == "-" {
		return errors.New("--stream reads its data more than once: give files (--data 'dir/part-*.svm.gz'), not standard input")
	}
	sparse := f.basis > 0 || f.basisRows != ""
	switch {
	case f.kernel == "precomputed":
		return errors.New("--stream: a precomputed kernel does not stream")
	case f.kernel != "linear" && !sparse:
		return fmt.Errorf("--stream: the %s kernel streams over a fixed basis: give --basis N or --basis-rows FILE", f.kernel)
	case f.gammaGrid != "" || f.degreeGrid != "" || f.coef0Grid != "":
		return errors.New("--stream takes one kernel setting (every setting would need passes of its own): no --gamma-grid, --degree-grid or --coef0-grid")
	case cvName == "lpo" || cvName == "folds":
		return fmt.Errorf("--stream cross-validates by none, loo, kfold:K (folds by a hash of each row), lgo or lqo, not %s", cvName)
	case f.solver != "direct":
		return errors.New("--stream solves directly from the statistics: no --solver cg")
	case f.permutations > 0 || f.reportOut != "" || f.oneVsAll || f.cvPredictionsOut != "":
		return errors.New("--stream does not take --permutations, --report, --one-vs-all or --cv-predictions (each would hold every row)")
	case f.basisSelect != "random" || f.basisDesign != 0:
		return errors.New("--stream draws a random basis from the first rows, or reads --basis-rows: no --basis-select or --basis-design")
	case changed("basis-holdout") && f.basisHoldOut != "keep":
		return errors.New("--stream keeps the basis in hold-outs: --basis-holdout keep")
	case f.foldScore != "pooled":
		return errors.New("--stream scores the pooled CV predictions: no --fold-score mean")
	case f.greedyLambda != 1 && changed("greedy-lambda"):
		return errors.New("--greedy-lambda applies to --basis-select greedy")
	}
	if f.basisHoldOut != "" {
		f.basisHoldOut = "keep"
	}
	return nil
}

// streamOutput is fit's JSON with what the passes did.
type streamOutput struct {
	fitOutput
	Stream streamInfo `json:"stream"`
}

type streamInfo struct {
	Files  []stream.FileStats `json:"files"`
	Bytes  int64              `json:"bytes"`
	Passes []passInfo         `json:"passes"`
	// RowsPerSecond is the rows of one pass per second of pass time, over all passes.
	RowsPerSecond float64 `json:"rows_per_s"`
	Workers       int     `json:"workers"`
	BasisRows     []int   `json:"basis_rows,omitempty"`
}

type passInfo struct {
	Kind    string  `json:"kind"`
	Grouped bool    `json:"grouped,omitempty"`
	Seconds float64 `json:"seconds"`
}

// runStream is fit --stream.
func runStream(e *env, f *fitFlags, p *fitPlan, start time.Time) error {
	var (
		res  *stream.RunResult
		outs = dataset.Outputs{Stdout: e.stdout}
	)
	outs.Add("--model", f.modelOut, func(w io.Writer) error { return res.Predictor.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	files, err := dataset.ExpandFiles(f.data)
	if err != nil {
		return fmt.Errorf("--data %s: %w", f.data, err)
	}
	if err := outs.CheckInputs(append(files, f.basisRows)...); err != nil {
		return err
	}
	src, err := streamSource(f, files)
	if err != nil {
		return err
	}
	// the loss the learner's descriptor declares: package stream reads only it
	loss, err := stream.LossOf(p.learner.name)
	if err != nil {
		return err
	}
	opt := stream.Options{Learner: p.learner.name, Loss: loss, Kernel: p.specs[0], BasisN: f.basis, CV: p.cvSpec, Seed: f.seed,
		Lambdas: p.grid, Measure: p.meas, Standardize: f.standardize, QueryNormalize: f.queryNormalize}
	if f.basisRows != "" {
		b, err := readFile(f.basisRows, func(r io.Reader) ([]int, error) { return dataset.ReadIndices(r, f.basisRows, math.MaxInt32) })
		if err != nil {
			return err
		}
		opt.BasisRows = b
	}
	bar := newByteProgress(e.stderr, f.quiet)
	ro := stream.RunOptions{Progress: func(pass stream.Pass, n int, done, total int64) {
		bar.update(n, pass.Kind.String(), done, total)
	}}
	res, err = stream.Run(context.Background(), opt, src, ro)
	if err != nil {
		bar.done()
		return err
	}
	res.Predictor.Features = res.FeatureNames
	res.Predictor.ZeroBased = src.SVM.Base == dataset.ZeroBased
	var passes []passInfo
	var passTime float64
	for n, ps := range res.Passes {
		passes = append(passes, passInfo{Kind: ps.Kind.String(), Grouped: ps.Grouped, Seconds: res.PassSeconds[n]})
		passTime += res.PassSeconds[n]
	}
	form := "linear"
	if res.Basis != nil {
		form = "sparse"
	}
	out := streamOutput{fitOutput: fitOutput{Learner: string(p.learner.name), Kernel: p.specs[0], Form: form, Lambda: res.Best.Lambda,
		NTrain: res.Rows, NFeatures: res.Width, Outputs: res.Predictor.Outputs, NBasis: len(res.Basis), Backend: linalg.Backend()}}
	if res.Groups > 0 {
		out.Queries = &queryInfo{Count: res.Groups, WithoutPairs: res.SingleRowGroups}
	}
	if p.cvSpec != "none" {
		var curve []curvePoint
		for _, pt := range res.Curve {
			curve = append(curve, point(pt, p.specs[0], false))
		}
		out.CV = &cvOutput{Strategy: p.cvSpec, Measure: p.meas.Name, Curve: curve, Best: point(res.Best, p.specs[0], false)}
		out.CV.Best.OnEdge = res.OnEdge
		if res.Basis != nil {
			out.CV.BasisHoldOut = "keep"
		}
	}
	total := time.Since(start).Seconds()
	out.Timing = timing{Load: passTime, Train: total - passTime, Total: total}
	out.Stream = streamInfo{Files: res.Files, Bytes: res.Bytes, Passes: passes, Workers: runtime.GOMAXPROCS(0), BasisRows: res.Basis}
	if passTime > 0 {
		out.Stream.RowsPerSecond = float64(res.Rows) * float64(len(passes)) / passTime
	}
	if out.CV != nil && !f.quiet {
		for _, edge := range res.OnEdge { // selection.GridEdge: the grid in any order
			fmt.Fprintf(e.stderr, "rlskit: warning: the chosen %s is the %s end of its grid; the best value may lie beyond it: widen the grid\n",
				edge.Parameter, map[string]string{"low": "lower", "high": "upper"}[edge.Side])
		}
	}
	return finish(e, f, &outs, bar.p, out)
}

// streamLearners lists the registered learners that declare
// learn.CanStream, in the order of their losses: "rls, globalrank or
// queryrank".
func streamLearners() string {
	var ds []*learn.Descriptor
	for _, d := range learn.Descriptors() {
		if d.Can(learn.CanStream) {
			ds = append(ds, d)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Loss < ds[j].Loss })
	var names []string
	for _, d := range ds {
		names = append(names, string(d.Name))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// streamSource builds the reader options for the files.
func streamSource(f *fitFlags, files []string) (stream.Source, error) {
	format := f.format
	if format != "" && format != "csv" && format != "svmlight" {
		return stream.Source{}, fmt.Errorf("--format %q: want svmlight or csv", format)
	}
	if format == "" {
		name := strings.ToLower(filepath.Base(files[0]))
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".gzip")
		format = "svmlight"
		if strings.HasSuffix(name, ".csv") {
			format = "csv"
		}
	}
	src := stream.Source{Files: files, Format: format}
	// shards are read independently: an automatic base could differ between
	// them, so svmlight is 1-based unless --zero-based true says otherwise
	if f.in.zeroBased == "true" {
		src.SVM.Base = dataset.ZeroBased
	} else if _, err := f.in.base(nil); err != nil {
		return src, err
	}
	comma, err := f.in.comma()
	if err != nil {
		return src, err
	}
	src.CSV.Comma = comma
	if format == "csv" {
		for _, l := range strings.Split(f.label, ",") {
			if l = strings.TrimSpace(l); l != "" {
				src.CSV.Labels = append(src.CSV.Labels, l)
			}
		}
		if len(src.CSV.Labels) == 0 {
			return src, fmt.Errorf("%s: no labels (name the label column(s) with --label)", f.data)
		}
		src.CSV.Qid = f.qid
	} else if f.label != "" || f.qid != "" {
		return src, fmt.Errorf("%s: --label and --qid apply to CSV data; svmlight files carry their labels and qid: fields", f.data)
	}
	return src, nil
}

// byteProgress reports a pass's progress over the bytes of the input on
// stderr: after the first two seconds, at most five times a second,
// rewritten in place on a terminal.
type byteProgress struct {
	mu    sync.Mutex
	p     *progress
	start time.Time
	last  time.Time
	pass  int
	t0    time.Time
}

func newByteProgress(w io.Writer, quiet bool) *byteProgress {
	return &byteProgress{p: newProgress(w, quiet), start: time.Now()}
}

func (b *byteProgress) update(pass int, kind string, done, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if pass != b.pass {
		b.pass, b.t0 = pass, now
	}
	if now.Sub(b.last) < 200*time.Millisecond && done < total {
		return
	}
	b.last = now
	rate := float64(done) / math.Max(now.Sub(b.t0).Seconds(), 1e-9) / 1e6
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	b.p.stepDetail(fmt.Sprintf("pass %d (%s)", pass, kind), fmt.Sprintf("%.0f%% of %.1f MB, %.0f MB/s", pct, float64(total)/1e6, rate), int(done>>20), int(total>>20))
}

func (b *byteProgress) done() { b.p.done() }
