package stream

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// orcData is a small data set held in memory: rows with features offset
// from 0 (dense, or sparse with some entries absent), continuous labels —
// every label distinct, so a hold-out prediction names its row by its
// labels — and group ids.
type orcData struct {
	rows   []Row
	x      [][]float64 // dense copies of the features, width d
	d      int
	sparse bool
}

func orcDraw(seed uint64, m, d, t, groups int, sparse bool) orcData {
	rng := rand.New(rand.NewPCG(seed, 77))
	beta := make([][]float64, t)
	for c := range beta {
		beta[c] = make([]float64, d)
		for j := range beta[c] {
			beta[c][j] = rng.NormFloat64()
		}
	}
	out := orcData{d: d, sparse: sparse}
	for i := 0; i < m; i++ {
		x := make([]float64, d)
		for j := range x {
			if sparse && (j > 0 && rng.IntN(4) == 0 || j == d-1 && rng.IntN(5) > 0) {
				continue // the last feature rare: chunks of every width
			}
			x[j] = 1.5 + rng.NormFloat64()
		}
		if sparse && i == 0 {
			x[d-1] = 2 // the pilot's first row spans the width
		}
		r := Row{Group: "g" + strconv.Itoa(rng.IntN(groups))}
		for c := 0; c < t; c++ {
			v := 0.3 * rng.NormFloat64()
			for j, b := range beta[c] {
				v += b * x[j]
			}
			r.Y = append(r.Y, v)
		}
		if sparse {
			r.Index = []int{}
			for j, v := range x {
				if v != 0 {
					r.Index, r.Value = append(r.Index, j), append(r.Value, v)
				}
			}
		} else {
			r.Value = append([]float64(nil), x...)
		}
		out.rows = append(out.rows, r)
		out.x = append(out.x, x)
	}
	return out
}

// orcChunk is a chunk of rows as package dataset reads it (sparse: as
// wide as its rows).
func orcChunk(rows []Row, sparse bool, d int) *dataset.Data {
	t := len(rows[0].Y)
	out := &dataset.Data{Y: mat.NewDense(len(rows), t, nil)}
	codes := map[string]int{}
	for i, r := range rows {
		out.Y.SetRow(i, r.Y)
		c, ok := codes[r.Group]
		if !ok {
			c = len(out.QueryNames)
			codes[r.Group] = c
			out.QueryNames = append(out.QueryNames, r.Group)
		}
		out.Queries = append(out.Queries, c)
	}
	if sparse {
		csr := &matrix.CSR{R: len(rows), Indptr: []int{0}}
		for _, r := range rows {
			csr.C = max(csr.C, r.Width())
			csr.Indices = append(csr.Indices, r.Index...)
			csr.Values = append(csr.Values, r.Value...)
			csr.Indptr = append(csr.Indptr, len(csr.Indices))
		}
		out.X = csr
	} else {
		x := mat.NewDense(len(rows), d, nil)
		for i, r := range rows {
			x.SetRow(i, r.Value)
		}
		out.X = x
	}
	return out
}

