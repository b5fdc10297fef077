package rls

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// ridgeScript reads {x, y, alphas, folds, standardize, brute} as JSON on
// stdin and prints scikit-learn's
//   - loo: RidgeCV(alphas, fit_intercept=True) with stored CV values — the
//     squared leave-one-out errors, m×L (store_cv_results from scikit-learn
//     1.5, store_cv_values before);
//   - kfold: the predictions of Ridge(alpha, fit_intercept=True) refit on
//     the other folds, for every row and alpha, m×L;
//   - brute: the squared LOO errors of Ridge refit without each row, for the
//     alphas listed in brute (indices into alphas), m×|brute|: RidgeCV's
//     shortcut centres X with the means of all rows, and this checks that
//     its values are nevertheless those of refitting the intercept model.
//
// With standardize, X is scaled as rlskit's --standardize does: mean 0 and
// population standard deviation 1, a constant column divided by 1.
const ridgeScript = `
import inspect, json, sys
import numpy as np
from sklearn.linear_model import Ridge, RidgeCV
d = json.load(sys.stdin)
X, y, alphas = np.array(d["x"]), np.array(d["y"]), np.array(d["alphas"])
if d["standardize"]:
    sd = X.std(axis=0)
    sd[sd == 0] = 1
    X = (X - X.mean(axis=0)) / sd
kw = "store_cv_results" if "store_cv_results" in inspect.signature(RidgeCV).parameters else "store_cv_values"
r = RidgeCV(alphas=alphas, fit_intercept=True, **{kw: True}).fit(X, y)
loo = r.cv_results_ if hasattr(r, "cv_results_") else r.cv_values_
m = len(y)
kfold = np.zeros((m, len(alphas)))
for f in d["folds"]:
    test = np.zeros(m, bool)
    test[f] = True
    for l, a in enumerate(alphas):
        kfold[test, l] = Ridge(alpha=a, fit_intercept=True).fit(X[~test], y[~test]).predict(X[test])
brute = np.zeros((m, len(d["brute"])))
for n, l in enumerate(d["brute"]):
    for i in range(m):
        keep = np.arange(m) != i
        p = Ridge(alpha=alphas[l], fit_intercept=True).fit(X[keep], y[keep]).predict(X[i:i + 1])[0]
        brute[i, n] = (p - y[i]) ** 2
print(json.dumps({"loo": np.asarray(loo).reshape(m, -1).tolist(), "kfold": kfold.tolist(), "brute": brute.tolist(), "alpha": float(r.alpha_)}))
`

// sklearnPython returns /usr/bin/python3 when it imports numpy and
// scikit-learn. It skips the test otherwise — except under CI (the CI
// environment variable set), where .ci/run installs python3-sklearn and a
// skip would hide an unchecked convention.
func sklearnPython(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy, sklearn").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s with numpy and scikit-learn is missing under CI (.ci/run installs python3-sklearn): %v", py, err)
		}
		t.Skipf("%s with numpy and scikit-learn is not available: the intercept is not compared with RidgeCV (%v)", py, err)
	}
	return py
}

// readCSV reads a CSV file with a header into the feature matrix (every
// column but label, in order) and the label vector; rows limits the rows read
// (0: all).
func readCSV(t *testing.T, path, label string, rows int) (*mat.Dense, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head, recs := recs[0], recs[1:]
	if rows > 0 {
		recs = recs[:rows]
	}
	li := -1
	for j, h := range head {
		if h == label {
			li = j
		}
	}
	if li < 0 {
		t.Fatalf("%s: no column %q", path, label)
	}
	x := mat.NewDense(len(recs), len(head)-1, nil)
	y := make([]float64, len(recs))
	for i, rec := range recs {
		c := 0
		for j, s := range rec {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s row %d column %d: %v", path, i+2, j+1, err)
			}
			if j == li {
				y[i] = v
			} else {
				x.Set(i, c, v)
				c++
			}
		}
	}
	return x, y
}

