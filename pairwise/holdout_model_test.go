package pairwise

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
)

// bruteKronModel retrains Kronecker RLS from scratch on the pairs of the
// rows keepR × columns keepC (a dense solve of (G_CC ⊗ K_RR + λI) α = y on
// those pairs, oracle kernels) and returns its coefficients as an m×q
// matrix, zero outside the kept grid.
func bruteKronModel(rows, cols *Side, y *mat.Dense, keepR, keepC []int, lambda float64) *mat.Dense {
	km, gm := oracleGram(rows), oracleGram(cols)
	var train []Pair
	var lab []float64
	for _, i := range keepR {
		for _, j := range keepC {
			train = append(train, Pair{i, j})
			lab = append(lab, y.At(i, j))
		}
	}
	n := len(train)
	a := mat.NewDense(n, n, nil)
	for s, p := range train {
		for t, r := range train {
			v := km.At(p.Row, r.Row) * gm.At(p.Col, r.Col)
			if s == t {
				v += lambda
			}
			a.Set(s, t, v)
		}
	}
	alpha := oracle.RefinedSolve(a, mat.NewDense(n, 1, lab))
	m, q := y.Dims()
	out := mat.NewDense(m, q, nil)
	for s, p := range train {
		out.Set(p.Row, p.Col, alpha.At(s, 0))
	}
	return out
}

// bruteTwoStepModel retrains two-step RLS on keepR × keepC:
// (K_RR + λ_r I)⁻¹ Y_RC (G_CC + λ_c I)⁻¹, embedded in m×q.
func bruteTwoStepModel(rows, cols *Side, y *mat.Dense, keepR, keepC []int, lr, lc float64) *mat.Dense {
	km, gm := oracleGram(rows), oracleGram(cols)
	shifted := func(k *mat.Dense, idx []int, lambda float64) *mat.Dense {
		a := mat.NewDense(len(idx), len(idx), nil)
		for s, i := range idx {
			for t, j := range idx {
				a.Set(s, t, k.At(i, j))
			}
			a.Set(s, s, a.At(s, s)+lambda)
		}
		return a
	}
	yrc := mat.NewDense(len(keepR), len(keepC), nil)
	for s, i := range keepR {
		for t, j := range keepC {
			yrc.Set(s, t, y.At(i, j))
		}
	}
	w := oracle.RefinedSolve(shifted(km, keepR, lr), yrc)                     // (K_RR+λ_r)⁻¹ Y_RC
	at := oracle.RefinedSolve(shifted(gm, keepC, lc), mat.DenseCopyOf(w.T())) // (G_CC+λ_c)⁻¹ Wᵀ
	m, q := y.Dims()
	out := mat.NewDense(m, q, nil)
	for s, i := range keepR {
		for t, j := range keepC {
			out.Set(i, j, at.At(t, s))
		}
	}
	return out
}

// holdOutModeler is what both solutions give.
type holdOutModeler interface {
	HoldOutModels(rowFolds, colFolds [][]int, both bool) ([]*mat.Dense, *mat.Dense, error)
}

