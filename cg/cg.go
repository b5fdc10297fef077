// Package cg trains linear RLS regression and linear RankRLS on large sparse
// data by matrix-free conjugate gradients (Pahikkala et al. 2009, sect. 4.3 "Linear large
// scale learning").
//
// With the data X (m×d, *mat.Dense or *matrix.CSR), the bias feature √Bias
// appended to every row when Bias > 0 (X̃ = [X, √Bias·1], n = d or d+1 columns)
// and the labels Y (m×t), Solve minimizes, for every output column y of Y,
//
//	J(w) = (y − X̃w)ᵀ L (y − X̃w) + λ‖w‖²,   w ∈ ℝⁿ,
//
// whose minimizer solves the symmetric positive definite normal equations
//
//	(X̃ᵀ L X̃ + λI) w = X̃ᵀ L y.
//
// L is the Laplacian of the loss:
//
//	learn.Squared     L = I          squared error Σ_i (y_i − f_i)²
//	learn.AllPairs    L = mI − 11ᵀ   all pairs, Σ_{i<j} ((y_i − y_j) − (f_i − f_j))²
//	learn.QueryPairs  L = D − PPᵀ    the same over pairs within a query; P is the m×q
//	                                  query indicator, D = diag(n_q(i)) the query sizes
//
// Neither X̃ᵀLX̃ nor L is formed: one conjugate-gradient iteration applies
// v ↦ X̃ᵀ(L(X̃v)) + λv with one product by X, one by Xᵀ and an O(m) product by L
// (m·u − (1ᵀu)1, or D·u − P(Pᵀu)), so it costs O(nnz(X) + m + d) for CSR data
// (O(m·d) dense) and O(m + n) memory besides the data. The iteration is the
// module's one conjugate-gradient loop (internal/krylov, Hestenes & Stiefel
// 1952), with its stopping rule ‖r‖ ≤ Tol·‖X̃ᵀLy‖ and its defaults (Tol 1e-10,
// MaxIter 1000), shared with pairwise.KronCG. In exact arithmetic CG reaches
// the solution in at most n iterations; in practice the number of iterations
// grows with the square root of the condition number of the system.
//
// The bias weight is regularized like every other weight, exactly as the
// linear kernel k(x, z) = x·z + Bias does in the dual, so a Solve agrees with
// rls.Fit, rank.FitGlobal and rank.FitQuery with kernel.Linear{Bias: Bias}.
// Under the ranking losses L1 = 0, so the bias weight is 0.
package cg

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/krylov"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// ErrInput is returned (wrapped) for an invalid problem or invalid options:
// λ ≤ 0 or not finite, Tol < 0 or NaN, MaxIter < 0, Y with another number of
// rows than X, a non-finite value in X or Y, Queries of the wrong length for
// learn.QueryPairs, Bias < 0 or not finite, empty data, sparse data wider than
// MaxSparseWidth and WidthPerEntry allow, and a Validation whose shapes
// do not fit or whose measure needs query ids it was not given.
var ErrInput = errors.New("cg: invalid input")

// Problem is the training data and the loss.
type Problem struct {
	// X holds the m training rows of d features: *matrix.CSR (products in O(nnz))
	// or *mat.Dense (O(m·d)); any other mat.Matrix is used through its At method.
	X mat.Matrix
	// Y holds the m×t labels; each column is solved for separately.
	Y *mat.Dense
	// Loss selects L: learn.Squared (L = I; also the zero value, NoLoss),
	// learn.AllPairs (L = mI − 11ᵀ) or learn.QueryPairs (L = D − PPᵀ).
	Loss learn.Loss
	// Learner names the learner in the predictor (default: the registered
	// learner of the loss, "rls", "globalrank" or "queryrank").
	Learner learn.Name
	// Queries holds a query id per row (learn.QueryPairs only; any ints, not necessarily
	// contiguous or sorted). Ignored by the other losses.
	Queries []int
	// Bias ≥ 0 appends the constant feature √Bias to every row (0: none), as the
	// linear kernel x·z + Bias does. Its weight is regularized.
	Bias float64
	// Outputs names the t outputs for the predictor (nil: y0, y1, …).
	Outputs []string
	// Scaler, when the rows of X were standardized by it, is recorded in the
	// predictor so that new data are scaled the same way.
	Scaler *model.Scaler
}

