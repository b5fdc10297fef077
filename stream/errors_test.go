package stream

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
)

// TestNewPlanRefusesOptions: every option a streaming fit cannot run with
// is ErrOptions naming the problem, and the nearest options that can run
// are accepted.
func TestNewPlanRefusesOptions(t *testing.T) {
	mse, _ := measure.ByName("mse")
	macc, _ := measure.ByName("multiclass-accuracy")
	lin := kernel.Spec{Name: "linear", Bias: 1}
	gauss := kernel.Spec{Name: "gaussian", Gamma: 0.5}
	base := Options{Learner: learn.RLS, Kernel: lin, CV: "kfold:3", Lambdas: []float64{1, 10}, Measure: mse}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		err  string // "" accepted
	}{
		{"base", func(o *Options) {}, ""},
		{"both bases", func(o *Options) { o.Kernel, o.BasisN, o.BasisRows = gauss, 3, []int{0, 1} }, "a random basis and basis rows"},
		{"random basis", func(o *Options) { o.Kernel, o.BasisN = gauss, 3 }, ""},
		{"basis rows", func(o *Options) { o.Kernel, o.BasisRows = gauss, []int{0, 2} }, ""},
		{"negative basis", func(o *Options) { o.BasisN = -1 }, "basis of -1 rows"},
		{"gaussian without basis", func(o *Options) { o.Kernel = gauss }, "the gaussian kernel streams over a fixed basis"},
		{"precomputed", func(o *Options) { o.Kernel, o.BasisN = kernel.Spec{Name: "precomputed"}, 3 }, "precomputed kernel does not stream"},
		{"negative bias", func(o *Options) { o.Kernel.Bias = -0.5 }, "bias must be ≥ 0, got -0.5"},
		{"zero bias", func(o *Options) { o.Kernel.Bias = 0 }, ""},
		{"no λ", func(o *Options) { o.Lambdas = nil }, "no λ values"},
		{"λ 0", func(o *Options) { o.Lambdas = []float64{1, 0} }, "lambda must be a finite number > 0: got 0"},
		{"λ NaN", func(o *Options) { o.Lambdas = []float64{math.NaN()} }, "got NaN"},
		{"no measure", func(o *Options) { o.Measure = measure.Measure{} }, "no measure"},
		{"normalize rls", func(o *Options) { o.QueryNormalize = true }, "query normalization is for the query loss"},
		{"normalize queryrank", func(o *Options) { o.Learner, o.Kernel.Bias, o.QueryNormalize = learn.QueryRank, 0, true }, ""},
		{"none, two λ", func(o *Options) { o.CV = "none" }, "no cross-validation to choose among 2 λ values"},
		{"none, one λ", func(o *Options) { o.CV, o.Lambdas = "none", []float64{1} }, ""},
		{"multiclass", func(o *Options) { o.Measure = macc }, "multiclass-accuracy does not stream"},
	} {
		opt := base
		c.edit(&opt)
		_, err := NewPlan(opt)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (!errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want ErrOptions about %q", c.name, err, c.err)
		}
	}
}

