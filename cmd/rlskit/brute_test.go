package main

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Brute-force references for the CLI tests: retraining from scratch with
// gonum's dense solvers on the numbers the test wrote, sharing no code with
// the module.

// kernelFunc is a kernel function on two rows.
type kernelFunc func(a, b []float64) float64

// linearKernel is k(x, z) = x·z + bias.
func linearKernel(bias float64) kernelFunc {
	return func(a, b []float64) float64 {
		s := bias
		for n := range a {
			s += a[n] * b[n]
		}
		return s
	}
}

// gaussianKernel is k(x, z) = exp(−γ‖x − z‖²).
func gaussianKernel(gamma float64) kernelFunc {
	return func(a, b []float64) float64 {
		s := 0.0
		for n := range a {
			s += (a[n] - b[n]) * (a[n] - b[n])
		}
		return math.Exp(-gamma * s)
	}
}

// ridgeDual trains RLS on the rows xs with the labels ys (one slice of
// outputs per row) from scratch: (K + λI) A = Y by LU, K_ij = k(x_i, x_j),
// and predicts the rows xn, K(xn, xs)·A. It returns the predictions and the
// condition number of K + λI.
func ridgeDual(t *testing.T, k kernelFunc, xs, ys [][]float64, xn [][]float64, lambda float64) ([][]float64, float64) {
	t.Helper()
	n, nt := len(xs), len(ys[0])
	sys := mat.NewDense(n, n, nil)
	rhs := mat.NewDense(n, nt, nil)
	for i := range xs {
		for j := range xs {
			sys.Set(i, j, k(xs[i], xs[j]))
		}
		sys.Set(i, i, sys.At(i, i)+lambda)
		rhs.SetRow(i, ys[i])
	}
	var a mat.Dense
	if err := a.Solve(sys, rhs); err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, len(xn))
	for i := range xn {
		out[i] = make([]float64, nt)
		for j := range xs {
			kij := k(xn[i], xs[j])
			for c := 0; c < nt; c++ {
				out[i][c] += kij * a.At(j, c)
			}
		}
	}
	return out, condSym(t, sys)
}

// eps is the float64 unit roundoff (2⁻⁵²).
const eps = 0x1p-52

// condSym is the 2-norm condition number of a symmetric positive definite
// matrix, from its eigenvalues.
func condSym(t *testing.T, a mat.Matrix) float64 {
	t.Helper()
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var e mat.EigenSym
	if !e.Factorize(s, false) {
		t.Fatal("eigendecomposition failed")
	}
	v := e.Values(nil) // ascending
	if !(v[0] > 0) {
		t.Fatalf("system matrix not positive definite: eigenvalues %v", v)
	}
	return v[n-1] / v[0]
}

// readTable reads a CSV file the tests wrote — a header, then numbers — as
// columns by name, each value parsed from its text as the CLI parses it.
func readTable(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")
	names := strings.Split(lines[0], ",")
	cols := map[string][]float64{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != len(names) {
			t.Fatalf("%s: line %q has %d fields, the header %d", path, l, len(f), len(names))
		}
		for k, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cols[names[k]] = append(cols[names[k]], v)
		}
	}
	return cols
}

// rowsOf gathers the named columns into rows.
func rowsOf(cols map[string][]float64, names ...string) [][]float64 {
	out := make([][]float64, len(cols[names[0]]))
	for i := range out {
		for _, n := range names {
			out[i] = append(out[i], cols[n][i])
		}
	}
	return out
}

// The general brute force of the learners on rows: a cost over the training
// rows T written as f_TᵀLf_T − 2bᵀf_T (plus a constant) — RLS (L = I,
// b = y), the rankers (L a Laplacian, b = Ly) and a preference graph (L and
// b from its edges) — plus λ‖f‖², minimized from scratch for each training
// set by a dense solve.

// bruteLoss returns the Laplacian L (|T|×|T|) and the linear term b of the
// cost over the training rows train, in their order.
type bruteLoss func(train []int) (*mat.Dense, []float64)

// squaredLoss is RLS's Σ_{i∈T} (y_i − f_i)²: L = I, b = y_T.
func squaredLoss(y []float64) bruteLoss {
	return func(train []int) (*mat.Dense, []float64) {
		n := len(train)
		l := mat.NewDense(n, n, nil)
		b := make([]float64, n)
		for r, i := range train {
			l.Set(r, r, 1)
			b[r] = y[i]
		}
		return l, b
	}
}

