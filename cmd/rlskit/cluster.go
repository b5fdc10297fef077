package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/mmc"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/summary"
)

// runCluster is fit for a learner that clusters the rows (one that takes
// learn.ParamClusters: mmc): read the rows (no labels) → the registered
// learner's method at the plan's one kernel and λ → write the model and the
// labelling. The search is the library's.
func runCluster(e *env, f *fitFlags, p *plan.Plan, start time.Time) error {
	var pred *model.Predictor
	outs := dataset.Outputs{Stdout: e.stdout}
	outs.Add("--model", f.Model, func(w io.Writer) error { return pred.Save(w) })
	if err := outs.Check(); err != nil {
		return err
	}
	if err := outs.CheckInputs(f.inputs...); err != nil {
		return err
	}
	d, err := readData(e, f.Data, f.Format, "", "", 0, f.In)
	if err != nil {
		return err
	}
	m := d.Rows()
	if f.Clusters > m {
		return fmt.Errorf("--clusters %d: %w: %s has %d rows", f.Clusters, mmc.ErrClusters, f.Data, m)
	}
	m2, width := d.X.Dims()
	if p.Kernels[0].Name == "precomputed" && m2 != width {
		return fmt.Errorf("%s: a precomputed kernel matrix must be square, got %d rows and %d columns", f.Data, m2, width)
	}
	in := &learn.Input{X: d.X, Clusters: f.Clusters, Restarts: f.Restarts, Seed: f.Seed, Standardize: f.Standardize}
	if f.Init != "" {
		if in.Init, err = readFile(f.Init, func(r io.Reader) ([]int, error) { return readClusterLabels(r, f.Init, m, f.Clusters) }); err != nil {
			if !strings.HasPrefix(err.Error(), "--init ") { // opening it, not reading it
				err = fmt.Errorf("--init %s: %w", f.Init, err)
			}
			return err
		}
	}
	if f.Fixed != "" {
		if in.Fixed, err = readFile(f.Fixed, func(r io.Reader) ([]int, error) { return dataset.ReadIndices(r, f.Fixed, m) }); err != nil {
			if !strings.HasPrefix(err.Error(), "--fixed ") {
				err = fmt.Errorf("--fixed %s: %w", f.Fixed, err)
			}
			return err
		}
	}
	if f.Steps != "" {
		if in.Steps, err = readFile(f.Steps, func(r io.Reader) ([]learn.Step, error) { return readSteps(r, f.Steps, m, f.Clusters) }); err != nil {
			if !strings.HasPrefix(err.Error(), "--steps ") {
				err = fmt.Errorf("--steps %s: %w", f.Steps, err)
			}
			return err
		}
	}
	if in.Basis, err = chooseBasis(f, d, m); err != nil {
		return err
	}
	loaded := time.Now()
	prog := newProgress(e.stderr, f.Quiet)
	defer prog.done()
	if !f.Quiet {
		in.Observe = prog.observe
	}
	sol, err := mmc.Run(p.Learner, in, p.Kernels[0], p.Lambdas[0])
	if err != nil {
		return err
	}
	pred = sol.Predictor()
	pred.Features, pred.FeatureColumns, pred.ZeroBased = d.FeatureNames, arrayColumns(d), d.ZeroBased
	out := summary.Clustering(string(p.Learner.Name), p.Kernels[0], p.Lambdas[0], m, sol)
	out.Timing = summary.Timing{Load: loaded.Sub(start).Seconds(), Train: time.Since(loaded).Seconds(), Total: time.Since(start).Seconds()}
	return finish(e, f, &outs, prog, out)
}