// TestSetPilotRefusesRows: the pilot must have rows with labels, hold the
// pool a random basis is drawn from and every basis row given, once each
// (ErrData); the pilot's first rows fix the outputs and sparsity, and a
// basis drawn or given is reported by Basis.
func TestSetPilotRefusesRows(t *testing.T) {
	mse, _ := measure.ByName("mse")
	rows := misuseRows()
	gauss := kernel.Spec{Name: "gaussian", Gamma: 0.5}
	for _, c := range []struct {
		name  string
		opt   func(o *Options)
		rows  []Row
		err   string
		basis []int
	}{
		{"no rows", func(o *Options) {}, nil, "no data rows", nil},
		{"no labels", func(o *Options) {}, []Row{{Value: []float64{1}}, {Value: []float64{2}}}, "rows without labels", nil},
		{"basis larger than the data", func(o *Options) { o.Kernel, o.BasisN = gauss, 6 }, rows, "a basis of 6 rows drawn from the first 1024 rows: the data have 5", nil},
		{"basis of every row", func(o *Options) { o.Kernel, o.BasisN = gauss, 5 }, rows, "", []int{0, 1, 2, 3, 4}},
		{"basis row beyond the data", func(o *Options) { o.Kernel, o.BasisRows = gauss, []int{1, 5} }, rows, "basis row 5 outside the 5 rows", nil},
		{"negative basis row", func(o *Options) { o.Kernel, o.BasisRows = gauss, []int{-1} }, rows, "basis row -1 outside", nil},
		{"basis row twice", func(o *Options) { o.Kernel, o.BasisRows = gauss, []int{2, 0, 2} }, rows, "basis row 2 given twice", nil},
		{"last row as basis", func(o *Options) { o.Kernel, o.BasisRows = gauss, []int{4, 0} }, rows, "", []int{4, 0}},
	} {
		opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:2", Lambdas: []float64{1}, Measure: mse}
		c.opt(&opt)
		p, err := NewPlan(opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := p.PilotRows(); n != max(1024, 10*opt.BasisN) {
			t.Errorf("%s: %d pilot rows, want max(1024, 10·%d)", c.name, n, opt.BasisN)
		}
		err = p.SetPilot(c.rows)
		if c.err != "" {
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want ErrData about %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		got := append([]int(nil), p.Basis()...)
		if c.name == "basis of every row" {
			sortInts(got)
		}
		if len(got) != len(c.basis) || p.Outputs() != 1 {
			t.Errorf("%s: basis %v, outputs %d; want %v, 1", c.name, p.Basis(), p.Outputs(), c.basis)
		}
		for k := range got {
			if got[k] != c.basis[k] {
				t.Errorf("%s: basis %v, want %v", c.name, got, c.basis)
				break
			}
		}
	}
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear"}, CV: "kfold:2", Lambdas: []float64{1}, Measure: mse, BasisRows: nil}
	p, _ := NewPlan(opt)
	if n := p.PilotRows(); n != 1024 {
		t.Errorf("%d pilot rows without a basis, want 1024", n)
	}
	opt.Kernel, opt.BasisRows = gauss, []int{3, 1500, 7}
	p, _ = NewPlan(opt)
	if n := p.PilotRows(); n != 1501 {
		t.Errorf("%d pilot rows for basis row 1500, want 1501", n)
	}
}

func sortInts(a []int) {
	for i := range a {
		for j := i + 1; j < len(a); j++ {
			if a[j] < a[i] {
				a[i], a[j] = a[j], a[i]
			}
		}
	}
}

// TestAccumulatorRefusesData: rows that do not fit the plan — another
// number of labels, sparse rows in a dense fit, rows without query ids
// where the scheme, the loss or the measure needs them, a group mixing two
// queries or of another size than in the statistics pass — are ErrData;
// chunks of rows where a pass takes whole groups, and groups where it
// takes chunks, are ErrOptions.
func TestAccumulatorRefusesData(t *testing.T) {
	mse, _ := measure.ByName("mse")
	disagree, _ := measure.ByName("disagreement")
	rows := misuseRows()
	dense := orcChunk(rows, false, 2)
	noQ := orcChunk(rows, false, 2)
	noQ.Queries, noQ.QueryNames = nil, nil
	twoLabels := &dataset.Data{X: dense.X, Y: mat.NewDense(5, 2, nil), Queries: dense.Queries, QueryNames: dense.QueryNames}
	noLabels := &dataset.Data{X: dense.X, Queries: dense.Queries, QueryNames: dense.QueryNames}
	sparse := &dataset.Data{X: &matrix.CSR{R: 1, C: 2, Indptr: []int{0, 1}, Indices: []int{0}, Values: []float64{1}}, Y: mat.NewDense(1, 1, []float64{1}),
		Queries: []int{0}, QueryNames: []string{"a"}}
	lin := kernel.Spec{Name: "linear", Bias: 1}
	for _, c := range []struct {
		name  string
		opt   Options
		chunk *dataset.Data
		err   string
	}{
		{"two labels", Options{Learner: learn.RLS, CV: "kfold:2", Measure: mse}, twoLabels, "rows of 2 labels; the first rows have 1"},
		{"no labels", Options{Learner: learn.RLS, CV: "kfold:2", Measure: mse}, noLabels, "rows without labels"},
		{"sparse in dense", Options{Learner: learn.RLS, CV: "kfold:2", Measure: mse}, sparse, "sparse (svmlight) and dense (CSV) inputs mixed"},
		{"lgo without queries", Options{Learner: learn.RLS, CV: "lgo", Measure: mse}, noQ, "lgo needs them"},
		{"queryrank without queries", Options{Learner: learn.QueryRank, CV: "kfold:2", Measure: mse}, noQ, "queryrank (the query-pairs loss) needs them"},
		{"disagreement without queries", Options{Learner: learn.RLS, CV: "kfold:2", Measure: disagree}, noQ, "the measure disagreement needs them"},
		{"kfold with queries", Options{Learner: learn.RLS, CV: "kfold:2", Measure: mse}, dense, ""},
		{"kfold without queries", Options{Learner: learn.RLS, CV: "kfold:2", Measure: mse}, noQ, ""},
	} {
		c.opt.Kernel, c.opt.Lambdas = lin, []float64{1}
		if c.opt.Learner == learn.QueryRank {
			c.opt.Kernel.Bias = 0
		}
		p, err := NewPlan(c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := p.SetPilot(rows); err != nil {
			t.Fatal(err)
		}
		a, err := p.NewAccumulator()
		if err != nil {
			t.Fatal(err)
		}
		err = a.AddChunk(c.chunk)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want ErrData about %q", c.name, err, c.err)
		}
	}

	// the grouped passes of query ranking
	p, err := NewPlan(Options{Learner: learn.QueryRank, Kernel: kernel.Spec{Name: "linear"}, CV: "lqo", Lambdas: []float64{1}, Measure: mse})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetPilot(rows); err != nil {
		t.Fatal(err)
	}
	stats, _ := p.NewAccumulator()
	if err := stats.AddChunk(dense); err != nil {
		t.Fatal(err)
	}
	if err := p.Finish(stats, nil); err != nil {
		t.Fatal(err)
	}
	if sizes := p.GroupSizes(); len(sizes) != 3 || sizes["a"] != 2 || sizes["b"] != 2 || sizes["c"] != 1 {
		t.Errorf("group sizes %v, want a:2 b:2 c:1", sizes)
	}
	q, _ := p.NewAccumulator()
	if q.Kind != QueryPass {
		t.Fatalf("%v pass after the statistics, want the query pass", q.Kind)
	}
	if err := q.AddChunk(dense); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "the query statistics pass takes whole groups") {
		t.Errorf("a chunk in the query pass: %v, want ErrOptions", err)
	}
	otherLabels := []Row{{Value: []float64{1, 2}, Y: []float64{1, 2}, Group: "a"}, {Value: []float64{1, 0}, Y: []float64{1, 2}, Group: "a"}}
	for _, c := range []struct {
		name  string
		group []Row
		err   string
	}{
		{"mixed", rows[1:3], `a group of query "a" holds a row of query "b"`},
		{"short", rows[:1], `query "a" has 1 rows in this pass and had 2 in the first`},
		{"long", append(append([]Row(nil), rows[:2]...), rows[0]), `query "a" has 3 rows in this pass and had 2`},
		{"unknown", []Row{{Value: []float64{1}, Y: []float64{1}, Group: "z"}}, `query "z" was not in the data's first pass`},
		{"labels", otherLabels, `query "a": a row of 2 labels; the first rows have 1`},
	} {
		if err := q.AddGroup(c.group); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want ErrData about %q", c.name, err, c.err)
		}
	}
	if err := q.AddGroup(nil); err != nil {
		t.Errorf("an empty group: %v", err)
	}
	for _, g := range [][]Row{rows[:2], rows[2:4], rows[4:]} {
		if err := q.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Finish(q, nil); err != nil {
		t.Fatal(err)
	}
}

// TestFinishRefusesData: the statistics pass refuses data a fit cannot
// learn from (ErrData): rows without features, fewer than 2 rows, a single
// group under leave-group-out, fewer than 2 queries of two or more rows
// when queries are left out, a fold that holds every row.
func TestFinishRefusesData(t *testing.T) {
	mse, _ := measure.ByName("mse")
	lin := kernel.Spec{Name: "linear", Bias: 1}
	row := func(g string, y float64, x ...float64) Row { return Row{Value: x, Y: []float64{y}, Group: g} }
	for _, c := range []struct {
		name    string
		learner learn.Name
		cv      string
		rows    []Row
		err     string
	}{
		{"one row", learn.RLS, "loo", []Row{row("a", 1, 1)}, "1 rows, need at least 2"},
		{"two rows", learn.RLS, "loo", []Row{row("a", 1, 1), row("a", 2, 3)}, ""},
		{"no features", learn.RLS, "loo", []Row{{Index: []int{}, Y: []float64{1}}, {Index: []int{}, Y: []float64{2}}}, "the rows have no features"},
		{"one group", learn.RLS, "lgo", []Row{row("a", 1, 1), row("a", 2, 3), row("a", 0, 2)}, "lgo: 1 group(s); leaving groups out needs 2"},
		{"two groups", learn.RLS, "lgo", []Row{row("a", 1, 1), row("b", 2, 3), row("a", 0, 2)}, ""},
		{"one query of pairs", learn.QueryRank, "lqo", []Row{row("a", 1, 1), row("a", 2, 3), row("b", 0, 2)}, "lqo: 1 queries with two or more rows; leaving queries out needs 2"},
		{"one query of pairs, kfold", learn.QueryRank, "kfold:2", []Row{row("a", 1, 1), row("a", 2, 3), row("b", 0, 2)}, "kfold:2: 1 queries with two or more rows"},
		{"two queries of pairs", learn.QueryRank, "lqo", []Row{row("a", 1, 1), row("a", 2, 3), row("b", 0, 2), row("b", 1, 0)}, ""},
		{"one query of pairs, loo", learn.QueryRank, "loo", []Row{row("a", 1, 1), row("a", 2, 3), row("b", 0, 2)}, ""},
		{"identical rows: one fold", learn.RLS, "kfold:3", []Row{row("", 1, 1), row("", 1, 1), row("", 1, 1)}, "kfold:3: fold"},
	} {
		opt := Options{Learner: c.learner, Kernel: lin, CV: c.cv, Lambdas: []float64{1}, Measure: mse}
		if c.learner == learn.QueryRank {
			opt.Kernel.Bias = 0
		}
		p, err := NewPlan(opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SetPilot(c.rows); err != nil {
			t.Fatal(err)
		}
		a, _ := p.NewAccumulator()
		sparse := c.rows[0].Index != nil // label-only svmlight rows
		w := 1
		if sparse {
			w = 0
		}
		if err := a.AddChunk(orcChunk(c.rows, sparse, w)); err != nil {
			t.Fatal(err)
		}
		err = p.Finish(a, nil)
		if c.err == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want ErrData about %q", c.name, err, c.err)
		}
	}
}
