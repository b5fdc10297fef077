package pairwise

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/learn"
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
	HoldOutModels(d learn.Design) ([]*mat.Dense, *mat.Dense, error)
}

// TestHoldOutModelsOracle: every hold-out model of settings B, C and D (K
// row folds, K column folds, or K×L blocks; 4 row and 3 column folds, which
// take Kronecker RLS's eigendecomposition route in B and C, and one object
// per fold, folds nil, which takes its imputation route), of Kronecker and
// two-step RLS, equals the model retrained from scratch on the kept rows and
// columns (a dense solve of the Kronecker system, or the two ridge steps, in
// refined precision) to tol relative, and each training pair's hold-out
// prediction equals that retrained model's prediction — also against
// setting B's, C's and D's own cross-validation (HoldOutRows, HoldOutCols,
// LeaveBothOut).
func TestHoldOutModelsOracle(t *testing.T) {
	for _, kc := range kernelCases {
		for _, lambda := range []float64{1e-2, 1, 1e2} {
			for _, c := range []struct {
				setting Setting
				k       int // folds; 0: each object alone (folds nil)
			}{{Rows, 4}, {Rows, 0}, {Cols, 3}, {Cols, 0}, {Both, 4}, {Both, 0}} {
				name := fmt.Sprintf("%s/λ=%g/%s/K=%d", kc.name, lambda, c.setting, c.k)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(22, uint64(lambda*1000)))
					rows, cols := randSides(t, rng, 12, 9, kc.k)
					pairs, y := gridLabels(rng, rows, cols)
					grid := labelGrid(12, 9, pairs, y, Heterogeneous)
					rf, cf := randFolds(rng, 12, 4), randFolds(rng, 9, 3)
					if c.k == 0 {
						rf, cf = loo(12), loo(9)
					}
					argR, argC := rf, cf
					if c.k == 0 {
						argR, argC = nil, nil
					}
					switch c.setting { // the side not held out: one block of every object
					case Rows:
						cf, argC = [][]int{nil}, nil
					case Cols:
						rf, argR = [][]int{nil}, nil
					}
					des := learn.Design{Setting: string(c.setting), RowFolds: argR, ColFolds: argC}
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
					check := func(label string, sol holdOutModeler, brute func(r, c []int) *mat.Dense, cvPred *mat.Dense) {
						models, pred, err := sol.HoldOutModels(des)
						if err != nil {
							t.Fatal(err)
						}
						if len(models) != len(rf)*len(cf) {
							t.Fatalf("%s: %d models, want %d", label, len(models), len(rf)*len(cf))
						}
						want := mat.NewDense(12, 9, nil)
						for k, f := range rf {
							for l, g := range cf {
								keepR, keepC := kept([][]int{f}, 12)[0], kept([][]int{g}, 9)[0]
								wa := brute(keepR, keepC)
								if e, err := matRelErr(models[k*len(cf)+l], wa); err != nil || e > tol {
									t.Fatalf("%s: model (%d, %d): relative error %g (%v)", label, k, l, e, err)
								}
								// the retrained model's predictions of the held-out pairs
								var p mat.Dense
								p.Mul(oracleGram(rows), wa)
								p.Mul(&p, oracleGram(cols))
								for i := 0; i < 12; i++ {
									for j := 0; j < 9; j++ {
										if (f == nil || contains(f, i)) && (g == nil || contains(g, j)) {
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
					switch c.setting {
					case Both:
						var ps []*mat.Dense
						if ps, err = kr.LeaveBothOut(argR, argC, []float64{lambda}); err == nil {
							kcv = ps[0]
							tcv, err = tss.LeaveBothOut(argR, argC)
						}
					case Rows:
						if kcv, err = ks.HoldOutRows(argR); err == nil {
							tcv, err = tss.HoldOutRows(argR)
						}
					case Cols:
						if kcv, err = ks.HoldOutCols(argC); err == nil {
							tcv, err = tss.HoldOutCols(argC)
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