// readClusterLabels reads an initial labelling (--init): one cluster index
// in [0, k) per line for each of the m rows; blank lines and lines starting
// with # are skipped. Errors name the file and line. It stops at the first
// line beyond m, so a large file allocates no more than m integers.
func readClusterLabels(r io.Reader, path string, m, k int) ([]int, error) {
	sc := bufio.NewScanner(r)
	out := make([]int, 0, m)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if len(out) == m {
			return nil, fmt.Errorf("--init %s:%d: more labels than the %d rows of the data", path, line, m)
		}
		v, err := strconv.Atoi(t)
		if err != nil {
			return nil, fmt.Errorf("--init %s:%d: %q is not a cluster index (an integer 0 … %d)", path, line, t, k-1)
		}
		if v < 0 || v >= k {
			return nil, fmt.Errorf("--init %s:%d: cluster %d outside 0 … %d (--clusters %d)", path, line, v, k-1, k)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("--init %s:%d: line too long", path, line+1)
		}
		return nil, fmt.Errorf("--init %s: %w", path, err)
	}
	if len(out) != m {
		return nil, fmt.Errorf("--init %s: %d labels for the %d rows of the data", path, len(out), m)
	}
	return out, nil
}

// maxTrace bounds the labels the JSON trace of --steps holds (steps × rows):
// 2²⁵ integers, 256 MiB.
const maxTrace = 1 << 25

// readSteps reads the steps of --learner interactive, one per line (blank
// lines and # comments skipped): "ws ROWS" (0-based row indices and ranges
// a-b separated by commas, or "all"), "claim N CLASS", "all CLASS",
// "descend [LIMIT]"; classes below k. Errors name the file and line. A working set holds
// at most m rows and the trace at most maxTrace labels, so a small file
// cannot make a large allocation.
func readSteps(r io.Reader, path string, m, k int) ([]learn.Step, error) {
	sc := bufio.NewScanner(r)
	var steps []learn.Step
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("--steps %s:%d: %s", path, line, fmt.Sprintf(format, a...))
		}
		if (len(steps)+1)*m > maxTrace {
			return nil, bad("more than %d steps of %d rows: the trace of labels would exceed %d", maxTrace/m, m, maxTrace)
		}
		fs := strings.Fields(t)
		ints := func() ([]int, error) {
			var out []int
			for _, f := range fs[1:] {
				v, err := strconv.Atoi(f)
				if err != nil || v < 0 {
					return nil, bad("%q is not a count or class (an integer ≥ 0)", f)
				}
				out = append(out, v)
			}
			return out, nil
		}
		st := learn.Step{Op: fs[0]}
		switch fs[0] {
		case "ws":
			if len(fs) != 2 {
				return nil, bad("ws takes one list of rows (a,b,c-d or all), got %q", t)
			}
			rows, err := parseRows(fs[1], m)
			if err != nil {
				return nil, bad("%v", err)
			}
			st.Rows = rows
		case "claim", "all", "descend":
			v, err := ints()
			if err != nil {
				return nil, err
			}
			switch {
			case fs[0] == "claim" && len(v) == 2:
				st.N, st.Class = v[0], v[1]
			case fs[0] == "all" && len(v) == 1:
				st.Class = v[0]
			case fs[0] == "descend" && len(v) <= 1:
				if len(v) == 1 {
					st.Limit = v[0]
				}
			default:
				return nil, bad("want claim N CLASS, all CLASS or descend [LIMIT], got %q", t)
			}
			if fs[0] != "descend" && st.Class >= k {
				return nil, bad("class %d outside 0 … %d (--clusters %d)", st.Class, k-1, k)
			}
		default:
			return nil, bad("unknown step %q (want ws, claim, all or descend)", fs[0])
		}
		steps = append(steps, st)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("--steps %s:%d: line too long", path, line+1)
		}
		return nil, fmt.Errorf("--steps %s: %w", path, err)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("--steps %s: no steps", path)
	}
	return steps, nil
}

// parseRows parses a working set: "all", or 0-based rows and ranges a-b
// separated by commas, each below m, at most m in all.
func parseRows(s string, m int) ([]int, error) {
	if s == "all" {
		rows := make([]int, m)
		for i := range rows {
			rows[i] = i
		}
		return rows, nil
	}
	var rows []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("%q is not a row or a range a-b of rows", part)
		}
		if b >= m {
			return nil, fmt.Errorf("row %d: the data have %d rows (0 … %d)", b, m, m-1)
		}
		if len(rows)+b-a+1 > m {
			return nil, fmt.Errorf("more than the %d rows of the data in one working set", m)
		}
		for i := a; i <= b; i++ {
			rows = append(rows, i)
		}
	}
	return rows, nil
}
