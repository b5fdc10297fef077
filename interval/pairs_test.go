package interval

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/rls"
)

// pairData is a small complete dyadic problem: training objects, new
// objects, labels.
type pairData struct {
	xr, xc, nr, nc *mat.Dense
	y              *mat.Dense // m×q
	kern           kernel.Kernel
}

func normals(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return x
}

func drawPairs(rng *rand.Rand, m, q int) pairData {
	d := pairData{xr: normals(rng, m, 3), xc: normals(rng, q, 2), nr: normals(rng, 5, 3), nc: normals(rng, 4, 2),
		kern: kernel.Gaussian{Gamma: 0.4}}
	d.y = mat.NewDense(m, q, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < q; j++ {
			d.y.Set(i, j, math.Sin(d.xr.At(i, 0)+2*d.xc.At(j, 1))+0.3*rng.NormFloat64())
		}
	}
	return d
}

// gram is k(a_i, b_j), computed here entry by entry from the gaussian
// formula.
func gram(a, b *mat.Dense, gamma float64) *mat.Dense {
	n, _ := a.Dims()
	p, d := b.Dims()
	out := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			s := 0.0
			for c := 0; c < d; c++ {
				v := a.At(i, c) - b.At(j, c)
				s += v * v
			}
			out.Set(i, j, math.Exp(-gamma*s))
		}
	}
	return out
}

// refit trains the learner from scratch on the rows keepR × columns keepC —
// Kronecker RLS by a dense solve of (G_CC ⊗ K_RR + λI) α = y on those pairs,
// two-step RLS by its two ridge solves — and returns a function predicting
// f(u, v) from the kernel values k(u, ·) over keepR and g(v, ·) over keepC.
func refit(d pairData, learner string, keepR, keepC []int, lr, lc float64) func(ku, gv []float64) float64 {
	k, g := gram(d.xr, d.xr, 0.4), gram(d.xc, d.xc, 0.4)
	nr, nc := len(keepR), len(keepC)
	a := mat.NewDense(nr, nc, nil) // coefficients over keepR × keepC
	switch learner {
	case "kronrls":
		n := nr * nc
		sys := mat.NewDense(n, n, nil)
		rhs := mat.NewDense(n, 1, nil)
		for s := 0; s < n; s++ {
			i, j := keepR[s/nc], keepC[s%nc]
			rhs.Set(s, 0, d.y.At(i, j))
			for t := 0; t < n; t++ {
				v := k.At(i, keepR[t/nc]) * g.At(j, keepC[t%nc])
				if s == t {
					v += lr
				}
				sys.Set(s, t, v)
			}
		}
		var x mat.Dense
		if err := x.Solve(sys, rhs); err != nil {
			panic(err)
		}
		for s := 0; s < n; s++ {
			a.Set(s/nc, s%nc, x.At(s, 0))
		}
	case "twostep":
		kk, gg, yy := mat.NewDense(nr, nr, nil), mat.NewDense(nc, nc, nil), mat.NewDense(nr, nc, nil)
		for s, i := range keepR {
			for t, i2 := range keepR {
				kk.Set(s, t, k.At(i, i2))
			}
			kk.Set(s, s, kk.At(s, s)+lr)
			for t, j := range keepC {
				yy.Set(s, t, d.y.At(i, j))
			}
		}
		for s, j := range keepC {
			for t, j2 := range keepC {
				gg.Set(s, t, g.At(j, j2))
			}
			gg.Set(s, s, gg.At(s, s)+lc)
		}
		var w, at mat.Dense
		if err := w.Solve(kk, yy); err != nil {
			panic(err)
		}
		if err := at.Solve(gg, w.T()); err != nil {
			panic(err)
		}
		a.Copy(at.T())
	}
	return func(ku, gv []float64) float64 {
		s := 0.0
		for r := range keepR {
			for c := range keepC {
				s += ku[r] * a.At(r, c) * gv[c]
			}
		}
		return s
	}
}

func pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for a, i := range idx {
		out[a] = v[i]
	}
	return out
}

func complement(f []int, n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		if !slices.Contains(f, i) {
			out = append(out, i)
		}
	}
	return out
}