// pairLoss is RankRLS's Σ over pairs {i, j} of training rows of
// ((y_i − y_j) − (f_i − f_j))²: every pair (q nil, globalrank) or the pairs
// within each query (queryrank, every pair weighing 1), so L = n·I − 11ᵀ
// over all training rows or per query over its training rows, and b = Ly.
func pairLoss(y []float64, q []int) bruteLoss {
	return func(train []int) (*mat.Dense, []float64) {
		n := len(train)
		l := mat.NewDense(n, n, nil)
		for r, i := range train {
			for c, j := range train {
				if r != c && (q == nil || q[i] == q[j]) {
					l.Set(r, c, -1)
					l.Set(r, r, l.At(r, r)+1)
				}
			}
		}
		b := make([]float64, n)
		for r := range train {
			for c, j := range train {
				b[r] += l.At(r, c) * y[j]
			}
		}
		return l, b
	}
}

// prefEdge is a preference of row i over row j: the cost w²(z − (f_i − f_j))².
type prefEdge struct {
	i, j int
	z, w float64
}

// graphLoss is the cost of the edges with both rows in training: L = Σ
// w²(e_i − e_j)(e_i − e_j)ᵀ, b = Σ w²z(e_i − e_j).
func graphLoss(edges []prefEdge) bruteLoss {
	return func(train []int) (*mat.Dense, []float64) {
		n := len(train)
		at := map[int]int{}
		for r, i := range train {
			at[i] = r
		}
		l := mat.NewDense(n, n, nil)
		b := make([]float64, n)
		for _, e := range edges {
			r, ok1 := at[e.i]
			c, ok2 := at[e.j]
			if !ok1 || !ok2 {
				continue
			}
			w2 := e.w * e.w
			l.Set(r, r, l.At(r, r)+w2)
			l.Set(c, c, l.At(c, c)+w2)
			l.Set(r, c, l.At(r, c)-w2)
			l.Set(c, r, l.At(c, r)-w2)
			b[r] += w2 * e.z
			b[c] -= w2 * e.z
		}
		return l, b
	}
}

// bruteRLS is what the brute force trains: the rows x with a kernel k, or
// with linear set the linear kernel x·z + bias in its primal form, the
// weights of the features [x, √bias] (no bias feature for bias 0).
type bruteRLS struct {
	x      [][]float64
	k      kernelFunc
	linear bool
	bias   float64
	gram   *mat.Dense // k on every pair of rows of x, when cached
}

// cached returns s with the kernel's values on the rows of x computed once.
func (s bruteRLS) cached() bruteRLS {
	m := len(s.x)
	s.gram = mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			s.gram.Set(i, j, s.k(s.x[i], s.x[j]))
		}
	}
	return s
}

// kij is k(x_i, x_j).
func (s bruteRLS) kij(i, j int) float64 {
	if s.gram != nil {
		return s.gram.At(i, j)
	}
	return s.k(s.x[i], s.x[j])
}

// phi is the primal feature vector of a row.
func (s bruteRLS) phi(x []float64) []float64 {
	out := slices.Clone(x)
	if s.bias != 0 {
		out = append(out, math.Sqrt(s.bias))
	}
	return out
}

