package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	ioracle "github.com/rlskit/rlskit/internal/oracle"
)

// TestIntervalChoose1SECLI: fit --choose 1se --interval cv+ (gaussian,
// --folds FILE, a λ grid on which the rule moves λ off the best) records
// the CV+ interval of the model at the λ the rule chose: predict
// --coverage's prediction, lower and upper equal, to 1e-8 of max|y|, CV+
// computed here by refitting every fold model from scratch at that λ
// (internal/oracle) and sorting — and differ from those at the best λ, so
// an interval of the best λ's fold models would fail. The jackknife+ of
// the linear kernel (--cv loo, mse) likewise.
func TestIntervalChoose1SECLI(t *testing.T) {
	dir := t.TempDir()
	const m, mt = 40, 7
	rng := rand.New(rand.NewPCG(22, 15))
	train, x, y := intervalCSV(t, dir, "train.csv", m, rng)
	test, xt, _ := intervalCSV(t, dir, "test.csv", mt, rng)
	xAll := mat.NewDense(m+mt, 3, nil)
	xAll.Stack(x, xt)
	yAll := mat.NewDense(m+mt, 2, nil)
	yAll.Stack(y, mat.NewDense(mt, 2, nil))
	testRows := make([]int, mt)
	for i := range testRows {
		testRows[i] = m + i
	}
	perm := rng.Perm(m)
	folds := [][]int{perm[:8], perm[8:16], perm[16:24], perm[24:32], perm[32:]}
	var fb strings.Builder
	for _, f := range folds {
		for k, i := range f {
			if k > 0 {
				fb.WriteString(" ")
			}
			fmt.Fprint(&fb, i)
		}
		fb.WriteString("\n")
	}
	foldsFile := filepath.Join(dir, "folds.txt")
	if err := os.WriteFile(foldsFile, []byte(fb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	loo := make([][]int, m)
	for i := range loo {
		loo[i] = []int{i}
	}
	scale := mat.Norm(y, math.Inf(1))
	for _, c := range []struct {
		name  string
		args  []string
		prob  ioracle.Problem
		folds [][]int
	}{
		{"cv+ gaussian", []string{"--kernel", "gaussian", "--gamma", "0.4", "--folds", foldsFile, "--interval", "cv+"},
			ioracle.Problem{X: xAll, Y: yAll, K: ioracle.Kernel{Name: "gaussian", Gamma: 0.4}}, folds},
		{"jackknife+ linear", []string{"--kernel", "linear", "--cv", "loo", "--interval", "jackknife+"},
			ioracle.Problem{X: xAll, Y: yAll, K: ioracle.Kernel{Name: "linear", Bias: 1}, Primal: true}, loo},
	} {
		mp := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		args := append([]string{"fit", "--data", train, "--label", "y1,y2", "--lambda-grid", "2^-6..2^8", "--choose", "1se", "--model", mp, "--quiet"}, c.args...)
		stdout, stderr, err := run(t, "", args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stderr)
		}
		fit := decodeFit(t, stdout)
		if fit.CV.Choose != "1se" || !(fit.Lambda > fit.CV.Best.Lambda) {
			t.Fatalf("%s: the rule chose λ = %g, the best is %g: the case tests nothing", c.name, fit.Lambda, fit.CV.Best.Lambda)
		}
		// CV+ by refitting every fold model at λ, sorted: output o of test row j at j·2 + o
		brute := func(lambda float64, cov float64) (pred, lo, hi []float64) {
			fold := make([]int, m)
			res := mat.NewDense(m, 2, nil)
			mu := make([]*mat.Dense, len(c.folds)) // the test rows' predictions per fold model
			for k, s := range c.folds {
				var keep []int
				for i := 0; i < m; i++ {
					if !slices.Contains(s, i) {
						keep = append(keep, i)
					}
				}
				out := ioracle.Ridge(c.prob, keep, append(slices.Clone(s), testRows...), lambda)
				for a, i := range s {
					fold[i] = k
					for o := 0; o < 2; o++ {
						res.Set(i, o, math.Abs(y.At(i, o)-out.At(a, o)))
					}
				}
				mu[k] = mat.DenseCopyOf(out.Slice(len(s), len(s)+mt, 0, 2))
			}
			full := ioracle.Ridge(c.prob, ioracle.AllRows(m), testRows, lambda)
			kHi := int(math.Ceil(cov*float64(m+1) - 1e-9))
			kLo := m + 1 - kHi
			for j := 0; j < mt; j++ {
				for o := 0; o < 2; o++ {
					l, h := make([]float64, m), make([]float64, m)
					for i := 0; i < m; i++ {
						l[i], h[i] = mu[fold[i]].At(j, o)-res.At(i, o), mu[fold[i]].At(j, o)+res.At(i, o)
					}
					sort.Float64s(l)
					sort.Float64s(h)
					pred, lo, hi = append(pred, full.At(j, o)), append(lo, l[kLo-1]), append(hi, h[kHi-1])
				}
			}
			return pred, lo, hi
		}
		const cov = 0.8
		out, stderr, err := run(t, "", "predict", "--model", mp, "--data", test, "--coverage", "0.8")
		if err != nil {
			t.Fatalf("%s: predict: %v\n%s", c.name, err, stderr)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != mt {
			t.Fatalf("%s: %d lines, want %d", c.name, len(lines), mt)
		}
		wp, wl, wh := brute(fit.Lambda, cov)
		_, bl, bh := brute(fit.CV.Best.Lambda, cov)
		apart := 0.0 // how far the best λ's interval is from the chosen's
		for j, line := range lines {
			f := strings.Split(line, "\t")
			if len(f) != 6 {
				t.Fatalf("%s: line %q, want prediction, lower, upper per output", c.name, line)
			}
			for o := 0; o < 2; o++ {
				n := 2*j + o
				for q, w := range []float64{wp[n], wl[n], wh[n]} {
					got, err := strconv.ParseFloat(f[3*o+q], 64)
					if err != nil {
						t.Fatal(err)
					}
					if !(math.Abs(got-w) <= 1e-8*scale) {
						t.Errorf("%s: row %d output %d column %d: %v, CV+ refitted at the chosen λ %v", c.name, j, o, q, got, w)
					}
				}
				apart = max(apart, math.Abs(wl[n]-bl[n]), math.Abs(wh[n]-bh[n]))
			}
		}
		if !(apart > 1e-4*scale) {
			t.Errorf("%s: the intervals at the chosen and the best λ differ by %g only: the case cannot tell them apart", c.name, apart)
		}
	}
}
