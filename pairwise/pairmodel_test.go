package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
)

// The models the learners hand out (PairModel) predict new objects as the
// model trained by a direct dense solve written here does: Kronecker RLS on
// the observed pairs, α = (𝕂_SS + λI)⁻¹y with 𝕂_SS[p, p'] = k(u_p, u_p')
// g(v_p, v_p') (on a homogeneous network the observations are the pairs in
// both orientations, the antisymmetric diagonal with label 0), f(u, v) =
// Σ_p α_p k(u, u_p) g(v, v_p); two-step RLS A = (K + λ_r I)⁻¹ Y (G + λ_c I)⁻¹,
// f(u, v) = k(u)ᵀ A g(v). The kernel values are the oracle's formula, entry
// by entry.

var pmKernel = oracle.Kernel{Name: "gaussian", Gamma: 0.5}

// pmObjects draws n objects of 2 features.
func pmObjects(rng *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 2, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return x
}

// pmGram is k(a_i, b_j) by the oracle's formula.
func pmGram(a, b *mat.Dense) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	out := mat.NewDense(na, nb, nil)
	for i := 0; i < na; i++ {
		for j := 0; j < nb; j++ {
			out.Set(i, j, pmKernel.Eval(a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return out
}

// pmObs is the observations a problem trains on, built from the pairs given.
func pmObs(m int, pairs []Pair, y []float64, sym Symmetry) ([]Pair, []float64) {
	obs, oy := append([]Pair(nil), pairs...), append([]float64(nil), y...)
	if sym == Heterogeneous {
		return obs, oy
	}
	has := map[Pair]bool{}
	for _, p := range pairs {
		has[p] = true
	}
	for i, p := range pairs {
		if q := (Pair{p.Col, p.Row}); !has[q] {
			has[q] = true
			v := y[i]
			if sym == Antisymmetric {
				v = -v
			}
			obs, oy = append(obs, q), append(oy, v)
		}
	}
	if sym == Antisymmetric {
		for u := 0; u < m; u++ {
			if !has[Pair{u, u}] {
				obs, oy = append(obs, Pair{u, u}), append(oy, 0)
			}
		}
	}
	return obs, oy
}

// pmKron predicts the pairs (ru[k], cv[k]) of the new objects with Kronecker
// RLS trained on the observations, by a direct solve.
func pmKron(kr, kc, nr, nc *mat.Dense, obs []Pair, y []float64, lambda float64, ru, cv []int) []float64 {
	n := len(obs)
	a := mat.NewDense(n, n, nil)
	for i, p := range obs {
		for j, q := range obs {
			a.Set(i, j, kr.At(p.Row, q.Row)*kc.At(p.Col, q.Col))
		}
		a.Set(i, i, a.At(i, i)+lambda)
	}
	alpha := oracle.RefinedSolve(a, mat.NewDense(n, 1, append([]float64(nil), y...)))
	out := make([]float64, len(ru))
	for k := range ru {
		for j, p := range obs {
			out[k] += alpha.At(j, 0) * nr.At(ru[k], p.Row) * nc.At(cv[k], p.Col)
		}
	}
	return out
}

// pmTwoStep predicts with A = (K + λ_r I)⁻¹ Y (G + λ_c I)⁻¹ by direct solves.
func pmTwoStep(kr, kc, nr, nc, y *mat.Dense, lr, lc float64, ru, cv []int) []float64 {
	shift := func(k *mat.Dense, l float64) *mat.Dense {
		s := mat.DenseCopyOf(k)
		n, _ := s.Dims()
		for i := 0; i < n; i++ {
			s.Set(i, i, s.At(i, i)+l)
		}
		return s
	}
	b := oracle.RefinedSolve(shift(kr, lr), y) // (K + λ_r)⁻¹ Y
	var bt mat.Dense
	bt.CloneFrom(b.T())
	at := oracle.RefinedSolve(shift(kc, lc), &bt) // Aᵀ = (G + λ_c)⁻¹ Yᵀ(K + λ_r)⁻¹
	out := make([]float64, len(ru))
	for k := range ru {
		for i := range nr.RawRowView(0) {
			for j := range nc.RawRowView(0) {
				out[k] += nr.At(ru[k], i) * at.At(j, i) * nc.At(cv[k], j)
			}
		}
	}
	return out
}

func TestPairModelPredictsNewObjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	const m, q, mNew, qNew = 4, 3, 3, 2
	const lambda, colLambda = 0.3, 0.7
	for _, sym := range []Symmetry{Heterogeneous, Symmetric, Antisymmetric} {
		t.Run(sym.String(), func(t *testing.T) {
			rx := pmObjects(rng, m)
			cx, cq := rx, m
			if sym == Heterogeneous {
				cx, cq = pmObjects(rng, q), q
			}
			rz := pmObjects(rng, mNew)
			cz, cn := rz, mNew
			if sym == Heterogeneous {
				cz, cn = pmObjects(rng, qNew), qNew
			}
			rs, err := NewSide(rx, kernel.Gaussian{Gamma: 0.5}, false)
			if err != nil {
				t.Fatal(err)
			}
			cs := rs
			if sym == Heterogeneous {
				if cs, err = NewSide(cx, kernel.Gaussian{Gamma: 0.5}, false); err != nil {
					t.Fatal(err)
				}
			}
			// complete labels: every pair, or every unordered pair once
			var pairs []Pair
			var y []float64
			for i := 0; i < m; i++ {
				for j := 0; j < cq; j++ {
					if sym == Symmetric && j < i || sym == Antisymmetric && j <= i {
						continue
					}
					pairs, y = append(pairs, Pair{i, j}), append(y, math.Sin(float64(3*i+j))+rng.NormFloat64())
				}
			}
			obs, oy := pmObs(m, pairs, y, sym)
			grid := mat.NewDense(m, cq, nil)
			for i, p := range obs {
				grid.Set(p.Row, p.Col, oy[i])
			}
			kr, kc := pmGram(rx, rx), pmGram(cx, cx)
			nr, nc := pmGram(rz, rx), pmGram(cz, cx)
			var ru, cv []int // every pair of new objects
			for i := 0; i < mNew; i++ {
				for j := 0; j < cn; j++ {
					ru, cv = append(ru, i), append(cv, j)
				}
			}
			var colSide *Side
			if sym == Heterogeneous {
				colSide = cs
			}
			predict := func(name string, pm *model.PairPredictor, want []float64, tol float64) {
				t.Helper()
				// the column objects in a matrix of their own: no canonical
				// orientation, every coefficient is used as stored
				got, err := pm.Predict(rz, mat.DenseCopyOf(cz), ru, cv)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if e, err := relErr(got, want); err != nil || e > tol {
					t.Errorf("%s: relative error %.3g (%v)\n got %v\nwant %v", name, e, err, got, want)
				}
			}

			// the learn.Solution predictor: an expansion over the pairs given in
			// the pairwise kernel, k(a,c)g(b,d) for two sets of objects,
			// ½(k(a,c)k(b,d) ± k(a,d)k(b,c)) for a (anti)symmetric network
			sign := 1.0
			if sym == Antisymmetric {
				sign = -1
			}
			kx := mat.NewDense(len(ru), len(pairs), nil)
			for a := range ru {
				for b, p := range pairs {
					v := nr.At(ru[a], p.Row) * nc.At(cv[a], p.Col)
					if sym != Heterogeneous {
						v = (v + sign*nr.At(ru[a], p.Col)*nc.At(cv[a], p.Row)) / 2
					}
					kx.Set(a, b, v)
				}
			}
			expansion := func(name string, pr *model.Predictor, want []float64) {
				t.Helper()
				got, err := pr.Predict(kx)
				if err != nil {
					t.Fatalf("%s predictor: %v", name, err)
				}
				if e, err := relErr(got.RawMatrix().Data, want); err != nil || e > 1e-9 {
					t.Errorf("%s predictor over pairs: relative error %.3g (%v)", name, e, err)
				}
			}

			k, err := FitKron(rs, colSide, pairs, y, Options{Symmetry: sym})
			if err != nil {
				t.Fatal(err)
			}
			ks, err := k.Solve(lambda)
			if err != nil {
				t.Fatal(err)
			}
			wantKron := pmKron(kr, kc, nr, nc, obs, oy, lambda, ru, cv)
			predict("kronrls", ks.PairModel(), wantKron, 1e-9)
			expansion("kronrls", ks.Predictor(), wantKron)

			ts, err := FitTwoStep(rs, colSide, pairs, y, Options{Symmetry: sym})
			if err != nil {
				t.Fatal(err)
			}
			lc := colLambda
			if sym != Heterogeneous {
				lc = lambda // a network's two steps share the side: the model is (anti)symmetric at λ_r = λ_c
			}
			ss, err := ts.Solve(lambda, lc)
			if err != nil {
				t.Fatal(err)
			}
			wantTwo := pmTwoStep(kr, kc, nr, nc, grid, lambda, lc, ru, cv)
			predict("twostep", ss.PairModel(), wantTwo, 1e-9)
			expansion("twostep", ss.Predictor(), wantTwo)

			// conjugate gradients on part of the pairs
			part, party := pairs[:len(pairs)-2], y[:len(y)-2]
			cg, err := FitKronCG(rs, colSide, part, party, Options{Symmetry: sym})
			if err != nil {
				t.Fatal(err)
			}
			cr, err := cg.Solve(lambda, CGOptions{Tol: 1e-13})
			if err != nil || !cr.Converged {
				t.Fatalf("conjugate gradients: %v %+v", err, cr)
			}
			po, py := pmObs(m, part, party, sym)
			if cg.Observations() != len(po) {
				t.Errorf("%d observations, want %d", cg.Observations(), len(po))
			}
			if got := cg.Pairs(); len(got) != len(part) || got[0] != part[0] {
				t.Errorf("pairs %v, want %v", got, part)
			}
			predict("kronrls cg", cr.PairModel(), pmKron(kr, kc, nr, nc, po, py, lambda, ru, cv), 1e-8)
		})
	}
}

// TestCGPairModelZero: a model whose coefficients are all zero (zero labels)
// still has an entry — a model file needs one — and predicts 0.
func TestCGPairModelZero(t *testing.T) {
	rows, cols := labelSides(t, 3, 2)
	k, err := FitKronCG(rows, cols, []Pair{{2, 1}, {0, 0}}, []float64{0, 0}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.Solve(1, CGOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pm := r.PairModel()
	if len(pm.Entries) != 1 || pm.Entries[0] != (model.PairEntry{Row: 2, Col: 1}) || pm.A != nil {
		t.Errorf("entries %v, A %v: want one zero entry at the first pair", pm.Entries, pm.A)
	}
	got, err := pm.Predict(nil, nil, []int{0, 2}, []int{1, 0})
	if err != nil || got[0] != 0 || got[1] != 0 {
		t.Errorf("predictions %v, %v", got, err)
	}
}