// bruteCVPlus computes the CV+ interval of each asked pair by refitting every
// fold model: lower the ⌊α(n+1)⌋-th smallest of μ_{−k}(u, v) − R, upper the
// ⌈(1−α)(n+1)⌉-th smallest of μ + R, over column c's m residuals (rows),
// row r's q residuals (cols) or all m·q (both), ranks recomputed here,
// values sorted. Setting rows asks new rows d.nr against training columns,
// cols training rows against new columns d.nc, both new against new.
func bruteCVPlus(d pairData, learner string, setting string, rf, cf [][]int, lr, lc float64, rows, cols []int, coverage float64) (lo, hi []float64) {
	m, q := d.y.Dims()
	if setting == model.PairSettingRows {
		cf = [][]int{nil}
	}
	if setting == model.PairSettingCols {
		rf = [][]int{nil}
	}
	k, g := gram(d.xr, d.xr, 0.4), gram(d.xc, d.xc, 0.4)
	knew := gram(d.nr, d.xr, 0.4)
	gnew := gram(d.nc, d.xc, 0.4)
	type fm struct {
		keepR, keepC []int
		f            func(ku, gv []float64) float64
	}
	models := make([][]fm, len(rf))
	res := mat.NewDense(m, q, nil)
	for a, f := range rf {
		for b, h := range cf {
			keepR, keepC := complement(f, m), complement(h, q)
			mf := refit(d, learner, keepR, keepC, lr, lc)
			models[a] = append(models[a], fm{keepR, keepC, mf})
			for i := 0; i < m; i++ {
				for j := 0; j < q; j++ {
					if f != nil && !slices.Contains(f, i) || h != nil && !slices.Contains(h, j) {
						continue
					}
					res.Set(i, j, math.Abs(d.y.At(i, j)-mf(pick(k.RawRowView(i), keepR), pick(g.RawRowView(j), keepC))))
				}
			}
			_ = b
		}
	}
	rowFold := make([]int, m)
	for a, f := range rf {
		for _, i := range f {
			rowFold[i] = a
		}
	}
	colFold := make([]int, q)
	for b, h := range cf {
		for _, j := range h {
			colFold[j] = b
		}
	}
	n := m
	switch setting {
	case model.PairSettingCols:
		n = q
	case model.PairSettingBoth:
		n = m * q
	}
	alpha := 1 - coverage
	rLo := int(math.Floor(alpha*float64(n+1) + 1e-9))
	rHi := int(math.Ceil(coverage*float64(n+1) - 1e-9))
	for p := range rows {
		var ku, gv []float64
		if setting == model.PairSettingCols { // a training row
			ku = k.RawRowView(rows[p])
		} else {
			ku = knew.RawRowView(rows[p])
		}
		if setting == model.PairSettingRows { // a training column
			gv = g.RawRowView(cols[p])
		} else {
			gv = gnew.RawRowView(cols[p])
		}
		var los, his []float64
		for i := 0; i < m; i++ {
			for j := 0; j < q; j++ {
				if setting == model.PairSettingRows && j != cols[p] || setting == model.PairSettingCols && i != rows[p] {
					continue
				}
				mo := models[rowFold[i]][colFold[j]]
				mu := mo.f(pick(ku, mo.keepR), pick(gv, mo.keepC))
				los, his = append(los, mu-res.At(i, j)), append(his, mu+res.At(i, j))
			}
		}
		slices.Sort(los)
		slices.Sort(his)
		lo, hi = append(lo, los[rLo-1]), append(hi, his[rHi-1])
	}
	return lo, hi
}