// sklearnRidge runs ridgeScript.
func sklearnRidge(t *testing.T, py string, x *mat.Dense, y, alphas []float64, folds [][]int, standardize bool, brute []int) (loo, kfold, bruteLOO *mat.Dense) {
	t.Helper()
	m, _ := x.Dims()
	var rows [][]float64
	for i := 0; i < m; i++ {
		rows = append(rows, x.RawRowView(i))
	}
	in, err := json.Marshal(map[string]any{"x": rows, "y": y, "alphas": alphas, "folds": folds, "standardize": standardize, "brute": brute})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", ridgeScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var res struct{ LOO, KFold, Brute [][]float64 }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("python output: %v", err)
	}
	toDense := func(r [][]float64, cols int) *mat.Dense {
		if cols == 0 {
			return nil
		}
		if len(r) != m {
			t.Fatalf("python gave %d rows, want %d", len(r), m)
		}
		d := mat.NewDense(m, cols, nil)
		for i, row := range r {
			if len(row) != cols {
				t.Fatalf("python gave %d columns, want %d", len(row), cols)
			}
			d.SetRow(i, row)
		}
		return d
	}
	return toDense(res.LOO, len(alphas)), toDense(res.KFold, len(alphas)), toDense(res.Brute, len(brute))
}

// colRel is ‖a_l − b_l‖/‖b_l‖ for column l of two matrices.
func colRel(a, b *mat.Dense, la, lb int) float64 {
	return relErr(mat.DenseCopyOf(a.ColView(la)), mat.DenseCopyOf(b.ColView(lb)))
}