// Validation asks for early stopping on held-out data: every Every iterations
// (and at the last one) the current weights are scored on (X, Y) with Measure,
// output by output (a single-column Score), and the output's iteration stops
// after Patience evaluations in a row without a strict improvement. The weights
// of the best evaluation are returned. Each evaluation costs one prediction,
// O(nnz(X)) for CSR validation data, plus the measure.
type Validation struct {
	// X holds the validation rows, with as many features as the training data.
	X mat.Matrix
	// Y holds the validation labels, one column per training output.
	Y *mat.Dense
	// Queries holds a query id per validation row; required when Measure.NeedsQueries.
	Queries []int
	// Measure scores the predictions; obtain it from measure.ByName.
	Measure measure.Measure
	// Every is the number of iterations between evaluations (0: 10).
	Every int
	// Patience is the number of evaluations without improvement that stops the
	// iteration (0: 5).
	Patience int
}

// Options configure Solve.
type Options struct {
	// Lambda > 0 is the regularization parameter λ; required.
	Lambda float64
	// Tol stops an output's iteration when its residual r = X̃ᵀLy − (X̃ᵀLX̃ + λI)w
	// satisfies ‖r‖ ≤ Tol·‖X̃ᵀLy‖ (0: DefaultTol = 1e-10). The relative error
	// of the weights is then at most κ·Tol, κ the condition number of
	// X̃ᵀLX̃ + λI.
	Tol float64
	// MaxIter bounds the iterations per output (0: DefaultMaxIter = 1000).
	MaxIter int
	// Validation, when set, enables early stopping.
	Validation *Validation
}

// Defaults for the zero values of Options and Validation. DefaultTol and
// DefaultMaxIter are those of every conjugate-gradient solver of the module
// (pairwise.KronCG too).
const (
	DefaultTol      = krylov.DefaultTol
	DefaultMaxIter  = krylov.DefaultMaxIter
	DefaultEvery    = 10
	DefaultPatience = 5
)

// MaxSparseWidth and WidthPerEntry bound the width of sparse data: the
// solver keeps several vectors of the data's width (8 bytes per feature
// each), so a few rows with an svmlight index of 5·10⁹ would need tens of
// gigabytes. The width may be at most max(MaxSparseWidth, WidthPerEntry·nnz).
const (
	MaxSparseWidth = 1 << 24
	WidthPerEntry  = 16
)

// learnerName is the predictor's learner name: Problem.Learner, else the
// name conventional for the loss.
func learnerName(p Problem) learn.Name {
	if p.Learner != "" {
		return p.Learner
	}
	switch p.Loss {
	case learn.AllPairs:
		return learn.GlobalRank
	case learn.QueryPairs:
		return learn.QueryRank
	}
	return learn.RLS
}

// Result holds the solution and how each output's iteration ended.
type Result struct {
	// W holds the d×t feature weights.
	W *mat.Dense
	// B holds the t intercepts √Bias·w_bias (zeros without a bias feature).
	B []float64
	// Iterations holds the number of CG iterations run per output (0 when
	// X̃ᵀLy = 0, whose solution is w = 0).
	Iterations []int
	// Converged reports per output whether the returned weights met
	// ‖r‖ ≤ Tol·‖X̃ᵀLy‖.
	Converged []bool
	// Residual holds per output the relative residual ‖r‖/‖X̃ᵀLy‖ of the
	// returned weights, as tracked by the CG recurrence (0 when X̃ᵀLy = 0).
	Residual []float64
	// BestIteration holds per output the iteration whose weights were returned:
	// with a Validation the one with the best validation value (the earliest on
	// ties), else equal to Iterations.
	BestIteration []int

	learner learn.Name
	lambda  float64
	bias    float64
	outputs []string
	scaler  *model.Scaler
}