// TestHoldOutModelsOracle: every hold-out model of settings B and D (K row
// folds, or K×L blocks; 4 × 3 folds, which take Kronecker RLS's
// eigendecomposition route in B, and one object per fold, folds nil, which
// takes its imputation route), of Kronecker and two-step RLS, equals the model
// retrained from scratch on the kept rows and columns (a dense solve of the
// Kronecker system, or the two ridge steps, in refined precision) to tol
// relative, and each training pair's hold-out prediction equals that
// retrained model's prediction — also against setting B's and D's own
// cross-validation (HoldOutRows, LeaveBothOut).
func TestHoldOutModelsOracle(t *testing.T) {
	for _, kc := range kernelCases {
		for _, lambda := range []float64{1e-2, 1, 1e2} {
			for _, c := range []struct {
				both bool
				k    int // row folds; 0: each object alone (folds nil)
			}{{false, 4}, {false, 0}, {true, 4}, {true, 0}} {
				both := c.both
				name := fmt.Sprintf("%s/λ=%g/both=%v/K=%d", kc.name, lambda, both, c.k)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(22, uint64(lambda*1000)))
					rows, cols := randSides(t, rng, 12, 9, kc.k)
					pairs, y := gridLabels(rng, rows, cols)
					grid := labelGrid(12, 9, pairs, y, Heterogeneous)
					rf, cf := randFolds(rng, 12, 4), [][]int(nil)
					if both {
						cf = randFolds(rng, 9, 3)
					}
					argR, argC := rf, cf
					if c.k == 0 {
						rf, argR, argC = loo(12), nil, nil
						if both {
							cf = loo(9)
						}
					}
					kr, err := FitKron(rows, cols, pairs, y, Options{})
					if err != nil {
						t.Fatal(err)
					}
					ks, err := kr.Solve(lambda)
					if err != nil {
						t.Fatal(err)
					}
					ts, err := FitTwoStep(rows, cols, pairs, y, Options{})
					if err != nil {
						t.Fatal(err)
					}
					lc := lambda * 3
					tss, err := ts.Solve(lambda, lc)
					if err != nil {
						t.Fatal(err)
					}
					cfs := cf
					if !both {
						cfs = [][]int{{}}
					}
					check := func(label string, sol holdOutModeler, brute func(r, c []int) *mat.Dense, cvPred *mat.Dense) {
						models, pred, err := sol.HoldOutModels(argR, argC, both)
						if err != nil {
							t.Fatal(err)
						}
						if len(models) != len(rf)*len(cfs) {
							t.Fatalf("%s: %d models, want %d", label, len(models), len(rf)*len(cfs))
						}
						want := mat.NewDense(12, 9, nil)
						for k, f := range rf {
							for l, g := range cfs {
								keepR, keepC := kept([][]int{f}, 12)[0], kept([][]int{g}, 9)[0]
								wa := brute(keepR, keepC)
								if e, err := matRelErr(models[k*len(cfs)+l], wa); err != nil || e > tol {
									t.Fatalf("%s: model (%d, %d): relative error %g (%v)", label, k, l, e, err)
								}
								// the retrained model's predictions of the held-out pairs
								var p mat.Dense
								p.Mul(oracleGram(rows), wa)
								p.Mul(&p, oracleGram(cols))
								for _, i := range f {
									for j := 0; j < 9; j++ {
										if g == nil || len(g) == 0 || contains(g, j) {
											want.Set(i, j, p.At(i, j))
										}
									}
								}
							}
						}
						if e, err := matRelErr(pred, want); err != nil || e > tol {
							t.Fatalf("%s: hold-out predictions: relative error %g (%v)", label, e, err)
						}
						if e, err := matRelErr(pred, cvPred); err != nil || e > tol {
							t.Fatalf("%s: hold-out predictions against the setting's cross-validation: relative error %g (%v)", label, e, err)
						}
					}
					var kcv, tcv *mat.Dense
					if both {
						var ps []*mat.Dense
						if ps, err = kr.LeaveBothOut(argR, argC, []float64{lambda}); err == nil {
							kcv = ps[0]
							tcv, err = tss.LeaveBothOut(argR, argC)
						}
					} else {
						if kcv, err = ks.HoldOutRows(argR); err == nil {
							tcv, err = tss.HoldOutRows(argR)
						}
					}
					if err != nil {
						t.Fatal(err)
					}
					check("kronrls", ks, func(r, c []int) *mat.Dense { return bruteKronModel(rows, cols, grid, r, c, lambda) }, kcv)
					check("twostep", tss, func(r, c []int) *mat.Dense { return bruteTwoStepModel(rows, cols, grid, r, c, lambda, lc) }, tcv)
				})
			}
		}
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
