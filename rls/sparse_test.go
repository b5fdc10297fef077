package rls

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// learn.Remove policy: the hold-out prediction equals retraining on H̄ with basis B∖H;
// keep policy: retraining on H̄ with basis B. Hold-out sets hold none, some and
// all but one of the basis vectors; sizes 1 … m/2.
func TestHoldOutBasisEqualsRetraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for _, sh := range [][3]int{{30, 4, 1}, {30, 4, 3}, {45, 6, 1}, {24, 3, 3}} {
		m, d, tt := sh[0], sh[1], sh[2]
		for _, sparse := range []bool{false, true} {
			x, y := randProblem(rng, m, d, tt, sparse)
			n := m / 3
			perm := rng.Perm(m)
			basis := perm[:n]
			others := perm[n:]
			k := kernel.Gaussian{Gamma: 1 / float64(d)}
			p := problem{x: x, y: y, kern: k, form: learn.Sparse, basis: basis}
			r := fit(t, p)
			holdOuts := map[string][]int{
				"no basis":           others[:3],
				"one basis":          {basis[0]},
				"some basis":         append(append([]int{}, basis[:2]...), others[:4]...),
				"all but one basis":  append(append([]int{}, basis[1:]...), others[0]),
				"half the rows":      perm[n-2 : n-2+m/2],
				"half, mostly other": append(append([]int{}, basis[:1]...), others[:m/2-1]...),
			}
			for name, h := range holdOuts {
				remaining := slices.DeleteFunc(slices.Clone(basis), func(b int) bool { return slices.Contains(h, b) })
				for _, lambda := range lambdas {
					s, err := r.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.HoldOutBasis(h, learn.Remove)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					pr := p
					pr.basis = remaining
					want := naivePredict(pr, complementRows(h, m), h, lambda)
					label := fmt.Sprintf("m%d_t%d_sp%v %s λ=%g", m, tt, sparse, name, lambda)
					if e := relErr(got, want); e > 1e-8 {
						t.Errorf("%s: remove rel. error %.2e", label, e)
					}
					keep, err := s.HoldOutBasis(h, learn.Keep)
					if err != nil {
						t.Fatal(err)
					}
					if e := relErr(keep, naivePredict(p, complementRows(h, m), h, lambda)); e > 1e-8 {
						t.Errorf("%s: keep rel. error %.2e", label, e)
					}
				}
			}
		}
	}
}

func TestHoldOutBasisErrorsAndSkip(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	x, y := randProblem(rng, 20, 3, 1, false)
	basis := []int{2, 5, 9}
	r, err := Fit(x, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Basis: basis})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Solve(1)
	if _, err := s.HoldOutBasis([]int{2, 5, 9, 11}, learn.Remove); !errors.Is(err, learn.ErrBasis) {
		t.Errorf("removing every basis vector: err = %v, want learn.ErrBasis", err)
	}
	if _, err := s.HoldOutBasis([]int{2, 2}, learn.Remove); !errors.Is(err, learn.ErrHoldOut) {
		t.Errorf("duplicate rows: err = %v, want learn.ErrHoldOut", err)
	}
	loo, _ := s.LeaveOneOut()
	skip, err := s.LeaveOneOutSkip()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		isBasis := slices.Contains(basis, i)
		if isBasis != math.IsNaN(skip.At(i, 0)) || (!isBasis && skip.At(i, 0) != loo.At(i, 0)) {
			t.Errorf("row %d: skip %v, loo %v", i, skip.At(i, 0), loo.At(i, 0))
		}
		// for a non-basis row, remove = keep = LOO
		if !isBasis {
			rm, _ := s.HoldOutBasis([]int{i}, learn.Remove)
			if math.Abs(rm.At(0, 0)-loo.At(i, 0)) > 1e-10*(1+math.Abs(loo.At(i, 0))) {
				t.Errorf("row %d: remove %v vs LOO %v", i, rm.At(0, 0), loo.At(i, 0))
			}
		}
	}
	// a dependent basis (the same point twice) cannot have a vector removed
	xd := mat.DenseCopyOf(x.(*mat.Dense))
	xd.SetRow(7, xd.RawRowView(2))
	rd, _ := Fit(xd, y, Options{Kernel: kernel.Gaussian{Gamma: 0.3}, Basis: []int{2, 7, 9}})
	sd, _ := rd.Solve(1)
	if _, err := sd.HoldOutBasis([]int{2}, learn.Remove); !errors.Is(err, learn.ErrBasis) {
		t.Errorf("dependent basis: err = %v, want learn.ErrBasis", err)
	}
}