// The linear kernel (bias 0) with an unpenalized intercept is scikit-learn's
// ridge with fit_intercept=True and alpha = λ: on the diabetes data and on a
// wide data set (the first 30 rows of its 64 quadratic predictors, d > m),
// raw and standardized, over the default grid 2^-15 … 2^15, in the linear
// (primal), dual and sparse forms,
//   - the squared LOO errors equal RidgeCV's stored CV values, row by row
//     (‖·‖ relative per λ) and as the curve (their means), to 1e-8 relative;
//   - RidgeCV's values equal refitting Ridge without each row (at three λ),
//     so the two definitions of LOO with an intercept are one;
//   - 5-fold hold-out predictions (HoldOut and the one-pass HoldOutPath)
//     equal Ridge refit on the other folds, to 1e-8 relative;
//   - the λ the curve picks is RidgeCV's alpha_.
//
// The tolerance is 1e-8 — issue 24's acceptance bound — for the form rlskit
// picks (Auto: linear for diabetes, dual for the wide data) and for the
// sparse form, and for the dual form of the tall diabetes data the dual's
// bound max(1e-8, 100·ε·trace(K)/λ) of tolerance(): there K = XXᵀ has rank
// 10 of 442, and its eigenvalues' rounding, ε·‖K‖, is amplified by 1/λ —
// with or without an intercept (measured 1.9e-5 against the primal at
// λ = 2^-15 on the raw data both ways, 6e-10 at λ = 1). The raw wide data
// are not run in the sparse form: its basis is every row, and the
// subset-of-regressors factor inverts K_BB = K, whose condition (features
// up to 4·10⁴, kernel values 10¹⁰) leaves no 1e-8 to test. Measured (the
// test logs them): at most 2e-14 in the linear form, 2e-10 for the wide
// data (dual), 3e-9 in the standardized dual form.
func TestInterceptEqualsRidgeCV(t *testing.T) {
	py := sklearnPython(t)
	var grid []float64 // rlskit's default grid (selection.DefaultGrid, which imports this package)
	for k := -15; k <= 15; k++ {
		grid = append(grid, math.Ldexp(1, k))
	}
	type dataSet struct {
		name     string
		x        *mat.Dense
		y        []float64
		auto     learn.Form   // the form rlskit picks
		other    []learn.Form // forms also checked
		rawOther []learn.Form // forms checked on the raw data (others: standardized only)
	}
	dx, dy := readCSV(t, "../docs/data/diabetes.csv", "progression", 0)
	wx, wy := readCSV(t, "../docs/data/diabetes-quadratic-train.csv", "progression", 30)
	if m, d := wx.Dims(); d <= m {
		t.Fatalf("the wide data set is %d×%d", m, d)
	}
	sets := []dataSet{
		{"diabetes", dx, dy, learn.Linear, []learn.Form{learn.Dual, learn.Sparse}, []learn.Form{learn.Dual, learn.Sparse}},
		{"wide", wx, wy, learn.Dual, []learn.Form{learn.Sparse}, nil},
	}
	brute := []int{0, 15, 30} // λ = 2^-15, 1, 2^15
	for _, ds := range sets {
		m, _ := ds.x.Dims()
		rng := rand.New(rand.NewPCG(24, 1))
		perm := rng.Perm(m)
		var folds [][]int
		for k := 0; k < 5; k++ {
			folds = append(folds, perm[k*m/5:(k+1)*m/5])
		}
		for _, std := range []bool{false, true} {
			name := fmt.Sprintf("%s std=%v", ds.name, std)
			bl := brute // one data set a kind: the definitions agree or not whatever the scaling
			if std {
				bl = []int{}
			}
			skLOO, kfold, bf := sklearnRidge(t, py, ds.x, ds.y, grid, folds, std, bl)
			for n, l := range bl {
				if e := colRel(skLOO, bf, l, n); e > 1e-8 {
					t.Errorf("%s λ=%g: RidgeCV's LOO differs from refitting Ridge by %.2e", name, grid[l], e)
				}
			}
			xs := ds.x
			if std {
				sc := model.FitScaler(ds.x)
				xt, err := sc.Transform(ds.x)
				if err != nil {
					t.Fatal(err)
				}
				xs = xt.(*mat.Dense)
			}
			trace := oracle.Trace(oracle.Kernel{Name: "linear"}, xs)
			forms := append([]learn.Form{ds.auto}, ds.other...)
			if !std {
				forms = append([]learn.Form{ds.auto}, ds.rawOther...)
			}
			for _, form := range forms {
				tol := func(lambda float64) float64 {
					if form != learn.Dual || form == ds.auto {
						return 1e-8
					}
					return math.Max(1e-8, 100*2.2e-16*trace/lambda)
				}
				t.Run(fmt.Sprintf("%s form=%d", name, form), func(t *testing.T) {
					opt := Options{Kernel: kernel.Linear{}, Form: form, Intercept: true, Standardize: std}
					if form == learn.Sparse {
						// a basis whose span holds every row: the function class of the full model
						opt.Basis = perm[:min(m, 40)]
					}
					r, err := Fit(ds.x, mat.NewDense(m, 1, ds.y), opt)
					if err != nil {
						t.Fatal(err)
					}
					worst, worstCurve, worstFold := 0.0, 0.0, 0.0
					best, bestL := math.Inf(1), 0
					path := mat.NewDense(m, len(grid), nil)
					if err := r.HoldOutPath(folds, grid, func(l int, p *mat.Dense) error {
						path.SetCol(l, mat.Col(nil, 0, p))
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					for l, lambda := range grid {
						s, err := r.Solve(lambda)
						if err != nil {
							t.Fatal(err)
						}
						lo := loo(t, s)
						sq := mat.NewDense(m, 1, nil)
						mean := 0.0
						for i := 0; i < m; i++ {
							e := lo.At(i, 0) - ds.y[i]
							sq.Set(i, 0, e*e)
							mean += e * e / float64(m)
						}
						if mean < best {
							best, bestL = mean, l
						}
						e := colRel(sq, skLOO, 0, l)
						skMean := mat.Sum(skLOO.ColView(l)) / float64(m)
						ec := math.Abs(mean-skMean) / skMean
						worst, worstCurve = math.Max(worst, e), math.Max(worstCurve, ec)
						if e > tol(lambda) || ec > tol(lambda) {
							t.Errorf("λ=%g: squared LOO errors differ from RidgeCV's by %.2e (curve %v vs %v: %.2e)", lambda, e, mean, skMean, ec)
						}
						hold := mat.NewDense(m, 1, nil)
						for _, f := range folds {
							h, err := s.HoldOut(f)
							if err != nil {
								t.Fatal(err)
							}
							for a, i := range f {
								hold.Set(i, 0, h.At(a, 0))
							}
						}
						for what, got := range map[string]*mat.Dense{"HoldOut": hold, "HoldOutPath": mat.DenseCopyOf(path.ColView(l))} {
							e := colRel(got, kfold, 0, l)
							worstFold = math.Max(worstFold, e)
							if e > tol(lambda) {
								t.Errorf("λ=%g: 5-fold %s predictions differ from refitting Ridge by %.2e", lambda, what, e)
							}
						}
					}
					skBest := 0
					for l := range grid {
						if mat.Sum(skLOO.ColView(l)) < mat.Sum(skLOO.ColView(skBest)) {
							skBest = l
						}
					}
					if bestL != skBest {
						t.Errorf("the LOO curve picks λ = %g, RidgeCV alpha = %g", grid[bestL], grid[skBest])
					}
					t.Logf("largest relative differences from scikit-learn: LOO rows %.1e, curve %.1e, 5-fold %.1e; best λ = %g (LOO mse %.10g)",
						worst, worstCurve, worstFold, grid[bestL], best)
				})
			}
		}
	}
}
