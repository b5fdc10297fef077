package pairwise

import (
	"errors"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
)

// homoNetwork draws m vertices and labels every unordered pair once
// (symmetric: with the diagonal; antisymmetric: u < v).
func homoNetwork(t *testing.T, rng *rand.Rand, m int, k kernelCase, sym Symmetry) (*Side, []Pair, []float64, *mat.Dense) {
	t.Helper()
	s, err := NewSide(randObjects(rng, m, 3, k.k), k.k, false)
	if err != nil {
		t.Fatal(err)
	}
	full := mat.NewDense(m, m, nil)
	var pairs []Pair
	var y []float64
	for u := 0; u < m; u++ {
		for v := u; v < m; v++ {
			if sym == Antisymmetric && u == v {
				continue
			}
			val := rng.NormFloat64()
			if rng.IntN(2) == 0 {
				pairs = append(pairs, Pair{u, v})
			} else { // the other orientation
				pairs = append(pairs, Pair{v, u})
				if sym == Antisymmetric {
					val = -val
				}
			}
			y = append(y, val)
		}
	}
	for i, p := range pairs {
		full.Set(p.Row, p.Col, y[i])
		if sym == Symmetric {
			full.Set(p.Col, p.Row, y[i])
		} else {
			full.Set(p.Col, p.Row, -y[i])
		}
	}
	return s, pairs, y, full
}

var symmetries = []Symmetry{Symmetric, Antisymmetric}

func TestHomogeneousKron(t *testing.T) {
	for _, kc := range kernelCases {
		for _, sym := range symmetries {
			rng := rand.New(rand.NewPCG(21, uint64(sym)))
			m := 6
			s, pairs, y, full := homoNetwork(t, rng, m, kc, sym)
			k, err := FitKron(s, nil, pairs, y, Options{Symmetry: sym})
			if err != nil {
				t.Fatal(err)
			}
			if e, _ := matRelErr(k.Matrix(), full); e != 0 {
				t.Fatalf("mirrored labels differ")
			}
			vf := randFolds(rng, m, 3)
			vl, err := k.LeaveVertexOut(nil, lambdas)
			if err != nil {
				t.Fatal(err)
			}
			vfo, err := k.LeaveVertexOut(vf, lambdas)
			if err != nil {
				t.Fatal(err)
			}
			for li, lambda := range lambdas {
				name := kc.name + "/" + sym.String() + "/" + formatG(lambda)
				sol, _ := k.Solve(lambda)
				all := allPairs(m, m)
				check(t, name+" fitted", pickPairs(sol.Fitted(), all), bruteKronGrid(s, s, full, func(int, int) bool { return true }, all, lambda))
				// pairs: (u, v) and (v, u) out together
				lp, err := sol.LeaveOneOut()
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float64, len(pairs))
				for n, p := range pairs {
					want[n] = bruteKronGrid(s, s, full, func(i, j int) bool {
						return !(i == p.Row && j == p.Col || i == p.Col && j == p.Row)
					}, []Pair{p}, lambda)[0]
				}
				check(t, name+" pairs", lp.RawMatrix().Data, want)
				// vertices, alone and in folds
				for fname, got := range map[string]*mat.Dense{"vertices": vl[li], "vertex folds": vfo[li]} {
					folds := loo(m)
					if fname == "vertex folds" {
						folds = vf
					}
					w := nanDense(m, m)
					for _, f := range folds {
						in := map[int]bool{}
						for _, i := range f {
							in[i] = true
						}
						var test []Pair
						for _, i := range f {
							for j := 0; j < m; j++ {
								test = append(test, Pair{i, j})
							}
						}
						pred := bruteKronGrid(s, s, full, func(i, j int) bool { return !in[i] && !in[j] }, test, lambda)
						for a, p := range test {
							w.Set(p.Row, p.Col, pred[a])
						}
					}
					checkMat(t, name+" "+fname, got, w)
				}
			}
		}
	}
}

func TestHomogeneousTwoStep(t *testing.T) {
	for _, kc := range kernelCases {
		for _, sym := range symmetries {
			rng := rand.New(rand.NewPCG(22, uint64(sym)))
			m := 6
			s, pairs, y, full := homoNetwork(t, rng, m, kc, sym)
			ts, err := FitTwoStep(s, s, pairs, y, Options{Symmetry: sym})
			if err != nil {
				t.Fatal(err)
			}
			vf := randFolds(rng, m, 2)
			for _, l := range twoStepLambdas {
				name := kc.name + "/" + sym.String() + "/" + formatG(l[0]) + "," + formatG(l[1])
				sol, _ := ts.Solve(l[0], l[1])
				p, err := sol.LeaveOneOutMatrix()
				if err != nil {
					t.Fatal(err)
				}
				sign := 1.0
				if sym == Antisymmetric {
					sign = -1
				}
				var got, want []float64
				for u := 0; u < m; u++ {
					for v := 0; v < m; v++ {
						if sym == Antisymmetric && u == v {
							continue
						}
						yy := mat.DenseCopyOf(full)
						yy.Set(u, v, p.At(u, v))
						yy.Set(v, u, sign*p.At(u, v))
						f := bruteTwoStep(s, s, yy, seq(m), seq(m), []int{u}, []int{v}, l[0], l[1])
						got, want = append(got, p.At(u, v)), append(want, f.At(0, 0))
					}
				}
				check(t, name+" pairs fixed point", got, want)
				for fname, folds := range map[string][][]int{"vertices": nil, "vertex folds": vf} {
					gotV, err := sol.LeaveVertexOut(folds)
					if err != nil {
						t.Fatal(err)
					}
					fs := folds
					if fs == nil {
						fs = loo(m)
					}
					w := nanDense(m, m)
					for _, f := range fs {
						tr := cv.Complement(f, m)
						pr := bruteTwoStep(s, s, full, tr, tr, f, seq(m), l[0], l[1])
						for a, i := range f {
							copy(w.RawRowView(i), pr.RawRowView(a))
						}
					}
					checkMat(t, name+" "+fname, gotV, w)
				}
			}
		}
	}
}

func TestHomogeneousErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	s, pairs, y, _ := homoNetwork(t, rng, 4, kernelCases[0], Symmetric)
	other, _ := NewSide(randObjects(rng, 4, 3, kernelCases[0].k), kernelCases[0].k, false)
	if _, err := FitKron(s, other, pairs, y, Options{Symmetry: Symmetric}); err == nil {
		t.Error("two sides for a homogeneous network: no error")
	}
	// (0,1) and (1,0) with different labels
	bad := append([]Pair{{1, 0}}, pairs...)
	by := append([]float64{42}, y...)
	if _, err := FitKron(s, nil, bad, by, Options{Symmetry: Symmetric}); !errors.Is(err, ErrPair) {
		t.Errorf("contradicting mirror: %v", err)
	}
	if _, err := FitKron(s, nil, []Pair{{2, 2}}, []float64{1}, Options{Symmetry: Antisymmetric}); !errors.Is(err, ErrPair) {
		t.Errorf("antisymmetric diagonal label 1: %v", err)
	}
	k, err := FitKron(s, nil, pairs, y, Options{Symmetry: Symmetric})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Design{{Setting: Rows}, {Setting: Both}, {Setting: Cols}} {
		if err := k.CrossValidate(d, []float64{1}, func(int, *mat.Dense) error { return nil }); !errors.Is(err, ErrSetting) {
			t.Errorf("%s on a homogeneous network: %v", d, err)
		}
	}
}