// Predictor returns the linear model f(x) = Wᵀx + B as a model.Predictor with
// the kernel spec linear(bias), named after the loss and carrying the problem's
// output names and scaler. W and B are copied. O(d·t).
func (r *Result) Predictor() *model.Predictor {
	d, t := r.W.Dims()
	outputs := append([]string(nil), r.outputs...)
	if len(outputs) != t {
		outputs = make([]string, t)
		for c := range outputs {
			outputs[c] = fmt.Sprintf("y%d", c)
		}
	}
	return &model.Predictor{
		Learner: string(r.learner),
		Kernel:  kernel.Spec{Name: "linear", Bias: r.bias},
		Lambda:  r.lambda,
		Width:   d,
		Outputs: outputs,
		Scaler:  r.scaler,
		W:       mat.DenseCopyOf(r.W),
		B:       append([]float64(nil), r.B...),
	}
}

// rows multiplies a data matrix and its transpose by vectors.
type rows struct {
	x    mat.Matrix
	csr  *matrix.CSR
	m, d int
}

func newRows(x mat.Matrix) rows {
	m, d := x.Dims()
	c, _ := x.(*matrix.CSR)
	return rows{x: x, csr: c, m: m, d: d}
}

// mul sets dst = X·v (len(v) = d, len(dst) = m). O(nnz) or O(m·d).
func (r rows) mul(dst, v []float64) {
	if r.csr != nil {
		r.csr.MulVec(dst, v)
		return
	}
	mat.NewVecDense(r.m, dst).MulVec(r.x, mat.NewVecDense(r.d, v))
}

// mulT sets dst = Xᵀ·z (len(z) = m, len(dst) = d). O(nnz + d) or O(m·d).
func (r rows) mulT(dst, z []float64) {
	if r.csr != nil {
		r.csr.MulTVec(dst, z)
		return
	}
	mat.NewVecDense(r.d, dst).MulVec(r.x.T(), mat.NewVecDense(r.m, z))
}