// TestPairIntervalOracle: the CV+ intervals of Kronecker and two-step RLS
// for new rows (setting rows, B), new columns (setting cols, C) and new
// rows with new columns (setting both, D) equal CV+ computed by refitting
// every fold model from scratch
// (dense solves of the Kronecker system or the two ridge steps on the kept
// grid, 12×9 objects, complete data) to 1e-8 relative, at coverage 0.9 and
// 0.75, also after a save and load of the model file.
func TestPairIntervalOracle(t *testing.T) {
	for _, learner := range []string{"kronrls", "twostep"} {
		for _, setting := range []string{model.PairSettingRows, model.PairSettingCols, model.PairSettingBoth} {
			t.Run(fmt.Sprintf("%s/%s", learner, setting), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(22, 1))
				d := drawPairs(rng, 12, 9)
				rows, err := pairwise.NewSide(d.xr, d.kern, false)
				if err != nil {
					t.Fatal(err)
				}
				cols, err := pairwise.NewSide(d.xc, d.kern, false)
				if err != nil {
					t.Fatal(err)
				}
				var pairs []pairwise.Pair
				var y []float64
				for i := 0; i < 12; i++ {
					for j := 0; j < 9; j++ {
						pairs = append(pairs, pairwise.Pair{Row: i, Col: j})
						y = append(y, d.y.At(i, j))
					}
				}
				lr, lc := 0.3, 0.3
				var sol learn.Solution
				var pm *model.PairPredictor
				if learner == "kronrls" {
					k, err := pairwise.FitKron(rows, cols, pairs, y, pairwise.Options{})
					if err != nil {
						t.Fatal(err)
					}
					s, err := k.Solve(lr)
					if err != nil {
						t.Fatal(err)
					}
					sol, pm = s, s.PairModel()
				} else {
					lc = 2
					k, err := pairwise.FitTwoStep(rows, cols, pairs, y, pairwise.Options{})
					if err != nil {
						t.Fatal(err)
					}
					s, err := k.Solve(lr, lc)
					if err != nil {
						t.Fatal(err)
					}
					sol, pm = s, s.PairModel()
				}
				rf := [][]int{{0, 5, 7}, {1, 2, 11}, {3, 4, 10}, {6, 8, 9}}
				cf := [][]int{{0, 4, 8}, {1, 3}, {2, 5, 6, 7}}
				var rowX, colX mat.Matrix = d.nr, d.nc
				nq, nc := 5, 4 // the rows and columns asked
				switch setting {
				case model.PairSettingRows:
					cf, colX, nc = nil, nil, 9
				case model.PairSettingCols:
					rf, rowX, nq = nil, nil, 12
				}
				var qr, qc []int
				for r := 0; r < nq; r++ {
					for c := 0; c < nc; c++ {
						qr, qc = append(qr, r), append(qc, c)
					}
				}
				iv, err := NewPairs(sol, setting, rf, cf)
				if err != nil {
					t.Fatal(err)
				}
				pm.Interval = iv
				var buf bytes.Buffer
				if err := pm.Save(&buf); err != nil {
					t.Fatal(err)
				}
				loaded, err := model.LoadPairwise(&buf)
				if err != nil {
					t.Fatal(err)
				}
				for _, cov := range []float64{0.9, 0.75} {
					wlo, whi := bruteCVPlus(d, learner, setting, rf, cf, lr, lc, qr, qc, cov)
					for _, p := range []*model.PairPredictor{pm, loaded} {
						pred, lo, hi, err := p.PredictInterval(rowX, colX, qr, qc, cov)
						if err != nil {
							t.Fatal(err)
						}
						want, err := p.Predict(rowX, colX, qr, qc)
						if err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(pred, want) {
							t.Fatal("PredictInterval's predictions differ from Predict's")
						}
						if e := relDiff(lo, wlo); e > 1e-8 {
							t.Fatalf("coverage %g: lower ends: relative error %g\n got %v\nwant %v", cov, e, lo, wlo)
						}
						if e := relDiff(hi, whi); e > 1e-8 {
							t.Fatalf("coverage %g: upper ends: relative error %g", cov, e)
						}
					}
				}
			})
		}
	}
}

func relDiff(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
		den += b[i] * b[i]
	}
	return math.Sqrt(num / den)
}

// TestNewPairsRefusals: a solution without pairwise hold-out models (rls),
// an unknown setting, one fold (of rows, of columns), column folds for rows,
// row folds for cols, and a leave-one-out
// design of both whose models would exceed MaxNumbers (100 × 100 objects:
// 10⁴ models of 10⁴ coefficients) are refused, naming the reason.
func TestNewPairsRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	d := drawPairs(rng, 100, 100)
	rows, _ := pairwise.NewSide(d.xr, d.kern, false)
	cols, _ := pairwise.NewSide(d.xc, d.kern, false)
	var pairs []pairwise.Pair
	var y []float64
	for i := 0; i < 100; i++ {
		for j := 0; j < 100; j++ {
			pairs = append(pairs, pairwise.Pair{Row: i, Col: j})
			y = append(y, d.y.At(i, j))
		}
	}
	k, err := pairwise.FitTwoStep(rows, cols, pairs, y, pairwise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sol, _ := k.Solve(1, 1)
	r, err := rls.Fit(d.xr, mat.NewDense(100, 1, y[:100]), rls.Options{Kernel: kernel.Linear{}})
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := r.Solve(1)
	two := [][]int{{0}, {1}}
	for _, c := range []struct {
		sol      learn.Solution
		setting  string
		rf, cf   [][]int
		want     string
		wrapsCap bool
	}{
		{rs, model.PairSettingRows, two, nil, "CV+ intervals for pairs need the models retrained without each fold", true},
		{sol, "pairs", two, nil, `pairwise setting "pairs"`, false},
		{sol, model.PairSettingRows, [][]int{foldRange(100)}, nil, "at least 2 row folds", false},
		{sol, model.PairSettingRows, two, two, "setting rows takes no column folds", false},
		{sol, model.PairSettingCols, two, nil, "setting cols takes no row folds", false},
		{sol, model.PairSettingCols, nil, [][]int{foldRange(100)}, "at least 2 column folds", false},
		{sol, model.PairSettingBoth, nil, nil, "would store 10000 models of 100×100 coefficients", false},
	} {
		_, err := NewPairs(c.sol, c.setting, c.rf, c.cf)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.wrapsCap != errors.Is(err, learn.ErrCapability) {
			t.Errorf("%s: %v, want %q", c.setting, err, c.want)
		}
	}
}

func foldRange(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
