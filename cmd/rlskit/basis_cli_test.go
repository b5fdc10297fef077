package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/cv"
)

// TestFitSparseDesigns: each basis policy and sparse k-fold design gives the
// CV curve and CV predictions of retraining the sparse (subset-of-regressors)
// model from scratch on each fold — f = Σ_{b∈B} a_b k(·, x_b) minimizing
// ‖y_T − K_TB a‖² + λaᵀK_BB a (bruteRLS; the oracle's tolerances) — with the
// fold's basis as the policy says: kept, without the fold's rows (remove),
// the basis rows not predicted (skip), or drawn afresh among the fold's
// training rows (design 3). The basis is the model's (its points are rows of
// the data); the folds and design 3's per-fold bases are the CLI's draws
// (cv.KFold, cv.BasisFolds, cv.FoldsExcluding, basis.Random with the seed 1
// plus the fold's number), whose numbers are computed here.
func TestFitSparseDesigns(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 60, 8)
	grouped := writeSVM(t, dir, 40, 8, 9)
	tab := readTable(t, data)
	x, y := rowsOf(tab, "a", "b", "c", "cls"), tab["y"]
	s := bruteRLS{x: x, k: gaussianKernel(0.3)}
	or := newOracle(y)
	kfold5, err := cv.KFold(60, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		strategy string
		policy   string
		nBasis   int
		design   int
	}{
		{"kfold remove (default)", []string{"--basis", "11", "--cv", "kfold:5"}, "kfold:5", "remove", 11, 0},
		{"kfold keep", []string{"--basis", "11", "--cv", "kfold:5", "--basis-holdout", "keep"}, "kfold:5", "keep", 11, 0},
		{"loo keep (default)", []string{"--basis", "11"}, "loo", "keep", 11, 0},
		{"loo skip", []string{"--basis", "11", "--basis-holdout", "skip"}, "loo", "skip", 11, 0},
		{"loo remove", []string{"--basis", "11", "--basis-holdout", "remove"}, "loo", "remove", 11, 0},
		{"design 1", []string{"--basis", "11", "--cv", "kfold:5", "--basis-design", "1"}, "kfold:5,basis-design:1", "remove", 11, 1},
		{"design 2", []string{"--basis", "10", "--cv", "kfold:5", "--basis-design", "2"}, "kfold:5,basis-design:2", "remove", 10, 2},
		{"design 3", []string{"--basis", "10", "--cv", "kfold:5", "--basis-design", "3"}, "kfold:5,basis-design:3", "remove", 10, 3},
		{"greedy", []string{"--basis", "8", "--basis-select", "greedy"}, "loo", "keep", 8, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mp, cvp := filepath.Join(dir, "m.json"), filepath.Join(dir, "cv.tsv")
			args := append([]string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma", "0.3",
				"--lambda-grid", "0.01,1", "--quiet", "--model", mp, "--cv-predictions", cvp}, c.args...)
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != c.strategy || o.CV.BasisHoldOut != c.policy || o.NBasis != c.nBasis || o.Form != "sparse" {
				t.Errorf("got strategy %q policy %q basis %d form %s", o.CV.Strategy, o.CV.BasisHoldOut, o.NBasis, o.Form)
			}
			// the basis: the rows of the data the model's points are
			pm := loadModel(t, mp)
			var b []int
			for r := 0; r < c.nBasis; r++ {
				i := slices.IndexFunc(x, func(row []float64) bool {
					for j, v := range row {
						if pm.Points.At(r, j) != v {
							return false
						}
					}
					return true
				})
				if i < 0 {
					t.Fatalf("basis point %d is no row of the data", r)
				}
				b = append(b, i)
			}
			slices.Sort(b)
			if c.name != "greedy" {
				if want, _ := basis.Random(60, c.nBasis, 1); !slices.Equal(b, want) {
					t.Errorf("basis %v, the seed's draw %v", b, want)
				}
			}
			folds := kfold5
			switch {
			case strings.HasPrefix(c.strategy, "loo"):
				folds = looFolds(60)
			case c.design == 1:
				folds, err = cv.BasisFolds(60, b, 5, 1)
			case c.design == 2:
				folds, err = cv.FoldsExcluding(60, b, 5, 1)
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.policy == "skip" {
				folds = slices.DeleteFunc(folds, func(f []int) bool { return slices.Contains(b, f[0]) })
			}
			cvAt := func(lambda float64) []float64 {
				if c.design != 3 {
					p, k := s.holdOut(t, squaredLoss(y), folds, b, c.policy, lambda)
					or.kappa(k)
					return p
				}
				out := make([]float64, 60)
				for n, f := range folds {
					train := complementOf(f, 60)
					draw, err := basis.Random(len(train), c.nBasis, 1+uint64(n+1))
					if err != nil {
						t.Fatal(err)
					}
					var fb []int
					for _, r := range draw {
						fb = append(fb, train[r])
					}
					p, k := s.fit(t, squaredLoss(y), train, fb, lambda, rowsAt(x, f))
					or.kappa(k)
					for h, i := range f {
						out[i] = p[h]
					}
				}
				return out
			}
			if len(o.CV.Curve) != 2 {
				t.Fatalf("curve %+v", o.CV.Curve)
			}
			for _, pt := range o.CV.Curve {
				p := cvAt(pt.Lambda)
				or.mse(fmt.Sprintf("%s at λ %g", c.name, pt.Lambda), pt.Value, pooledMSE(y, p))
				if pt.Lambda == o.Lambda {
					or.predictions(c.name+": CV predictions", readCVColumn(t, cvp, 60), p)
				}
			}
		})
	}
	or.check(t)
	// one basis vector per query
	stdout, _, err := run(t, "", "fit", "--data", grouped, "--kernel", "gaussian", "--basis-select", "per-group", "--lambda", "1", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if o := decodeFit(t, stdout); o.NBasis != 8 {
		t.Errorf("per-group basis of %d vectors, want 8", o.NBasis)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--basis-holdout", "remove"}, "sparse models"},
		{[]string{"--basis", "5", "--basis-holdout", "skip", "--cv", "kfold:3"}, "leave-one-out design"},
		{[]string{"--basis", "5", "--basis-holdout", "drop"}, "want remove"},
		{[]string{"--basis-select", "greedy"}, "needs --basis N"},
		{[]string{"--basis-select", "best", "--basis", "3"}, "want random"},
		{[]string{"--basis", "5", "--basis-design", "1"}, "--cv kfold:K"},
		{[]string{"--basis", "5", "--cv", "kfold:3", "--basis-design", "4"}, "want 1, 2 or 3"},
		{[]string{"--basis-select", "per-group"}, "group ids"},
		{[]string{"--basis", "61"}, "more basis vectors"},
	}
	for _, c := range bad {
		args := append([]string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--lambda", "1", "--quiet"}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
	}
}