// finite reports whether every entry of X is finite: O(nnz) or O(m·d).
func (r rows) finite() bool {
	switch x := r.x.(type) {
	case *matrix.CSR:
		return allFinite(x.Values)
	case *mat.Dense:
		for i := 0; i < r.m; i++ {
			if !allFinite(x.RawRowView(i)) {
				return false
			}
		}
		return true
	}
	for i := 0; i < r.m; i++ {
		for j := 0; j < r.d; j++ {
			if v := r.x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// operator applies A = X̃ᵀLX̃ + λI.
type operator struct {
	x      rows
	n      int     // d or d+1
	sb     float64 // √Bias
	loss   learn.Loss
	qid    []int     // row → query code (learn.QueryPairs)
	qsize  []float64 // query code → size
	qsum   []float64 // scratch, per query
	lambda float64
	u      []float64 // scratch, m
}

// mulX sets dst = X̃v (len(v) = n). O(nnz + m).
func (o *operator) mulX(dst, v []float64) {
	o.x.mul(dst, v[:o.x.d])
	if o.n > o.x.d {
		c := o.sb * v[o.x.d]
		for i := range dst {
			dst[i] += c
		}
	}
}

// mulXT sets dst = X̃ᵀz (len(dst) = n). O(nnz + m + d).
func (o *operator) mulXT(dst, z []float64) {
	o.x.mulT(dst[:o.x.d], z)
	if o.n > o.x.d {
		s := 0.0
		for _, v := range z {
			s += v
		}
		dst[o.x.d] = o.sb * s
	}
}

// applyL overwrites z with Lz. O(m).
func (o *operator) applyL(z []float64) {
	switch o.loss {
	case learn.AllPairs:
		s := 0.0
		for _, v := range z {
			s += v
		}
		m := float64(len(z))
		for i, v := range z {
			z[i] = m*v - s
		}
	case learn.QueryPairs:
		clear(o.qsum)
		for i, v := range z {
			o.qsum[o.qid[i]] += v
		}
		for i, v := range z {
			c := o.qid[i]
			z[i] = o.qsize[c]*v - o.qsum[c]
		}
	}
}

// Apply sets dst = (X̃ᵀLX̃ + λI)v (the krylov.Operator). O(nnz + m + n).
func (o *operator) Apply(dst, v []float64) {
	o.mulX(o.u, v)
	o.applyL(o.u)
	o.mulXT(dst, o.u)
	for k, vk := range v {
		dst[k] += o.lambda * vk
	}
}

// rhs sets dst = X̃ᵀLy. O(nnz + m + n).
func (o *operator) rhs(dst, y []float64) {
	copy(o.u, y)
	o.applyL(o.u)
	o.mulXT(dst, o.u)
}

// validator scores weight vectors on the validation data, one output at a time.
type validator struct {
	x        rows
	sb       float64
	y        *mat.Dense // all validation labels
	yc, pc   *mat.Dense // mv×1: the current output's labels and predictions
	q        []int
	meas     measure.Measure
	every    int
	patience int
}

// score returns the measure of the predictions X̃w against output c's labels.
func (v *validator) score(w []float64) (float64, error) {
	p := v.pc.RawMatrix().Data
	v.x.mul(p, w[:v.x.d])
	if len(w) > v.x.d {
		c := v.sb * w[v.x.d]
		for i := range p {
			p[i] += c
		}
	}
	return v.meas.Score(v.yc, v.pc, v.q)
}

func (v *validator) setOutput(c int) {
	mv, _ := v.y.Dims()
	for i := 0; i < mv; i++ {
		v.yc.Set(i, 0, v.y.At(i, c))
	}
}

func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInput, fmt.Sprintf(format, args...))
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func finiteDense(y *mat.Dense) bool {
	r, _ := y.Dims()
	for i := 0; i < r; i++ {
		if !allFinite(y.RawRowView(i)) {
			return false
		}
	}
	return true
}

// check validates the problem and fills in the defaults.
func check(p *Problem, opt *Options) error {
	if p.Loss == learn.NoLoss {
		p.Loss = learn.Squared
	}
	if math.IsNaN(opt.Lambda) || opt.Lambda <= 0 || math.IsInf(opt.Lambda, 0) {
		return bad("lambda = %v, must be > 0 and finite", opt.Lambda)
	}
	if math.IsNaN(opt.Tol) || opt.Tol < 0 || math.IsInf(opt.Tol, 0) {
		return bad("tol = %v, must be > 0 (0: default %g)", opt.Tol, DefaultTol)
	}
	if opt.Tol == 0 {
		opt.Tol = DefaultTol
	}
	if opt.MaxIter < 0 {
		return bad("max iterations = %d, must be ≥ 1 (0: default %d)", opt.MaxIter, DefaultMaxIter)
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = DefaultMaxIter
	}
	if math.IsNaN(p.Bias) || p.Bias < 0 || math.IsInf(p.Bias, 0) {
		return bad("bias = %v, must be ≥ 0 and finite", p.Bias)
	}
	if p.X == nil || p.Y == nil || p.Y.IsEmpty() {
		return bad("no data")
	}
	m, d := p.X.Dims()
	if m == 0 || d == 0 {
		return bad("empty data %d×%d", m, d)
	}
	ym, _ := p.Y.Dims()
	if ym != m {
		return bad("X has %d rows, Y has %d", m, ym)
	}
	if !finiteDense(p.Y) {
		return bad("Y has a non-finite value")
	}
	if !newRows(p.X).finite() {
		return bad("X has a non-finite value")
	}
	switch p.Loss {
	case learn.Squared, learn.AllPairs:
	case learn.QueryPairs:
		if len(p.Queries) != m {
			return bad("%d query ids for %d rows", len(p.Queries), m)
		}
	default:
		return bad("loss %d has no conjugate-gradient form (want squared, all pairs or query pairs)", int(p.Loss))
	}
	if c, ok := p.X.(*matrix.CSR); ok {
		if limit := max(MaxSparseWidth, WidthPerEntry*c.NNZ()); c.C > limit {
			return bad("width %d (the largest feature index) is far beyond the %d values the data stores: "+
				"the solver keeps vectors of the full width, so it takes widths up to max(2^24, %d·values) = %d; "+
				"renumber the features densely, or use a direct solver", c.C, c.NNZ(), WidthPerEntry, limit)
		}
	}
	if opt.Validation != nil {
		return checkValidation(*opt.Validation, d, p.Y)
	}
	return nil
}

func checkValidation(v Validation, d int, y *mat.Dense) error {
	if _, err := measure.ByName(v.Measure.Name); err != nil {
		return bad("validation measure: %v", err)
	}
	if v.X == nil || v.Y == nil || v.Y.IsEmpty() {
		return bad("validation without data")
	}
	mv, dv := v.X.Dims()
	if mv == 0 || dv != d {
		return bad("validation X is %d×%d, want rows of %d features", mv, dv, d)
	}
	_, t := y.Dims()
	yr, yc := v.Y.Dims()
	if yr != mv || yc != t {
		return bad("validation Y is %d×%d, want %d×%d", yr, yc, mv, t)
	}
	if !finiteDense(v.Y) || !newRows(v.X).finite() {
		return bad("validation data has a non-finite value")
	}
	if v.Measure.NeedsQueries && v.Queries == nil {
		return bad("validation measure %s needs query ids", v.Measure.Name)
	}
	if v.Queries != nil && len(v.Queries) != mv {
		return bad("%d validation query ids for %d rows", len(v.Queries), mv)
	}
	if v.Every < 0 || v.Patience < 0 {
		return bad("validation every = %d, patience = %d, must be ≥ 1 (0: default)", v.Every, v.Patience)
	}
	return nil
}

// Solve minimizes (y − X̃w)ᵀL(y − X̃w) + λ‖w‖² for every column y of p.Y by
// conjugate gradients on (X̃ᵀLX̃ + λI)w = X̃ᵀLy from w₀ = 0 (Hestenes–Stiefel):
//
//	r₀ = p₀ = X̃ᵀLy
//	α_k = r_kᵀr_k / p_kᵀAp_k,  w_{k+1} = w_k + α_k p_k,  r_{k+1} = r_k − α_k Ap_k
//	β_k = r_{k+1}ᵀr_{k+1} / r_kᵀr_k,  p_{k+1} = r_{k+1} + β_k p_k
//
// until ‖r‖ ≤ Tol·‖X̃ᵀLy‖, MaxIter iterations, or the validation patience runs
// out (the loop is internal/krylov's, the validation its Recorder). Time
// O(t·iterations·(nnz(X) + m + d)) for CSR X (O(m·d) per iteration for dense
// X) plus the validation evaluations; memory O(m + d) besides the data and the
// d×t result. Invalid input yields an error wrapping ErrInput; a validation
// measure that fails (for example AUC on a validation column with a single
// class) is returned as its error; a step with pᵀAp ≤ 0 or not finite, which
// only overflow or extreme rounding can bring about (A ⪰ λI), is an error.
func Solve(p Problem, opt Options) (*Result, error) {
	if err := check(&p, &opt); err != nil {
		return nil, err
	}
	m, d := p.X.Dims()
	_, t := p.Y.Dims()
	o := &operator{x: newRows(p.X), n: d, loss: p.Loss, lambda: opt.Lambda, u: make([]float64, m)}
	if p.Bias > 0 {
		o.n, o.sb = d+1, math.Sqrt(p.Bias)
	}
	if p.Loss == learn.QueryPairs {
		code := map[int]int{}
		o.qid = make([]int, m)
		for i, q := range p.Queries {
			c, ok := code[q]
			if !ok {
				c = len(o.qsize)
				code[q] = c
				o.qsize = append(o.qsize, 0)
			}
			o.qid[i] = c
			o.qsize[c]++
		}
		o.qsum = make([]float64, len(o.qsize))
	}
	var val *validator
	if v := opt.Validation; v != nil {
		mv, _ := v.X.Dims()
		val = &validator{x: newRows(v.X), sb: o.sb, y: v.Y, yc: mat.NewDense(mv, 1, nil),
			pc: mat.NewDense(mv, 1, nil), q: v.Queries, meas: v.Measure, every: v.Every, patience: v.Patience}
		if val.every == 0 {
			val.every = DefaultEvery
		}
		if val.patience == 0 {
			val.patience = DefaultPatience
		}
	}
	res := &Result{W: mat.NewDense(d, t, nil), B: make([]float64, t), Iterations: make([]int, t),
		Converged: make([]bool, t), Residual: make([]float64, t), BestIteration: make([]int, t), learner: learnerName(p),
		lambda: opt.Lambda, bias: p.Bias, outputs: p.Outputs, scaler: p.Scaler}
	y := make([]float64, m)
	for c := 0; c < t; c++ {
		mat.Col(y, c, p.Y)
		if val != nil {
			val.setOutput(c)
		}
		out, err := solveOne(o, y, opt, val)
		if err != nil {
			return nil, fmt.Errorf("cg: output %d: %w", c, err)
		}
		for j := 0; j < d; j++ {
			res.W.Set(j, c, out.w[j])
		}
		if o.n > d {
			res.B[c] = o.sb * out.w[d]
		}
		res.Iterations[c], res.Converged[c], res.Residual[c], res.BestIteration[c] = out.iters, out.conv, out.res, out.best
	}
	return res, nil
}

// outcome is one output's solution.
type outcome struct {
	w     []float64
	iters int
	conv  bool
	res   float64
	best  int
}

// solveOne runs CG for one right-hand side X̃ᵀLy.
func solveOne(o *operator, y []float64, opt Options, val *validator) (outcome, error) {
	b := make([]float64, o.n)
	o.rhs(b, y)
	x := make([]float64, o.n)
	var rec krylov.Recorder
	var es *earlyStop
	if val != nil {
		es = &earlyStop{val: val, tol: opt.Tol}
		rec = es
	}
	kr, err := krylov.Solve(o, b, x, krylov.Settings{Tol: opt.Tol, MaxIter: opt.MaxIter}, rec)
	if err != nil {
		return outcome{}, err
	}
	cur := outcome{w: x, iters: kr.Iterations, conv: kr.Converged, res: kr.Residual, best: kr.Iterations}
	if es == nil || kr.Iterations == 0 {
		return cur, nil
	}
	if es.lastEval != kr.Iterations {
		if err := es.evaluate(kr.Iterations, x, kr.Residual); err != nil && !errors.Is(err, krylov.ErrStop) {
			return outcome{}, err
		}
	}
	es.best.iters = kr.Iterations
	return es.best, nil
}

// earlyStop is the krylov.Recorder of a Validation: every val.every iterations
// it scores the iterate and keeps the best one (the earliest on ties), and it
// stops the iteration (krylov.ErrStop) after val.patience evaluations in a
// row without a strict improvement. Each evaluation costs one validation
// prediction plus the measure; the iterations between evaluations cost nothing.
type earlyStop struct {
	val       *validator
	tol       float64
	best      outcome
	bestVal   float64
	haveBest  bool
	lastEval  int
	noImprove int
}

// Init resets the state.
func (e *earlyStop) Init() error {
	e.best, e.bestVal, e.haveBest, e.lastEval, e.noImprove = outcome{}, math.NaN(), false, -1, 0
	return nil
}

// Record evaluates the iterates whose number is a multiple of val.every.
func (e *earlyStop) Record(it krylov.Iteration) error {
	if it.K%e.val.every != 0 {
		return nil
	}
	return e.evaluate(it.K, it.X, it.Residual)
}

// evaluate scores iterate k (weights w, relative residual res).
func (e *earlyStop) evaluate(k int, w []float64, res float64) error {
	e.lastEval = k
	v, err := e.val.score(w)
	if err != nil {
		return fmt.Errorf("validation at iteration %d: %w", k, err)
	}
	if !e.haveBest || e.val.meas.Better(v, e.bestVal) {
		e.haveBest, e.bestVal, e.noImprove = true, v, 0
		e.best = outcome{w: append(e.best.w[:0], w...), conv: res <= e.tol, res: res, best: k}
		return nil
	}
	e.noImprove++
	if e.noImprove >= e.val.patience {
		return krylov.ErrStop
	}
	return nil
}