// orcRun drives a plan over the rows in memory, as an engine does: every
// pass through two accumulators (chunks of chunk rows, or whole groups,
// dealt alternately) merged, predictions to a store when the pass has them.
// It returns the result and every hold-out prediction emitted.
func orcRun(t *testing.T, opt Options, od orcData, chunk int) (*Result, []Prediction) {
	t.Helper()
	plan, err := NewPlan(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.SetPilot(od.rows[:min(len(od.rows), plan.PilotRows())]); err != nil {
		t.Fatal(err)
	}
	var preds []Prediction
	for pass, more := plan.Next(); more; pass, more = plan.Next() {
		var store *Store
		if pass.Predictions {
			if store, err = NewStore(t.TempDir(), len(opt.Lambdas), plan.Outputs()); err != nil {
				t.Fatal(err)
			}
		}
		var accs []*Accumulator
		var writers []*StoreWriter
		for range 2 {
			a, err := plan.NewAccumulator()
			if err != nil {
				t.Fatal(err)
			}
			var w *StoreWriter
			if store != nil {
				if w, err = store.Writer(); err != nil {
					t.Fatal(err)
				}
				writers = append(writers, w)
			}
			a.Emit = func(p Prediction) error {
				preds = append(preds, p)
				if w != nil {
					return w.Write(p)
				}
				return nil
			}
			accs = append(accs, a)
		}
		if pass.Grouped {
			groups := map[string][]Row{}
			for _, r := range od.rows {
				groups[r.Group] = append(groups[r.Group], r)
			}
			for k, g := range sortedKeys(groups) {
				if err := accs[k%2].AddGroup(groups[g]); err != nil {
					t.Fatal(err)
				}
			}
		} else {
			for lo, k := 0, 0; lo < len(od.rows); lo, k = lo+chunk, k+1 {
				hi := min(lo+chunk, len(od.rows))
				if err := accs[k%2].AddChunk(orcChunk(od.rows[lo:hi], od.sparse, od.d)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, w := range writers {
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := accs[0].Merge(accs[1]); err != nil {
			t.Fatal(err)
		}
		if err := plan.Finish(accs[0], store); err != nil {
			t.Fatal(err)
		}
		if store != nil {
			store.Close()
		}
	}
	res, err := plan.Result()
	if err != nil {
		t.Fatal(err)
	}
	return res, preds
}

// orcOracle retrains directly: features standardized by model.FitScaler
// when asked, every training set's normal equations formed from its rows in
// float64 and solved densely — RLS as ridge on [z, √bias] with every weight
// penalized, GlobalRankRLS (n·C + λI)w = n·c with C, c about the training
// set's mean, QueryRankRLS (H + λI)w = B with H, B summed query by query
// about each query's mean, weighted n_q (1 normalized) — no shortcut and no
// shared factorization. Over a fixed basis B of the (standardized) rows
// and the Gaussian kernel of gamma, the features are k(x, B) and the
// penalty λαᵀK_BBα (λI above becomes λK_BB): the subset-of-regressors
// model, (K_BXK_XB + λK_BB)α = K_BXy for RLS.
type orcOracle struct {
	z, y      [][]float64
	q         []string
	loss      learn.Loss
	bias      float64
	normalize bool
	reg       *mat.Dense // K_BB over a basis; nil: I
}

func newOrcOracle(od orcData, loss learn.Loss, bias float64, std, normalize bool, basis []int, gamma float64) orcOracle {
	o := orcOracle{loss: loss, bias: bias, normalize: normalize}
	x := orcChunk(od.rows, od.sparse, od.d).X
	z := x
	if std {
		var err error
		if z, err = model.FitScaler(x).Transform(x); err != nil {
			panic(err)
		}
	}
	for i, r := range od.rows {
		o.z = append(o.z, mat.Row(nil, i, z))
		o.y = append(o.y, r.Y)
		o.q = append(o.q, r.Group)
	}
	if basis != nil {
		k := func(a, b []float64) float64 {
			d := 0.0
			for j := range a {
				d += (a[j] - b[j]) * (a[j] - b[j])
			}
			return math.Exp(-gamma * d)
		}
		o.reg = mat.NewDense(len(basis), len(basis), nil)
		for r, i := range basis {
			for c, j := range basis {
				o.reg.Set(r, c, k(o.z[i], o.z[j]))
			}
		}
		feats := make([][]float64, len(o.z))
		for i, z := range o.z {
			for _, j := range basis {
				feats[i] = append(feats[i], k(z, o.z[j]))
			}
		}
		o.z = feats
	}
	return o
}

// solve returns the weights (d×t) and the intercept of the training rows tr at λ.
func (o orcOracle) solve(tr []int, lambda float64) (*mat.Dense, []float64) {
	d, t := len(o.z[0]), len(o.y[0])
	a, rhs := mat.NewDense(d+1, d+1, nil), mat.NewDense(d+1, t, nil)
	add := func(z, y []float64, w float64) {
		for j := range z {
			for k := range z {
				a.Set(j, k, a.At(j, k)+w*z[j]*z[k])
			}
			for c := range y {
				rhs.Set(j, c, rhs.At(j, c)+w*z[j]*y[c])
			}
		}
	}
	// centred adds the rows about their own mean, each with weight w
	centred := func(rows []int, w float64) {
		mu, ybar := make([]float64, d), make([]float64, t)
		for _, i := range rows {
			for j := range mu {
				mu[j] += o.z[i][j] / float64(len(rows))
			}
			for c := range ybar {
				ybar[c] += o.y[i][c] / float64(len(rows))
			}
		}
		for _, i := range rows {
			z, y := make([]float64, d+1), make([]float64, t)
			for j := range mu {
				z[j] = o.z[i][j] - mu[j]
			}
			for c := range y {
				y[c] = o.y[i][c] - ybar[c]
			}
			add(z, y, w)
		}
	}
	switch o.loss {
	case learn.Squared:
		for _, i := range tr {
			add(append(append([]float64(nil), o.z[i]...), math.Sqrt(o.bias)), o.y[i], 1)
		}
	case learn.AllPairs:
		centred(tr, float64(len(tr)))
	case learn.QueryPairs:
		byQ := map[string][]int{}
		for _, i := range tr {
			byQ[o.q[i]] = append(byQ[o.q[i]], i)
		}
		for _, rows := range byQ {
			w := float64(len(rows))
			if o.normalize {
				w = 1
			}
			centred(rows, w)
		}
	}
	for j := 0; j <= d; j++ {
		if o.reg == nil || j == d {
			a.Set(j, j, a.At(j, j)+lambda)
			continue
		}
		for k := 0; k < d; k++ {
			a.Set(j, k, a.At(j, k)+lambda*o.reg.At(j, k))
		}
	}
	var sol mat.Dense
	if err := sol.Solve(a, rhs); err != nil {
		panic(err)
	}
	b := make([]float64, t)
	for c := range b {
		b[c] = sol.At(d, c) * math.Sqrt(o.bias)
	}
	if o.loss != learn.Squared {
		b = make([]float64, t)
	}
	return mat.DenseCopyOf(sol.Slice(0, d, 0, t)), b
}

// predict is row i's prediction by the model (w, b).
func (o orcOracle) predict(w *mat.Dense, b []float64, i int) []float64 {
	out := append([]float64(nil), b...)
	for c := range out {
		for j, v := range o.z[i] {
			out[c] += v * w.At(j, c)
		}
	}
	return out
}

// holdOuts are the hold-out sets of the scheme: each row (loo), each fold
// of the stream's hash (whole queries for the query loss), each group.
func (o orcOracle) holdOuts(cv string, k int, seed uint64, rows []Row) [][]int {
	var out [][]int
	switch cv {
	case "loo":
		for i := range rows {
			out = append(out, []int{i})
		}
	case "kfold":
		out = make([][]int, k)
		for i, r := range rows {
			f := Fold(r, seed, k)
			if o.loss == learn.QueryPairs {
				f = GroupFold(r.Group, seed, k)
			}
			out[f] = append(out[f], i)
		}
	case "lgo":
		idx := map[string]int{}
		for i, r := range rows {
			if _, ok := idx[r.Group]; !ok {
				idx[r.Group] = len(out)
				out = append(out, nil)
			}
			out[idx[r.Group]] = append(out[idx[r.Group]], i)
		}
	}
	return out
}

// TestHoldOutsEqualRetraining holds every streaming learner and
// cross-validation scheme — the leave-one-out shortcuts (RLS's leverage,
// GlobalRankRLS's and QueryRankRLS's rank-one downdates), k-fold and
// leave-group-out by subtracting a fold's moments, leave-group-out one
// whole group at a time, the squared error formed from the moments without
// a prediction pass — to direct retraining (orcOracle): every hold-out
// prediction to 1e-9 of the predictions' magnitude, the curve to 1e-9
// relative, the best λ, the final model's predictions and the shape of
// the data in the Result (rows, width, features, outputs, groups, groups
// of one row, the edge of the grid, the passes).
func TestHoldOutsEqualRetraining(t *testing.T) {
	type tc struct {
		name      string
		learner   learn.Name
		cv        string
		meas      string
		bias      float64
		std       bool
		sparse    bool
		normalize bool
		m, t, g   int
		chunk     int
		lambdas   []float64
		basisN    int   // a random basis of basisN rows,
		basisRows []int // or these rows (the Gaussian kernel of γ = 0.3)
	}
	grid := []float64{1e-2, 1, 30}
	cases := []tc{
		{"rls/loo", learn.RLS, "loo", "mse", 1, false, false, false, 40, 1, 6, 7, grid, 0, nil},
		{"rls/loo/bias0/t2", learn.RLS, "loo", "mse", 0, true, false, false, 40, 2, 6, 40, grid, 0, nil},
		{"rls/loo/bias2.5/cindex/sparse", learn.RLS, "loo", "cindex", 2.5, false, true, false, 40, 1, 6, 5, grid, 0, nil},
		{"rls/kfold3/mse", learn.RLS, "kfold:3", "mse", 1, false, false, false, 45, 2, 6, 9, grid, 0, nil},
		{"rls/kfold4/cindex/std", learn.RLS, "kfold:4", "cindex", 1, true, false, false, 45, 1, 6, 11, grid, 0, nil},
		{"rls/lgo/few", learn.RLS, "lgo", "mse", 1, false, true, false, 40, 1, 5, 6, grid, 0, nil},
		{"rls/lgo/many", learn.RLS, "lgo", "mse", 0.5, true, false, false, 200, 1, 100, 33, grid, 0, nil},
		{"rls/lgo/many/cindex", learn.RLS, "lgo", "cindex", 1, false, false, false, 200, 1, 90, 50, grid, 0, nil},
		{"rls/none", learn.RLS, "none", "mse", 1, true, false, false, 30, 2, 4, 8, []float64{0.5}, 0, nil},
		{"global/loo", learn.GlobalRank, "loo", "mse", 0, false, false, false, 40, 1, 6, 6, grid, 0, nil},
		{"global/loo/cindex/std", learn.GlobalRank, "loo", "cindex", 0, true, true, false, 40, 1, 6, 13, grid, 0, nil},
		{"global/kfold3", learn.GlobalRank, "kfold:3", "mse", 0, false, false, false, 45, 1, 6, 8, grid, 0, nil},
		{"global/lgo/few", learn.GlobalRank, "lgo", "cindex", 0, false, false, false, 40, 1, 5, 9, grid, 0, nil},
		{"global/lgo/many", learn.GlobalRank, "lgo", "mse", 0, false, false, false, 200, 1, 100, 40, grid, 0, nil},
		{"global/none", learn.GlobalRank, "none", "mse", 0, false, false, false, 30, 1, 4, 8, []float64{2}, 0, nil},
		{"query/loo", learn.QueryRank, "loo", "mse", 0, false, false, false, 40, 1, 6, 7, grid, 0, nil},
		{"query/loo/normalized", learn.QueryRank, "loo", "disagreement", 0, true, false, true, 40, 1, 6, 7, grid, 0, nil},
		{"query/kfold3", learn.QueryRank, "kfold:3", "mse", 0, false, false, false, 60, 2, 9, 10, grid, 0, nil},
		{"query/lqo", learn.QueryRank, "lqo", "disagreement", 0, false, true, false, 48, 1, 8, 10, grid, 0, nil},
		{"query/lqo/normalized", learn.QueryRank, "lqo", "mse", 0, false, false, true, 48, 1, 8, 10, grid, 0, nil},
		{"query/none", learn.QueryRank, "none", "mse", 0, false, false, false, 30, 1, 4, 8, []float64{1}, 0, nil},
		{"rls/kfold3/basis", learn.RLS, "kfold:3", "mse", 0, true, true, false, 45, 1, 6, 7, grid, 6, nil},
		{"rls/loo/basis rows", learn.RLS, "loo", "mse", 0, false, true, false, 40, 1, 6, 5, grid, 0, []int{3, 0, 11, 7}},
		{"rls/lgo/basis/cindex", learn.RLS, "lgo", "cindex", 0, false, false, false, 40, 1, 5, 9, grid, 5, nil},
		{"global/loo/basis", learn.GlobalRank, "loo", "mse", 0, true, false, false, 40, 1, 6, 6, grid, 5, nil},
		{"query/lqo/basis", learn.QueryRank, "lqo", "mse", 0, false, true, false, 48, 1, 8, 10, grid, 0, []int{1, 5, 9, 30, 2}},
	}
	for n, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			od := orcDraw(uint64(100+n), c.m, 3, c.t, c.g, c.sparse)
			meas, err := measure.ByName(c.meas)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: 5,
				Lambdas: c.lambdas, Measure: meas, Standardize: c.std, QueryNormalize: c.normalize, BasisN: c.basisN, BasisRows: c.basisRows}
			features := 3
			if c.basisN > 0 || c.basisRows != nil {
				opt.Kernel = kernel.Spec{Name: "gaussian", Gamma: 0.3}
				features = max(c.basisN, len(c.basisRows))
			}
			res, preds := orcRun(t, opt, od, c.chunk)
			if c.basisRows != nil && !slices.Equal(res.Basis, c.basisRows) || c.basisN > 0 && len(res.Basis) != c.basisN {
				t.Fatalf("basis %v, want %d rows %v", res.Basis, features, c.basisRows)
			}
			loss, _ := LossOf(c.learner)
			o := newOrcOracle(od, loss, c.bias, c.std, c.normalize, res.Basis, 0.3)
			all := make([]int, c.m)
			for i := range all {
				all[i] = i
			}

			// the shape of the data
			sizes := map[string]int{}
			for _, r := range od.rows {
				sizes[r.Group]++
			}
			groups, single := 0, 0
			if c.cv == "lgo" || c.cv == "lqo" || c.learner == learn.QueryRank || meas.NeedsQueries {
				groups = len(sizes)
				for _, s := range sizes {
					if s == 1 {
						single++
					}
				}
			}
			if res.Rows != c.m || res.Width != 3 || res.Features != features || res.Outputs != c.t || res.Groups != groups || res.SingleRowGroups != single {
				t.Errorf("rows %d width %d features %d outputs %d groups %d single %d, want %d 3 %d %d %d %d",
					res.Rows, res.Width, res.Features, res.Outputs, res.Groups, res.SingleRowGroups, c.m, features, c.t, groups, single)
			}
			wantPasses := []PassKind{StatsPass}
			if c.std {
				wantPasses = []PassKind{ScalePass, StatsPass}
			}
			if c.learner == learn.QueryRank {
				wantPasses = append(wantPasses, QueryPass)
			}
			if c.cv != "none" && !(c.meas == "mse" && c.learner != learn.QueryRank && (c.cv == "kfold:3" || c.cv == "kfold:4" || c.cv == "lgo" && c.g < 64)) {
				wantPasses = append(wantPasses, PredictPass)
			}
			if len(res.Passes) != len(wantPasses) {
				t.Fatalf("passes %v, want %v", res.Passes, wantPasses)
			}
			for k, ps := range res.Passes {
				if ps.Kind != wantPasses[k] {
					t.Errorf("pass %d: %v, want %v", k, ps.Kind, wantPasses[k])
				}
				grouped := ps.Kind == QueryPass || ps.Kind == PredictPass && (c.cv == "lgo" && c.g >= 64 || c.cv == "lqo" || c.cv == "loo" && c.learner == learn.QueryRank)
				if ps.Grouped != grouped || ps.Predictions != (ps.Kind == PredictPass && c.meas != "mse") {
					t.Errorf("pass %d: %+v, want grouped %v", k, ps, grouped)
				}
			}

			// the hold-out predictions, the curve, the best λ
			kind, k := c.cv, 0
			if len(c.cv) > 6 && c.cv[:6] == "kfold:" {
				kind, k = "kfold", int(c.cv[6]-'0')
			}
			if kind == "lqo" {
				kind = "lgo"
			}
			var want []*mat.Dense // per λ, m×t
			for range c.lambdas {
				want = append(want, mat.NewDense(c.m, c.t, nil))
			}
			for _, h := range o.holdOuts(kind, k, 5, od.rows) {
				if len(h) == 0 {
					continue
				}
				in := map[int]bool{}
				for _, i := range h {
					in[i] = true
				}
				var tr []int
				for _, i := range all {
					if !in[i] {
						tr = append(tr, i)
					}
				}
				for l, lambda := range c.lambdas {
					w, b := o.solve(tr, lambda)
					for _, i := range h {
						want[l].SetRow(i, o.predict(w, b, i))
					}
				}
			}
			if c.cv == "none" {
				if len(res.Curve) != 1 || !math.IsNaN(res.Curve[0].Value) || res.OnEdge != nil || res.BestIndex != 0 {
					t.Errorf("without cross-validation: curve %v, on edge %v, best %d", res.Curve, res.OnEdge, res.BestIndex)
				}
			} else {
				scale := 0.0
				for _, p := range want {
					scale = math.Max(scale, mat.Norm(p, math.Inf(1)))
				}
				if len(preds) > 0 {
					byY := map[float64]int{}
					for i, r := range od.rows {
						byY[r.Y[0]] = i
					}
					seen := make([]int, c.m)
					for _, p := range preds {
						i, ok := byY[p.Y[0]]
						if !ok {
							t.Fatalf("a prediction of labels %v no row has", p.Y)
						}
						seen[i]++
						if p.Group != od.rows[i].Group || len(p.P) != len(c.lambdas)*c.t {
							t.Fatalf("row %d: prediction %+v", i, p)
						}
						for l := range c.lambdas {
							for cc := 0; cc < c.t; cc++ {
								if got, w := p.P[l*c.t+cc], want[l].At(i, cc); !(math.Abs(got-w) <= 1e-9*scale) {
									t.Errorf("row %d, λ = %g, output %d: %.15g, retrained %.15g", i, c.lambdas[l], cc, got, w)
								}
							}
						}
					}
					for i, s := range seen {
						if s != 1 {
							t.Errorf("row %d predicted %d times", i, s)
						}
					}
				}
				y := mat.NewDense(c.m, c.t, nil)
				q := make([]int, c.m)
				codes := map[string]int{}
				for i, r := range od.rows {
					y.SetRow(i, r.Y)
					if _, ok := codes[r.Group]; !ok {
						codes[r.Group] = len(codes)
					}
					q[i] = codes[r.Group]
				}
				best := -1
				var bestV float64
				for l, lambda := range c.lambdas {
					v, err := meas.Score(y, want[l], q)
					if err != nil {
						t.Fatal(err)
					}
					got := res.Curve[l]
					if got.Lambda != lambda || !(math.Abs(got.Value-v) <= 1e-9*math.Abs(v)) || got.Indistinguishable {
						t.Errorf("λ = %g: %s %.15g (indistinguishable %v), retrained %.15g", lambda, c.meas, got.Value, got.Indistinguishable, v)
					}
					if best < 0 || meas.Better(v, bestV) || v == bestV && lambda > c.lambdas[best] { // ties: the larger λ
						best, bestV = l, v
					}
				}
				if res.BestIndex != best || res.Best != res.Curve[best] {
					t.Errorf("best %d (%v), retrained %d", res.BestIndex, res.Best, best)
				}
				onEdge := best == 0 || best == len(c.lambdas)-1
				if (res.OnEdge != nil) != onEdge {
					t.Errorf("on edge %v with the best λ at %d of %d", res.OnEdge, best, len(c.lambdas))
				}
			}

			// the final model
			w, b := o.solve(all, res.Best.Lambda)
			got, err := res.Predictor.Predict(orcChunk(od.rows, od.sparse, 3).X)
			if err != nil {
				t.Fatal(err)
			}
			scale := 0.0
			ref := mat.NewDense(c.m, c.t, nil)
			for i := range all {
				ref.SetRow(i, o.predict(w, b, i))
				scale = math.Max(scale, mat.Norm(ref.RowView(i), math.Inf(1)))
			}
			for i := range all {
				for cc := 0; cc < c.t; cc++ {
					if !(math.Abs(got.At(i, cc)-ref.At(i, cc)) <= 1e-9*scale) {
						t.Fatalf("final model, row %d output %d: %.15g, solved directly %.15g", i, cc, got.At(i, cc), ref.At(i, cc))
					}
				}
			}
		})
	}
}