// fit minimizes the loss over the rows train plus λ‖f‖² from scratch and
// predicts the rows xn. f is Σ_{b∈B} a_b k(·, x_b) over the basis rows B
// (nil: the training rows), or the primal φ(·)ᵀw of the linear kernel:
//
//	primal:  (ΦᵀLΦ + λI) w = Φᵀb             (Cholesky)
//	B = T:   (L·K_TT + λI) a = b             (LU)
//	B ≠ T:   (K_BT·L·K_TB + λK_BB) a = K_BT·b (in the coordinates of fitSparse)
//
// It returns the predictions and a condition number of the system solved:
// exact for the primal system (eigenvalues), fitSparse's for the sparse; for the full dual,
// similar to K^½LK^½ + λI, the bound (‖L‖∞‖K_TT‖∞ + λ)/λ on the spread of
// its eigenvalues.
func (s bruteRLS) fit(t *testing.T, loss bruteLoss, train, basis []int, lambda float64, xn [][]float64) ([]float64, float64) {
	t.Helper()
	l, b := loss(train)
	n := len(train)
	lv := mat.NewVecDense(n, b)
	if s.linear {
		d := len(s.phi(s.x[train[0]]))
		ph := mat.NewDense(n, d, nil)
		for r, i := range train {
			ph.SetRow(r, s.phi(s.x[i]))
		}
		var lp, a mat.Dense
		lp.Mul(l, ph)
		a.Mul(ph.T(), &lp)
		for k := 0; k < d; k++ {
			a.Set(k, k, a.At(k, k)+lambda)
		}
		var rhs, w mat.VecDense
		rhs.MulVec(ph.T(), lv)
		if err := w.SolveVec(&a, &rhs); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(xn))
		for h, x := range xn {
			out[h] = mat.Dot(mat.NewVecDense(d, s.phi(x)), &w)
		}
		return out, condSym(t, &a)
	}
	if basis == nil {
		basis = train
	}
	nb := len(basis)
	kTB := mat.NewDense(n, nb, nil)
	for r, i := range train {
		for c, j := range basis {
			kTB.Set(r, c, s.kij(i, j))
		}
	}
	if !slices.Equal(basis, train) {
		return s.fitSparse(t, l, lv, kTB, basis, lambda, xn)
	}
	var sys mat.Dense
	sys.Mul(l, kTB)
	for k := 0; k < n; k++ {
		sys.Set(k, k, sys.At(k, k)+lambda)
	}
	kappa := (normInf(l)*normInf(kTB) + lambda) / lambda
	var a mat.VecDense
	if err := a.SolveVec(&sys, lv); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(xn))
	for h, x := range xn {
		for c, j := range basis {
			out[h] += s.k(x, s.x[j]) * a.AtVec(c)
		}
	}
	return out, kappa
}

