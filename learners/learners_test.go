package learners_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners"
)

// inputFor builds a small input with what the descriptor needs.
func inputFor(d *learn.Descriptor) *learn.Input {
	rng := rand.New(rand.NewPCG(3, 9))
	dense := func(r, c int) *mat.Dense {
		m := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	if d.Needs.Has(learn.NeedsPairs) {
		in := &learn.Input{X: dense(6, 2), Cols: dense(5, 2)}
		var y []float64
		for i := 0; i < 6; i++ {
			for j := 0; j < 5; j++ {
				in.Pairs = append(in.Pairs, learn.ObjectPair{Row: i, Col: j})
				v := rng.NormFloat64()
				if d.Loss.Binary() { // the squared hinge: labels −1 and +1
					v = math.Copysign(1, v)
				}
				y = append(y, v)
			}
		}
		in.Y = mat.NewDense(len(y), 1, y)
		return in
	}
	const m = 20
	in := &learn.Input{X: dense(m, 3), Y: dense(m, 1), Select: 2}
	if d.Needs.Has(learn.NeedsGroups) {
		for i := 0; i < m; i++ {
			in.Groups = append(in.Groups, i%4)
		}
	}
	if d.Needs.Has(learn.NeedsGraph) {
		for i := 0; i+1 < m; i++ {
			in.Graph = append(in.Graph, learn.Edge{I: i, J: i + 1, Magnitude: 1, Weight: 1})
		}
	}
	return in
}

// undeclared lists capabilities a learner has but deliberately does not
// declare, with the reason.
var undeclared = map[learn.Name]map[learn.Capability]string{
	// a learner of pairs holds out pairs through its object designs (setting
	// A is "pairs"), so its row-style hold-outs are not offered to schemes
	learn.KronRLS: {learn.CanLeaveOneOut: "setting A is the pairs design", learn.CanHoldOut: "object designs"},
	learn.TwoStep: {learn.CanLeaveOneOut: "setting A is the pairs design", learn.CanHoldOut: "object designs"},
}

// Every registered learner has exactly the capabilities it declares: each
// declared one is there on a trained learner (or its solution), and each one
// present is declared (or listed above with its reason). Plans are checked
// against the declarations before any training, so a false declaration
// would fail late — or let a scheme through that the learner cannot run.
func TestDeclaredCapabilities(t *testing.T) {
	onSolution := []learn.Capability{learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut, learn.CanHoldOutBasis}
	onLearner := []learn.Capability{learn.CanRelabel, learn.CanPerturb, learn.CanHoldOutObjects, learn.CanColLambda}
	ds := learn.Descriptors()
	if len(ds) < 4 {
		t.Fatalf("%d learners registered: %v", len(ds), learn.Names())
	}
	for _, d := range ds {
		in := inputFor(d)
		method, err := d.New(in)
		if err != nil {
			t.Fatalf("%s: New: %v", d.Name, err)
		}
		spec := kernel.Spec{Name: "gaussian", Gamma: 0.5}
		if !d.TakesKernel("gaussian") {
			spec = kernel.Spec{Name: "linear", Bias: 1}
		}
		k, _ := kernel.New(spec)
		l, err := method(learn.Setting{Kernel: k, ColKernel: k})
		if err != nil {
			t.Fatalf("%s: training: %v", d.Name, err)
		}
		var sol learn.Solution
		if c, ok := l.(learn.ColLambdaLearner); ok {
			sol, err = c.AtBoth(1, 1)
		} else {
			sol, err = l.At(1)
		}
		if err != nil {
			t.Fatalf("%s: solving: %v", d.Name, err)
		}
		check := func(v any, caps []learn.Capability) {
			for _, c := range caps {
				has, declared := learn.Has(v, c), d.Can(c)
				switch {
				case declared && !has:
					t.Errorf("%s declares %s but has not got it", d.Name, c)
				case has && !declared && undeclared[d.Name][c] == "":
					t.Errorf("%s has %s but does not declare it", d.Name, c)
				}
			}
		}
		check(sol, onSolution)
		check(l, onLearner)
		if d.Summary == "" || d.Measure("loo") == "" {
			t.Errorf("%s: no summary or default measure", d.Name)
		}
	}
}

// A learner that declares CanCG trains by conjugate gradients through the
// one search (Input.Form learn.Iterative), and its direct (dual) form at the
// same λ: both are checked against the weights w* solved here by LU from
// A = X̃ᵀLX̃ + λI, A·w* = X̃ᵀLy, for X̃ = [X, √bias·1] and the Laplacian of the
// learner's loss (I for squared, mI − 11ᵀ for all pairs, n_q·I − 11ᵀ per
// query), predictions X̃w*. Conjugate gradients stop at ‖r‖ ≤ Tol·‖b‖, so
// ‖w − w*‖ ≤ κ(A)·Tol·‖w*‖ (times 2 for the drift of the recurred residual,
// plus the LU's own rounding, 100·n·κ(A)·ε), and the predictions' relative
// error is at most κ(X̃) times that. The dual form solves a system similar to
// K^½LK^½ + λI, K = X̃X̃ᵀ, whose eigenvalues lie in [λ, ‖L‖∞‖K‖∞ + λ]: its
// predictions are held to 1e3·κ_d·ε of their scale, κ_d that ratio. κ(A),
// κ(X̃) and κ_d are computed here, and every bound asserted below 1e-8, so a
// 1e-7 error — a wrong loss or bias in either form, or in both alike — fails.
// A learner that does not declare it refuses the iterative form.
func TestDeclaredConjugateGradients(t *testing.T) {
	const eps = 0x1p-52
	const tol, lambda, bias = 1e-13, 0.5, 1.0
	lin := kernel.Spec{Name: "linear", Bias: bias}
	for _, d := range learn.Descriptors() {
		if !d.TakesKernel("linear") || d.Needs.Has(learn.NeedsPairs) {
			continue
		}
		in := inputFor(d)
		predict := func(form learn.Form) ([]float64, error) {
			cp := *in
			cp.Form, cp.Tol, cp.MaxIter = form, tol, 10000
			method, err := d.New(&cp)
			if err != nil {
				return nil, err
			}
			k, _ := kernel.New(lin)
			l, err := method(learn.Setting{Kernel: k})
			if err != nil {
				return nil, err
			}
			s, err := l.At(lambda)
			if err != nil {
				return nil, err
			}
			p, err := s.Predictor().Predict(in.X)
			if err != nil {
				return nil, err
			}
			return mat.Col(nil, 0, p), nil
		}
		got, err := predict(learn.Iterative)
		if !d.Can(learn.CanCG) {
			if err == nil {
				t.Errorf("%s does not declare conjugate gradients but trained by them", d.Name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: conjugate gradients: %v", d.Name, err)
		}
		direct, err := predict(learn.Dual)
		if err != nil {
			t.Fatalf("%s: direct: %v", d.Name, err)
		}
		// the learner's loss as a Laplacian
		m, nf := in.X.Dims()
		l := mat.NewDense(m, m, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				switch d.Loss {
				case learn.Squared:
					if i == j {
						l.Set(i, i, 1)
					}
				case learn.AllPairs, learn.QueryPairs:
					if i != j && (d.Loss == learn.AllPairs || in.Groups[i] == in.Groups[j]) {
						l.Set(i, j, -1)
						l.Set(i, i, l.At(i, i)+1)
					}
				default:
					t.Fatalf("%s: no Laplacian here for its loss %v", d.Name, d.Loss)
				}
			}
		}
		xt := mat.NewDense(m, nf+1, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < nf; j++ {
				xt.Set(i, j, in.X.At(i, j))
			}
			xt.Set(i, nf, math.Sqrt(bias))
		}
		var lx, a, kk mat.Dense
		lx.Mul(l, xt)
		a.Mul(xt.T(), &lx)
		for k := 0; k <= nf; k++ {
			a.Set(k, k, a.At(k, k)+lambda)
		}
		var ly, b, w, want mat.VecDense
		ly.MulVec(l, in.Y.ColView(0))
		b.MulVec(xt.T(), &ly)
		if err := w.SolveVec(&a, &b); err != nil {
			t.Fatal(err)
		}
		want.MulVec(xt, &w)
		var eig mat.EigenSym
		if !eig.Factorize(mat.NewSymDense(nf+1, a.RawMatrix().Data), false) {
			t.Fatal("eigendecomposition failed")
		}
		ev := eig.Values(nil)
		kA, kX := ev[nf]/ev[0], mat.Cond(xt, 2)
		kk.Mul(xt, xt.T())
		kD := (normInf(l)*normInf(&kk) + lambda) / lambda
		n := float64(nf + 1)
		boundCG := kX * 2 * (kA*tol + 100*n*kA*eps)
		boundDirect := 1e3 * kD * eps
		t.Logf("%s: κ(A) %.3g, κ(X̃) %.3g, κ_d %.3g: bounds %.2g (cg), %.2g (direct)", d.Name, kA, kX, kD, boundCG, boundDirect)
		if boundCG > 1e-8 || boundDirect > 1e-8 {
			t.Fatalf("%s: bounds %.2g, %.2g: too loose to catch 1e-7", d.Name, boundCG, boundDirect)
		}
		scale := 0.0
		for i := 0; i < m; i++ {
			scale = max(scale, math.Abs(want.AtVec(i)))
		}
		var diff mat.VecDense
		diff.SubVec(mat.NewVecDense(m, got), &want)
		if e := mat.Norm(&diff, 2) / mat.Norm(&want, 2); !(e <= boundCG) {
			t.Errorf("%s: conjugate gradients' predictions off by %.3g relative, bound %.3g", d.Name, e, boundCG)
		}
		for i := range direct {
			if e := math.Abs(direct[i] - want.AtVec(i)); !(e <= boundDirect*scale) {
				t.Errorf("%s row %d: direct %.17g, retraining %.17g (tolerance %.2g)", d.Name, i, direct[i], want.AtVec(i), boundDirect*scale)
			}
		}
	}
}

// normInf is the largest absolute row sum, ≥ the 2-norm of a symmetric matrix.
func normInf(a *mat.Dense) float64 {
	r, c := a.Dims()
	out := 0.0
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < c; j++ {
			s += math.Abs(a.At(i, j))
		}
		out = math.Max(out, s)
	}
	return out
}