// fitSparse solves the sparse model in the coordinates c = Ra of K_BB = RᵀR
// (Cholesky), where the features are the rows of Φ = K_TB·R⁻¹:
// (ΦᵀLΦ + λI) c = Φᵀb, f(x) = k_B(x)ᵀR⁻¹c. The condition number returned is
// the larger of that system's and R's, √κ(K_BB): the triangular solves that
// form the features are backward stable, so each feature row is off by
// κ(R)·ε relative.
func (s bruteRLS) fitSparse(t *testing.T, l *mat.Dense, b *mat.VecDense, kTB *mat.Dense, basis []int, lambda float64, xn [][]float64) ([]float64, float64) {
	t.Helper()
	nb := len(basis)
	kbb := mat.NewSymDense(nb, nil)
	for r, i := range basis {
		for c, j := range basis {
			kbb.SetSym(r, c, s.kij(i, j))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(kbb) {
		t.Fatal("K_BB is not positive definite")
	}
	var lt mat.TriDense
	chol.LTo(&lt) // Rᵀ
	var phiT mat.Dense
	if err := phiT.Solve(&lt, kTB.T()); err != nil { // Φᵀ = R⁻ᵀK_BT
		t.Fatal(err)
	}
	var lp, sys mat.Dense
	lp.Mul(l, phiT.T())
	sys.Mul(&phiT, &lp)
	for k := 0; k < nb; k++ {
		sys.Set(k, k, sys.At(k, k)+lambda)
	}
	var rhs, c mat.VecDense
	rhs.MulVec(&phiT, b)
	if err := c.SolveVec(&sys, &rhs); err != nil {
		t.Fatal(err)
	}
	kn := mat.NewDense(nb, len(xn), nil)
	for h, x := range xn {
		for r, j := range basis {
			kn.Set(r, h, s.k(x, s.x[j]))
		}
	}
	var phiN mat.Dense
	if err := phiN.Solve(&lt, kn); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(xn))
	for h := range xn {
		out[h] = mat.Dot(phiN.ColView(h), &c)
	}
	return out, math.Max(condSym(t, &sys), math.Sqrt(condSym(t, kbb)))
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

// rowsAt returns the rows idx of x.
func rowsAt(x [][]float64, idx []int) [][]float64 {
	out := make([][]float64, len(idx))
	for h, i := range idx {
		out[h] = x[i]
	}
	return out
}

// holdOut retrains without each fold's rows and predicts them: the pooled
// CV predictions (NaN for rows no fold holds out), and the largest condition
// number of the systems solved. basis (nil: none) is the sparse model's basis
// and policy what a fold does with its basis rows: "keep" them, or
// "remove" them from the basis.
func (s bruteRLS) holdOut(t *testing.T, loss bruteLoss, folds [][]int, basis []int, policy string, lambda float64) ([]float64, float64) {
	t.Helper()
	out := make([]float64, len(s.x))
	for i := range out {
		out[i] = math.NaN()
	}
	kmax := 0.0
	for _, f := range folds {
		var b []int
		if basis != nil {
			b = basis
			if policy == "remove" {
				b = slices.DeleteFunc(slices.Clone(basis), func(i int) bool { return slices.Contains(f, i) })
			}
		}
		p, k := s.fit(t, loss, complementOf(f, len(s.x)), b, lambda, rowsAt(s.x, f))
		kmax = math.Max(kmax, k)
		for h, i := range f {
			out[i] = p[h]
		}
	}
	return out, kmax
}

// looFolds is leave-one-out as folds.
func looFolds(m int) [][]int {
	out := make([][]int, m)
	for i := range out {
		out[i] = []int{i}
	}
	return out
}

// pooledMSE is the mean squared error over the rows with a prediction.
func pooledMSE(y, p []float64) float64 {
	s, n := 0.0, 0
	for i := range y {
		if !math.IsNaN(p[i]) {
			s += (y[i] - p[i]) * (y[i] - p[i])
			n++
		}
	}
	return s / float64(n)
}

// labelPairs are the pairs (i, j), i < j, of the rows with a prediction
// with different labels (the c-index's), and within the same query when q
// is not nil.
func labelPairs(y, p []float64, q []int) [][2]int {
	var out [][2]int
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[i] != y[j] && !math.IsNaN(p[i]) && !math.IsNaN(p[j]) && (q == nil || q[i] == q[j]) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// diffPairs are the pairs (i, j), i < j, with different labels (within the
// same query when q is not nil).
func diffPairs(y []float64, q []int) [][2]int { return labelPairs(y, make([]float64, len(y)), q) }

// posNegPairs are the (positive, negative) pairs of AUC: y_i > 0, y_j ≤ 0.
func posNegPairs(y []float64) [][2]int {
	var out [][2]int
	for i := range y {
		for j := range y {
			if y[i] > 0 && y[j] <= 0 {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// pooledShare is pairShare on pooled predictions p.
func pooledShare(pairs [][2]int, y, p []float64) float64 {
	return pairShare(pairs, y, func(i, j int) (float64, float64) { return p[i], p[j] })
}

// disagreementOf is the mean over queries with a pair of different labels
// of 1 − the c-index within the query.
func disagreementOf(y, p []float64, q []int) float64 {
	var ids []int
	for _, v := range q {
		if !slices.Contains(ids, v) {
			ids = append(ids, v)
		}
	}
	s, n := 0.0, 0
	for _, id := range ids {
		var pairs [][2]int
		for _, pr := range labelPairs(y, p, q) {
			if q[pr[0]] == id {
				pairs = append(pairs, pr)
			}
		}
		if len(pairs) > 0 {
			s += 1 - pooledShare(pairs, y, p)
			n++
		}
	}
	return s / float64(n)
}

// minGap is the smallest |p_i − p_j| over the pairs with different labels:
// an ordinal measure counts the same on predictions that are off by less
// than half of it.
func minGap(pairs [][2]int, y, p []float64) float64 {
	out := math.Inf(1)
	for _, pr := range pairs {
		if y[pr[0]] != y[pr[1]] {
			out = math.Min(out, math.Abs(p[pr[0]]-p[pr[1]]))
		}
	}
	return out
}

// oracle holds comparisons with the brute force until the largest condition
// number of the systems it solved, κmax, is known. Each side solves systems
// of condition number ≤ κmax by a backward-stable method, so a prediction's
// forward error is of order κmax·ε of the labels' scale: tolP = c·κmax·ε·scale,
// c = 1e3 by default, leaves room for the constants (rows ≤ 60, the
// shortcuts' extra products), and c·κmax·ε is asserted ≤ 1e-8 (κmax ≤ 4.5e4
// for c = 1e3), so a 1e-7 relative error still fails. An MSE moves by at most
// 2·rms(residual)·δ + δ² when every prediction moves by δ. An ordinal
// measure is a ratio of counts: equal up to its sum's rounding (1e-12) once
// no counted pair's predictions are within 1e-6·scale (≫ tolP) of a tie.
type oracle struct {
	c                float64 // the constant of the tolerance c·κmax·ε·scale
	scale, kmax, gap float64
	worst            float64 // the largest difference over its tolerance
	checks           []func(t *testing.T, tolP float64)
}

func newOracle(labels ...[]float64) *oracle {
	o := &oracle{c: 1e3, gap: math.Inf(1)}
	for _, y := range labels {
		for _, v := range y {
			o.scale = math.Max(o.scale, math.Abs(v))
		}
	}
	return o
}

// kappa records a condition number.
func (o *oracle) kappa(k float64) { o.kmax = math.Max(o.kmax, k) }

// predictions compares predictions (NaN where there is none) one by one.
func (o *oracle) predictions(what string, got, want []float64) {
	o.checks = append(o.checks, func(t *testing.T, tolP float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d predictions, want %d", what, len(got), len(want))
			return
		}
		for i := range want {
			if !math.IsNaN(want[i]) {
				o.worst = math.Max(o.worst, math.Abs(got[i]-want[i])/tolP)
			}
			if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !(math.Abs(got[i]-want[i]) <= tolP) && !math.IsNaN(want[i]) {
				t.Errorf("%s: row %d: CLI %.17g, retraining %.17g (tolerance %.2g)", what, i, got[i], want[i], tolP)
			}
		}
	})
}

// mse compares an MSE value.
func (o *oracle) mse(what string, got, want float64) {
	o.checks = append(o.checks, func(t *testing.T, tolP float64) {
		t.Helper()
		d := math.Abs(got - want)
		o.worst = math.Max(o.worst, d/(3*tolP*math.Sqrt(want)+tolP*tolP))
		if !(d <= 3*tolP*math.Sqrt(want)+tolP*tolP) {
			t.Errorf("%s: mse %.17g, retraining %.17g (tolerance %.2g)", what, got, want, 3*tolP*math.Sqrt(want)+tolP*tolP)
		}
	})
}

// ordinal compares the value of an ordinal measure; gap is the smallest
// prediction gap of a counted pair.
func (o *oracle) ordinal(what string, got, want, gap float64) {
	o.gap = math.Min(o.gap, gap)
	o.checks = append(o.checks, func(t *testing.T, _ float64) {
		t.Helper()
		if !(math.Abs(got-want) <= 1e-12) {
			t.Errorf("%s: %.17g, retraining %.17g", what, got, want)
		}
	})
}

// check runs the comparisons.
func (o *oracle) check(t *testing.T) {
	t.Helper()
	if o.c*o.kmax*eps > 1e-8 {
		t.Fatalf("condition number %g: the tolerance %g·κ·ε would be above 1e-8 of the scale", o.kmax, o.c)
	}
	if o.gap < 1e-6*o.scale {
		t.Fatalf("a counted pair's predictions are %g apart: too close to a tie for the count to be robust", o.gap)
	}
	tolP := o.c * o.kmax * eps * o.scale
	for _, c := range o.checks {
		c(t, tolP)
	}
	t.Logf("κmax %.3g, tolerance %.2g (labels' scale %.3g), %d comparisons, the largest difference %.2g of its tolerance",
		o.kmax, tolP, o.scale, len(o.checks), o.worst)
}

// pairDual trains RLS on pairs of objects from scratch: the observations
// obs (indices of a row and a column object) with labels y, the pair kernel
// kp, (K + λI) a = y by LU with K_pq = kp(obs_p, obs_q), and predicts the
// pairs pn, Σ_q a_q kp(pn_h, obs_q). It returns the predictions and the
// condition number of K + λI.
func pairDual(t *testing.T, kp func(p, q [2]int) float64, obs [][2]int, y []float64, pn [][2]int, lambda float64) ([]float64, float64) {
	t.Helper()
	n := len(obs)
	sys := mat.NewDense(n, n, nil)
	for r, p := range obs {
		for c, q := range obs {
			sys.Set(r, c, kp(p, q))
		}
		sys.Set(r, r, sys.At(r, r)+lambda)
	}
	var a mat.VecDense
	if err := a.SolveVec(sys, mat.NewVecDense(n, slices.Clone(y))); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(pn))
	for h, p := range pn {
		for c, q := range obs {
			out[h] += kp(p, q) * a.AtVec(c)
		}
	}
	return out, condSym(t, sys)
}

// scaled returns c·a.
func scaled(c float64, a mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Scale(c, a)
	return &out
}
