package stream

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/basis"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/selection"
)

var (
	// ErrOptions is returned for options a streaming fit cannot run with.
	ErrOptions = errors.New("stream: invalid options")
	// ErrData is returned for data that do not fit the options or each other
	// (labels per row, query ids, too few rows or groups).
	ErrData = errors.New("stream: unusable data")
)

// Options configure a streaming fit.
type Options struct {
	// Learner is the learner's name, recorded in the model (and fit's JSON);
	// the computation reads only Loss.
	Learner learn.Name
	// Loss is the loss minimized: learn.Squared (RLS), learn.AllPairs
	// (global RankRLS) or learn.QueryPairs (query RankRLS); another is an
	// error naming it. Zero derives it once, at NewPlan, from Learner's
	// registered descriptor (LossOf).
	Loss learn.Loss
	// Kernel is the linear kernel (its Bias is the bias feature √bias) without
	// a basis, or any kernel over a fixed basis.
	Kernel kernel.Spec
	// BasisN > 0 draws a basis of BasisN rows at random (basis.Random with
	// Seed) from the first PilotPool(BasisN) rows; BasisRows lists basis rows
	// by 0-based position in the data (files in order). One of them, or
	// neither for the linear kernel.
	BasisN    int
	BasisRows []int
	// CV is "none", "loo", "kfold:K", "lgo" or "lqo" (selection.ParseSpec;
	// parsed once, at NewPlan). k-fold assigns a row to Fold(row, Seed, K) —
	// for the query loss a whole query to GroupFold(qid, Seed, K).
	CV   string
	Seed uint64
	// Lambdas is the λ grid (one value with CV "none").
	Lambdas []float64
	Measure measure.Measure
	// Intercept fits f(z) = zᵀw + b with b unpenalized (RLS only: the
	// rankers' pairwise losses cancel any constant): every training set —
	// every fold's, group's and row's hold-out — refits b on its own rows,
	// w = (C_T + λI)⁻¹c_T and b = ȳ_T − μ_Tᵀw from its centred statistics
	// C_T = Σzzᵀ − n_T μ_Tμ_Tᵀ, c_T = Σzyᵀ − n_T μ_T ȳ_Tᵀ (formed in
	// double-double from the accumulated sums and count; no extra pass or
	// memory). The linear kernel's bias feature gets the weight 0 beside it
	// (its centred column is 0). The model carries b as its intercept.
	Intercept bool
	// Standardize scales the features as model.FitScaler does (a first pass).
	Standardize bool
	// QueryNormalize weighs every query's pairs by 1/n_q (rank.FitQueryNormalized);
	// the query loss only.
	QueryNormalize bool
	// Outputs names the label columns (optional).
	Outputs []string
	// Interval, model.CVPlus ("cv+") with kfold:K or model.JackknifePlus
	// ("jackknife+") with loo, and the squared loss, records CV+ or
	// jackknife+ prediction intervals (Barber et al. 2021) in the model:
	// each fold's model at the chosen λ, from the statistics the
	// cross-validation solved (no refit), or each row's leave-one-out model
	// from the total's eigendecomposition, and every row's hold-out residual
	// at that λ, from one more row pass (IntervalPass; interval.go). The
	// model then holds m·(t+1) more numbers, and the jackknife+'s m models
	// of (p+1)·t (refused beyond interval.MaxNumbers). "": none.
	Interval string
}

// PilotPool is the number of leading rows a random basis of n rows is drawn
// from, and the pilot's size: max(1024, 10·n).
func PilotPool(n int) int { return max(1024, 10*n) }

// PassKind names a pass over the data.
type PassKind int

const (
	// ScalePass gathers standardization statistics (a row pass).
	ScalePass PassKind = iota + 1
	// StatsPass gathers the moments of every fold (or group, or all rows) and
	// the size of every group (a row pass).
	StatsPass
	// QueryPass gathers query ranking's statistics, one whole query at a time
	// (a group pass).
	QueryPass
	// PredictPass computes hold-out predictions: a row pass for k-fold and
	// leave-one-out, a group pass for leave-group-out and leave-query-out.
	PredictPass
	// IntervalPass computes every row's hold-out residual at the chosen λ
	// for Options.Interval (a row pass).
	IntervalPass
)

// String names the pass.
func (k PassKind) String() string {
	switch k {
	case ScalePass:
		return "standardization statistics"
	case StatsPass:
		return "statistics"
	case QueryPass:
		return "query statistics"
	case PredictPass:
		return "hold-out predictions"
	case IntervalPass:
		return "hold-out residuals"
	}
	return "pass " + strconv.Itoa(int(k))
}

// Pass is one pass over the data. A grouped pass hands the accumulator whole
// groups (every row of one query id at once, wherever they lie in the data).
type Pass struct {
	Kind    PassKind
	Grouped bool
	// Predictions says the pass's accumulators emit hold-out predictions
	// (Accumulator.Emit must be set and the rows go to a Store).
	Predictions bool
}

type schemeKind int

const (
	cvNone schemeKind = iota
	cvLOO
	cvKFold
	cvGroups
)

// Plan is a streaming fit: the passes over the data it needs, the statistics
// they gather and the models solved from them. An engine — Run for files on
// one machine, or a distributed pipeline — asks for the pilot rows, then runs
// each pass Next returns over every row with accumulators from
// NewAccumulator, merges them and hands the result to Finish; Result gives
// the cross-validation curve and the model. The engine only moves rows and
// accumulators: every number is computed here.
type Plan struct {
	opt    Options
	loss   learn.Loss // what the math reads (Options.Loss, or derived from Learner)
	scheme schemeKind
	k      int
	// twin says hold-out predictions are also computed by each path's twin
	// (path.twin) to measure their forward error: an ordinal measure.
	twin   bool
	t      int
	sparse bool
	kern   kernel.Kernel

	pilot     []Row
	basisIdx  []int
	basisRows []Row

	scaleStats *ScaleStats
	fmap       *featureMap
	shift      []float64 // feature space
	yshift     []float64
	rawShift   []float64 // data space (dense scaler)
	// zeroImage is the features of a data row of zeros (the linear kernel;
	// nil over a basis, or when they are 0): a feature equal to it in every
	// row of a training set is a constant column there (Moments.nz).
	zeroImage []float64
	p         int // feature dimension
	width     int // data width
	rows      float64

	folds      []*Moments // stats: per fold (k-fold), per group (few groups) or one total
	groupNames []string   // groups in fold order (few groups kept as folds)
	sizes      map[string]int64
	total      *Moments
	rank       []*RankMoments
	rankTotal  *RankMoments

	paths       []*path // per fold
	totalPath   *path
	needPredict bool
	// rhsErr bounds the rounding error of the accumulated right-hand side
	// (rhsError), for the twins (p×t; nil before the statistics are in).
	rhsErr *mat.Dense

	curve      []float64 // per λ
	indistinct []bool    // per λ: every output's hold-out predictions within their tolerance

	predictState
	intervalState

	next     int
	done     []Pass
	finished [][]byte // the finished passes' accumulators (Checkpoint)
}

// NewPlan checks the options and returns the plan. The engine then reads the
// first PilotRows rows and calls SetPilot.
func NewPlan(opt Options) (*Plan, error) {
	p := &Plan{opt: opt}
	loss := opt.Loss
	if loss == learn.NoLoss {
		var err error
		if loss, err = LossOf(opt.Learner); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
	} else if d, err := learn.Lookup(string(opt.Learner)); err == nil && d.Loss != loss {
		return nil, fmt.Errorf("%w: learner %s minimizes the %s loss, not the %s loss", ErrOptions, opt.Learner, d.Loss, loss)
	}
	switch loss {
	case learn.Squared, learn.AllPairs, learn.QueryPairs:
	default:
		return nil, fmt.Errorf("%w: the %s loss does not stream (want the squared, all-pairs or query-pairs loss)", ErrOptions, loss)
	}
	p.loss = loss
	k, err := kernel.New(opt.Kernel)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	p.kern = k
	hasBasis := opt.BasisN > 0 || len(opt.BasisRows) > 0
	switch {
	case opt.BasisN > 0 && len(opt.BasisRows) > 0:
		return nil, fmt.Errorf("%w: a random basis and basis rows: give one", ErrOptions)
	case opt.BasisN < 0:
		return nil, fmt.Errorf("%w: basis of %d rows", ErrOptions, opt.BasisN)
	case !hasBasis && opt.Kernel.Name != "linear":
		return nil, fmt.Errorf("%w: the %s kernel streams over a fixed basis (give a basis), only the linear kernel without one", ErrOptions, opt.Kernel.Name)
	case opt.Kernel.Name == "precomputed":
		return nil, fmt.Errorf("%w: a precomputed kernel does not stream", ErrOptions)
	case !hasBasis && opt.Kernel.Bias < 0:
		return nil, fmt.Errorf("%w: the linear kernel's bias must be ≥ 0, got %g", ErrOptions, opt.Kernel.Bias)
	}
	if len(opt.Lambdas) == 0 {
		return nil, fmt.Errorf("%w: no λ values", ErrOptions)
	}
	for _, l := range opt.Lambdas {
		if err := learn.CheckLambda(l); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	if opt.Measure.Name == "" {
		return nil, fmt.Errorf("%w: no measure", ErrOptions)
	}
	if opt.Intercept && loss != learn.Squared {
		return nil, fmt.Errorf("%w: an unpenalized intercept with the %s loss of %s: its pairwise loss cancels any constant", ErrOptions, loss, opt.Learner)
	}
	if opt.QueryNormalize && loss != learn.QueryPairs {
		return nil, fmt.Errorf("%w: query normalization is for the query loss (queryrank)", ErrOptions)
	}
	kind, kk, err := selection.ParseSpec(opt.CV)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	switch kind {
	case "none":
		p.scheme = cvNone
		if len(opt.Lambdas) != 1 {
			return nil, fmt.Errorf("%w: no cross-validation to choose among %d λ values", ErrOptions, len(opt.Lambdas))
		}
	case "loo":
		p.scheme = cvLOO
	case "lgo", "lqo":
		p.scheme = cvGroups
	case "kfold":
		p.scheme, p.k = cvKFold, kk
	default:
		return nil, fmt.Errorf("%w: cross-validation %q streams as none, loo, kfold:K, lgo or lqo", ErrOptions, opt.CV)
	}
	if opt.Measure.Name == "multiclass-accuracy" {
		return nil, fmt.Errorf("%w: multiclass-accuracy does not stream", ErrOptions)
	}
	p.twin = opt.Measure.Ordinal && p.scheme != cvNone
	if err := p.checkInterval(); err != nil {
		return nil, err
	}
	return p, nil
}

// LossOf returns the loss a learner streams: the Loss its registered
// descriptor declares (learn.Lookup), which must also declare
// learn.CanStream. The learner must be registered in the program (import
// github.com/rlskit/rlskit/learners for every learner of the module);
// otherwise give Options.Loss.
func LossOf(name learn.Name) (learn.Loss, error) {
	d, err := learn.Lookup(string(name))
	if err != nil {
		return learn.NoLoss, fmt.Errorf("no Options.Loss, and %w", err)
	}
	if err := d.Require(learn.CanStream); err != nil {
		return learn.NoLoss, err
	}
	return d.Loss, nil
}

// Loss returns the loss the plan minimizes.
func (p *Plan) Loss() learn.Loss { return p.loss }

// PilotRows returns how many leading rows (files in order) SetPilot needs:
// the pilot that fixes the shift of the statistics, and the pool of a random
// basis or the rows of a given one.
func (p *Plan) PilotRows() int {
	n := PilotPool(p.opt.BasisN)
	for _, i := range p.opt.BasisRows {
		n = max(n, i+1)
	}
	return n
}

// SetPilot takes the first rows of the data (at most PilotRows; fewer when
// the data are shorter). It fixes the number of outputs, whether the data are
// sparse, the shift of the statistics and the basis. O(pilot·d).
func (p *Plan) SetPilot(rows []Row) error {
	if len(rows) == 0 {
		return fmt.Errorf("%w: no data rows", ErrData)
	}
	n := min(len(rows), PilotPool(p.opt.BasisN))
	var idx []int
	switch {
	case p.opt.BasisN > 0:
		if p.opt.BasisN > n {
			return fmt.Errorf("%w: a basis of %d rows drawn from the first %d rows: the data have %d", ErrData, p.opt.BasisN, PilotPool(p.opt.BasisN), n)
		}
		var err error
		if idx, err = basis.Random(n, p.opt.BasisN, p.opt.Seed); err != nil {
			return fmt.Errorf("%w: %w", ErrData, err)
		}
	case len(p.opt.BasisRows) > 0:
		idx = p.opt.BasisRows
	}
	var brows []Row
	for _, i := range idx {
		if i < 0 || i >= len(rows) {
			return fmt.Errorf("%w: basis row %d outside the %d rows of the data", ErrData, i, len(rows))
		}
		brows = append(brows, rows[i])
	}
	return p.setPilot(rows[:n], brows, idx)
}

func (p *Plan) setPilot(pilot, brows []Row, idx []int) error {
	p.pilot, p.basisRows, p.basisIdx = pilot, brows, append([]int(nil), idx...)
	p.t = len(pilot[0].Y)
	p.sparse = pilot[0].Index != nil
	if p.t == 0 {
		return fmt.Errorf("%w: rows without labels", ErrData)
	}
	seen := map[int]bool{}
	for _, i := range idx {
		if seen[i] {
			return fmt.Errorf("%w: basis row %d given twice", ErrData, i)
		}
		seen[i] = true
	}
	if !p.sparse {
		p.rawShift = meanRows(p.pilot, 0)
	}
	return nil
}

// Basis returns the basis rows (0-based positions in the data), nil without a basis.
func (p *Plan) Basis() []int { return p.basisIdx }

// meanRows returns the mean of the rows' features (width at least w).
func meanRows(rows []Row, w int) []float64 {
	for _, r := range rows {
		w = max(w, r.Width())
	}
	mean := make([]float64, w)
	for _, r := range rows {
		for n, v := range r.Value {
			j := n
			if r.Index != nil {
				j = r.Index[n]
			}
			mean[j] += v / float64(len(rows)) // divided first: no overflow near 1e308
		}
	}
	return mean
}

// Next returns the next pass to run, or false when the fit needs no more.
func (p *Plan) Next() (Pass, bool) {
	var order []Pass
	if p.opt.Standardize {
		order = append(order, Pass{Kind: ScalePass})
	}
	order = append(order, Pass{Kind: StatsPass})
	if p.loss == learn.QueryPairs {
		order = append(order, Pass{Kind: QueryPass, Grouped: true})
	}
	if p.next < len(order) {
		return order[p.next], true
	}
	if p.needPredict {
		grouped := p.scheme == cvGroups && p.paths == nil || p.scheme == cvLOO && p.loss == learn.QueryPairs
		order = append(order, Pass{Kind: PredictPass, Grouped: grouped, Predictions: p.opt.Measure.Name != "mse"})
	}
	if p.opt.Interval != "" {
		order = append(order, Pass{Kind: IntervalPass})
	}
	if p.next < len(order) {
		return order[p.next], true
	}
	return Pass{}, false
}

// GroupSizes returns the number of rows of every group (after the
// statistics pass): an engine that groups rows itself needs them to know when
// a group is complete.
func (p *Plan) GroupSizes() map[string]int64 { return p.sizes }

// Outputs returns t, the number of labels per row (after SetPilot).
func (p *Plan) Outputs() int { return p.t }

// Lambdas returns the grid.
func (p *Plan) Lambdas() []float64 { return p.opt.Lambdas }

// prepare builds the feature map and the shifts once the scaler is known.
func (p *Plan) prepare() error {
	fm := &featureMap{}
	if p.scaleStats != nil {
		fm.scaler = p.scaleStats.Scaler()
	}
	if p.basisRows != nil {
		fm.kern = p.kern
		w := 1 // basis rows without features are zero in a column
		for _, r := range p.basisRows {
			w = max(w, r.Width())
		}
		if p.scaleStats != nil {
			w = max(w, p.scaleStats.Width)
		}
		pts := rowsMatrix(p.basisRows, p.sparse, w)
		if fm.scaler != nil {
			var err error
			if pts, err = fm.scaler.Transform(pts); err != nil {
				return err
			}
		}
		fm.points = pts
		wm, err := newBasisMap(p.kern, pts)
		if err != nil {
			return err
		}
		fm.wmap = wm
	}
	p.fmap = fm
	p.zeroImage = nil
	if fm.kern == nil && fm.scaler != nil && fm.scaler.Mean != nil {
		// a centring scaler maps the zeros of a row to −mean/scale
		zi, err := fm.apply(mat.NewDense(1, len(fm.scaler.Mean), nil))
		if err != nil {
			return err
		}
		p.zeroImage = zi.RawRowView(0)
	}
	z, err := p.features(p.pilot, 0)
	if err != nil {
		return err
	}
	r, c := z.Dims()
	p.shift = make([]float64, c)
	for i := 0; i < r; i++ {
		for j, v := range z.RawRowView(i) {
			p.shift[j] += v
		}
	}
	for j := range p.shift {
		p.shift[j] /= float64(r)
	}
	p.yshift = make([]float64, p.t)
	for _, row := range p.pilot {
		for c, v := range row.Y {
			p.yshift[c] += v
		}
	}
	for c := range p.yshift {
		p.yshift[c] /= float64(len(p.pilot))
	}
	return nil
}

// features maps rows to dense features, at least pad columns wide.
func (p *Plan) features(rows []Row, pad int) (*mat.Dense, error) {
	w := 0
	for _, r := range rows {
		w = max(w, r.Width())
	}
	return p.matrixFeatures(rowsMatrix(rows, p.sparse, w), pad)
}

func (p *Plan) matrixFeatures(x mat.Matrix, pad int) (*mat.Dense, error) {
	if xc, ok := x.(*matrix.CSR); ok && xc.C == 0 {
		// label-only rows (svmlight rows without features, as scikit-learn
		// writes all-zero rows) before any feature of their file: the chunk
		// has no columns, which no matrix can hold — it is zero in every one
		wide := *xc
		wide.C = max(pad, 1)
		x = &wide
	}
	if xc, ok := x.(*matrix.CSR); ok && p.fmap.scaler != nil && len(p.fmap.scaler.Index) > 0 {
		// a sparse row is zero beyond its last index: widen the chunk to the scaler's features
		if last := p.fmap.scaler.Index[len(p.fmap.scaler.Index)-1]; xc.C <= last {
			wide := *xc
			wide.C = last + 1
			x = &wide
		}
	}
	if xc, ok := x.(*matrix.CSR); ok && p.fmap.scaler != nil && xc.C < len(p.fmap.scaler.Mean) {
		// sparse rows centred (they store most entries): zero beyond their last index
		wide := *xc
		wide.C = len(p.fmap.scaler.Mean)
		x = &wide
	}
	if p.fmap.scaler != nil && p.fmap.scaler.Mean != nil {
		// a centring scaler has the data's width: narrower dense rows cannot occur
		if _, d := x.Dims(); d != len(p.fmap.scaler.Mean) {
			return nil, fmt.Errorf("%w: a row of %d features, the data have %d", ErrData, d, len(p.fmap.scaler.Mean))
		}
	}
	z, err := p.fmap.apply(x)
	if err != nil {
		return nil, err
	}
	r, c := z.Dims()
	if c >= pad {
		return z, nil
	}
	out := mat.NewDense(r, pad, nil)
	out.Slice(0, r, 0, c).(*mat.Dense).Copy(z)
	return out, nil
}

// Finish takes the merged accumulator of the pass just run (and, for a pass
// with Predictions, the store its predictions went to).
func (p *Plan) Finish(a *Accumulator, store *Store) error {
	pass, ok := p.Next()
	if !ok || a.Kind != pass.Kind {
		return fmt.Errorf("%w: finishing a %s pass, the plan expects %v", ErrOptions, a.Kind, pass.Kind)
	}
	enc, err := a.MarshalBinary()
	if err != nil {
		return err
	}
	if a.Kind != ScalePass && p.fmap == nil {
		if err := p.prepare(); err != nil {
			return err
		}
	}
	if err := p.finish(a, store); err != nil {
		return err
	}
	p.finished = append(p.finished, enc)
	p.done = append(p.done, pass)
	p.next++
	return nil
}

func (p *Plan) finish(a *Accumulator, store *Store) error {
	switch a.Kind {
	case ScalePass:
		p.scaleStats = a.scale
		p.scaleStats.shift = p.rawShift
		return nil
	case StatsPass:
		return p.finishStats(a)
	case QueryPass:
		return p.finishQueries(a)
	case IntervalPass:
		return p.finishInterval(a)
	case PredictPass:
		if store != nil {
			v, ind, err := store.ScoreWithin(p.opt.Measure, p.tolerances(a.tol))
			if err != nil {
				return fmt.Errorf("%s: %w", p.opt.CV, err)
			}
			p.curve, p.indistinct = v, ind
			return nil
		}
		return p.curveFromSSE(a.sse)
	}
	return fmt.Errorf("%w: unknown pass %d", ErrOptions, a.Kind)
}

func (p *Plan) finishStats(a *Accumulator) error {
	a.flush()
	p.rows, p.width, p.p = a.rows, a.width, a.p
	if p.p == 0 || p.width == 0 {
		return fmt.Errorf("%w: the rows have no features", ErrData)
	}
	if p.rows < 2 {
		return fmt.Errorf("%w: %g rows, need at least 2", ErrData, p.rows)
	}
	p.sizes = a.sizes
	if err := p.checkIntervalSize(); err != nil {
		return err
	}
	if p.loss == learn.QueryPairs {
		if p.scheme == cvGroups || p.scheme == cvKFold {
			usable := 0
			for _, n := range p.sizes {
				if n > 1 {
					usable++
				}
			}
			if usable < 2 {
				return fmt.Errorf("%w: %s: %d queries with two or more rows; leaving queries out needs 2", ErrData, p.opt.CV, usable)
			}
		}
		return nil
	}
	p.total = NewMoments(p.p, p.t)
	for _, f := range a.folds {
		if err := p.total.Merge(f); err != nil {
			return err
		}
	}
	for _, g := range sortedKeys(a.groups) {
		if err := p.total.Merge(a.groups[g]); err != nil {
			return err
		}
	}
	switch p.scheme {
	case cvKFold:
		p.folds = a.folds
	case cvGroups:
		if len(p.sizes) < 2 {
			return fmt.Errorf("%w: %s: %d group(s); leaving groups out needs 2", ErrData, p.opt.CV, len(p.sizes))
		}
		if a.groups != nil { // few groups: their moments were kept, they are the folds
			names := make([]string, 0, len(a.groups))
			for g := range a.groups {
				names = append(names, g)
			}
			sort.Strings(names)
			p.groupNames = names
			for _, g := range names {
				p.folds = append(p.folds, a.groups[g])
			}
		}
	}
	for _, f := range p.folds {
		f.grow(p.p)
	}
	p.total.grow(p.p)
	p.rhsErr = rhsError(p.p, p.t, blockRows, func(j int) float64 { return p.total.zzAt(j, j).float() }, p.total.yy.floats())
	if p.folds != nil {
		if err := p.foldPaths(func(f int) (*path, error) {
			return p.twinned(newPath(p.loss, p.total.Minus(p.folds[f]), p.shift, p.yshift, p.zeroImage, p.bias(), p.opt.Intercept, p.opt.Lambdas))
		}); err != nil {
			return err
		}
	}
	switch {
	case p.scheme == cvNone:
		p.curve = []float64{math.NaN()}
	case p.folds != nil && p.opt.Measure.Name == "mse":
		sum := make([][]float64, len(p.opt.Lambdas))
		for l := range sum {
			sum[l] = make([]float64, p.t)
		}
		fa := newAcc(len(p.opt.Lambdas) * p.t)
		for f, fm := range p.folds {
			if fm.N == 0 {
				continue
			}
			w, b := p.paths[f].shifted(p.shift)
			for l, v := range sse(fm, w, b, p.yshift) {
				for c, x := range v {
					fa.addF(l*p.t+c, x)
				}
			}
		}
		return p.curveFromSSE(fa)
	case p.scheme == cvLOO:
		tp, err := p.twinned(newPath(p.loss, p.total, p.shift, p.yshift, p.zeroImage, p.bias(), p.opt.Intercept, p.opt.Lambdas))
		if err != nil {
			return err
		}
		p.totalPath = tp
		p.needPredict = true
	default:
		p.needPredict = true
	}
	return nil
}

// foldPaths solves every non-empty fold's training set.
func (p *Plan) foldPaths(solve func(f int) (*path, error)) error {
	n := len(p.folds)
	if n == 0 {
		n = len(p.rank)
	}
	p.paths = make([]*path, n)
	for f := range p.paths {
		var rows float64
		if p.folds != nil {
			rows = p.folds[f].N
		} else {
			rows = p.rank[f].N
		}
		if rows == 0 {
			continue
		}
		if rows >= p.rows {
			return fmt.Errorf("%w: %s: fold %d holds all %g rows", ErrData, p.opt.CV, f, p.rows)
		}
		pa, err := solve(f)
		if err != nil {
			return fmt.Errorf("fold %d: %w", f, err)
		}
		p.paths[f] = pa
	}
	return nil
}

// twinned gives a path its twin (path.twin) when the plan measures the
// forward error of its hold-out predictions.
func (p *Plan) twinned(pa *path, err error) (*path, error) {
	if err != nil || pa == nil {
		return pa, err
	}
	if p.twin {
		if pa.tw, err = pa.twin(p.rhsErr); err != nil {
			return nil, err
		}
	}
	pa.sys = nil // the twin is made: the matrix is not needed again
	return pa, nil
}

// rhsError is, entry by entry, about the rounding error of the accumulated
// right-hand side c = Σ z'y'ᵀ (B for the query loss) of a training set:
// each entry was summed in float64 blocks of block rows before the blocks'
// sums were added in double-double, an error of at most
// block·ε·Σ|z'_j y'_k| and typically, rounding errors of either sign adding
// up like a random walk,
//
//	√block·ε·(Σ z'_j² · Σ y'_k²)^{1/2}  ≥  √block·ε·Σ|z'_j y'_k|
//
// (Cauchy–Schwarz; zz(j) = Σ z'_j², yy[k] = Σ y'_k² over all rows, about the
// shift or each query's mean: at least those of any training set). A
// path's twin moves its right-hand side by that much (path.twin), as it
// moves its eigenvalues by about theirs: where c is itself rounding noise —
// features that carry no information — the twin's predictions then differ
// from the path's as much as the noise does. O(p·t).
func rhsError(p, t, block int, zz func(j int) float64, yy []float64) *mat.Dense {
	out := mat.NewDense(max(p, 1), max(t, 1), nil)
	scale := math.Sqrt(float64(block)) * 2.220446049250313e-16
	for j := 0; j < p; j++ {
		for k := 0; k < t; k++ {
			out.Set(j, k, scale*math.Sqrt(math.Max(zz(j), 0)*math.Max(yy[k], 0)))
		}
	}
	return out
}

// tolerances splits the prediction pass's tie tolerances (selection.NoiseTolerance
// of every row's predictions against its twin's, the largest over rows;
// λ-major, t per λ) per λ: nil without a twin.
func (p *Plan) tolerances(tol []float64) [][]float64 {
	if !p.twin || len(tol) != len(p.opt.Lambdas)*p.t {
		return nil
	}
	out := make([][]float64, len(p.opt.Lambdas))
	for l := range out {
		out[l] = tol[l*p.t : (l+1)*p.t]
	}
	return out
}

func (p *Plan) finishQueries(a *Accumulator) error {
	p.rankTotal = NewRankMoments(p.p, p.t)
	for _, r := range a.rank {
		r.grow(p.p)
		if err := p.rankTotal.Merge(r); err != nil {
			return err
		}
	}
	rt := p.rankTotal
	p.rhsErr = rhsError(p.p, p.t, queryRows, func(j int) float64 { return rt.h.at(j*rt.P + j).float() }, rt.yy.floats())
	switch p.scheme {
	case cvNone:
		p.curve = []float64{math.NaN()}
		return nil
	case cvKFold:
		p.rank = a.rank
		if err := p.foldPaths(func(f int) (*path, error) {
			return p.twinned(newQueryPath(p.rankTotal.Minus(p.rank[f]), p.opt.Lambdas))
		}); err != nil {
			return err
		}
	case cvLOO:
		if p.opt.QueryNormalize { // every row's hold-out is a rank-one downdate of H itself
			tp, err := p.twinned(newQueryPath(p.rankTotal, p.opt.Lambdas))
			if err != nil {
				return err
			}
			p.totalPath = tp
		}
	}
	p.needPredict = true
	return nil
}

// bias is the linear kernel's bias for the linear features, 0 over a basis
// (the basis kernel carries any bias itself).
func (p *Plan) bias() float64 {
	if p.basisRows != nil {
		return 0
	}
	return p.opt.Kernel.Bias
}

// curveFromSSE turns pooled squared errors into the mse curve: per λ the
// mean over outputs of SSE/m.
func (p *Plan) curveFromSSE(a acc) error {
	p.curve = make([]float64, len(p.opt.Lambdas))
	for l := range p.curve {
		v := 0.0
		for c := 0; c < p.t; c++ {
			v += a.at(l*p.t+c).float() / p.rows
		}
		p.curve[l] = v / float64(p.t)
		if math.IsNaN(p.curve[l]) || math.IsInf(p.curve[l], 0) {
			return fmt.Errorf("%w: mse %v at λ = %g (rescale the features, e.g. standardize them)", ErrNonFinite, p.curve[l], p.opt.Lambdas[l])
		}
	}
	return nil
}

// Result is a streaming fit's outcome.
type Result struct {
	// Curve is the CV curve (value NaN without cross-validation), Best its
	// best point (ties: the larger λ) at index BestIndex. For an ordinal
	// measure, hold-out predictions within their forward error of each other
	// are ties (the one tie rule, selection.ScoreWithin, with tolerances
	// measured by each path's twin), and a point whose predictions are all
	// within it is Indistinguishable.
	Curve     []selection.Point
	Best      selection.Point
	BestIndex int
	// Predictor is the model trained on every row at the best λ.
	Predictor *model.Predictor
	// Rows, Width (features of a data row), Features (p, the dimension of the
	// statistics), Outputs and Groups (distinct query ids, counted when the fit
	// uses them; 0 otherwise) describe the data; SingleRowGroups have no pairs.
	Rows, Width, Features, Outputs, Groups, SingleRowGroups int
	// Basis lists the basis rows (nil without a basis).
	Basis []int
	// OnEdge lists λ when the chosen value is the smallest or largest of
	// its grid, in any order (selection.GridEdge): the optimum may lie
	// beyond it. Nil without cross-validation.
	OnEdge []selection.Edge
	// Passes are the passes run.
	Passes []Pass
}

// Result returns the curve and the model at the best λ, trained on every row.
// O(p³ + p²t) for the final model.
func (p *Plan) Result() (*Result, error) {
	if _, more := p.Next(); more || p.curve == nil {
		return nil, fmt.Errorf("%w: the plan's passes are not all finished", ErrOptions)
	}
	res := &Result{BestIndex: -1, Rows: int(p.rows), Width: p.width, Features: p.p, Outputs: p.t, Groups: len(p.sizes), Basis: p.basisIdx, Passes: p.done}
	for _, n := range p.sizes {
		if n == 1 {
			res.SingleRowGroups++
		}
	}
	meas := p.opt.Measure
	for l, lambda := range p.opt.Lambdas {
		pt := selection.Point{Lambda: lambda, Value: p.curve[l]}
		if p.indistinct != nil {
			pt.Indistinguishable = p.indistinct[l]
		}
		res.Curve = append(res.Curve, pt)
		if res.BestIndex < 0 || meas.Better(pt.Value, res.Best.Value) || (pt.Value == res.Best.Value && lambda > res.Best.Lambda) {
			res.BestIndex, res.Best = l, pt
		}
	}
	if p.scheme != cvNone {
		if e, ok := selection.GridEdge("lambda", p.opt.Lambdas, res.Best.Lambda); ok {
			res.OnEdge = []selection.Edge{e}
		}
	}
	best := []float64{res.Best.Lambda}
	var pa *path
	var err error
	if p.loss == learn.QueryPairs {
		pa, err = newQueryPath(p.rankTotal, best)
	} else {
		pa, err = newPath(p.loss, p.total, p.shift, p.yshift, p.zeroImage, p.bias(), p.opt.Intercept, best)
	}
	if err != nil {
		return nil, err
	}
	res.Predictor = p.predictor(pa)
	if err := p.attachInterval(res.Predictor); err != nil {
		return nil, err
	}
	return res, nil
}

// predictor builds the model.Predictor of a path's single λ: primal weights
// with the bias weight last for the linear kernel, coefficients over the basis
// otherwise.
func (p *Plan) predictor(pa *path) *model.Predictor {
	w, beta := pa.w[0], pa.beta[0]
	_, t := w.Dims()
	e := model.Expansion{Learner: string(p.opt.Learner), Kernel: p.kern, Lambda: pa.lambdas[0], Width: p.width,
		Outputs: p.outputNames(), Coef: nil}
	if p.fmap.scaler != nil {
		e.Scaler = p.fmap.scaler
	}
	if p.basisRows != nil {
		e.Points = p.fmap.points
		if c, ok := e.Points.(*matrix.CSR); ok && c.C < p.width {
			// sparse basis rows narrower than the data (a sparse row is zero
			// beyond its last index): the model's points have the data's
			// width, as a model read from JSON has
			wide := *c
			wide.C = p.width
			e.Points = &wide
		}
		e.Coef = mulDense(p.fmap.wmap, w)
		return p.withIntercept(model.New(e), pa)
	}
	b := p.opt.Kernel.Bias
	rows := p.width
	if b != 0 {
		rows++
	}
	coef := mat.NewDense(rows, t, nil)
	for j := 0; j < p.width && j < p.p; j++ {
		coef.SetRow(j, w.RawRowView(j)[:t])
	}
	if b != 0 && p.loss == learn.Squared && !pa.intercept { // beside an intercept the bias weight is 0
		sb := math.Sqrt(b)
		for c := 0; c < t; c++ {
			mw := 0.0
			for j, m := range pa.mu {
				mw += m * w.At(j, c)
			}
			coef.Set(p.width, c, (beta[c]-mw)/sb)
		}
	}
	e.Coef, e.Primal, e.Bias = coef, true, b
	return p.withIntercept(model.New(e), pa)
}

// withIntercept adds the path's unpenalized intercept b = β − μᵀw (per
// output) to pr, when the path has one. O(p·t).
func (p *Plan) withIntercept(pr *model.Predictor, pa *path) *model.Predictor {
	if !pa.intercept {
		return pr
	}
	w, beta := pa.w[0], pa.beta[0]
	_, t := w.Dims()
	b := make([]float64, t)
	for c := range b {
		mw := 0.0
		for j, m := range pa.mu {
			mw += m * w.At(j, c)
		}
		b[c] = beta[c] - mw
	}
	pr.AddIntercept(b)
	return pr
}

func (p *Plan) outputNames() []string {
	if len(p.opt.Outputs) == p.t {
		return p.opt.Outputs
	}
	out := make([]string, p.t)
	for c := range out {
		out[c] = "y" + strconv.Itoa(c)
	}
	return out
}

func mulDense(a, b *mat.Dense) *mat.Dense {
	var out mat.Dense
	out.Mul(a, b)
	return &out
}

// checkpoint is the plan's state as an engine's workers rebuild it.
type checkpoint struct {
	Options   Options
	Measure   string
	Pilot     [][]byte
	BasisRows [][]byte
	BasisIdx  []int
	Finished  [][]byte
}

// Checkpoint encodes the plan — its options, the pilot and basis rows and the
// merged accumulators of the passes finished — so that a worker of a
// distributed engine rebuilds the same plan with Resume (replaying the
// solves: O(K·p³)) and accumulates the next pass.
func (p *Plan) Checkpoint() ([]byte, error) {
	cp := checkpoint{Options: p.opt, Measure: p.opt.Measure.Name, Finished: p.finished, BasisIdx: p.basisIdx}
	cp.Options.Measure = measure.Measure{}
	for _, r := range p.pilot {
		cp.Pilot = append(cp.Pilot, EncodeRow(r))
	}
	for _, r := range p.basisRows {
		cp.BasisRows = append(cp.BasisRows, EncodeRow(r))
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(cp); err != nil {
		return nil, fmt.Errorf("stream: checkpoint: %w", err)
	}
	return buf.Bytes(), nil
}

// Resume rebuilds a plan from a Checkpoint.
func Resume(b []byte) (*Plan, error) {
	var cp checkpoint
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&cp); err != nil {
		return nil, fmt.Errorf("stream: checkpoint: %w", err)
	}
	meas, err := measure.ByName(cp.Measure)
	if err != nil {
		return nil, err
	}
	cp.Options.Measure = meas
	p, err := NewPlan(cp.Options)
	if err != nil {
		return nil, err
	}
	decode := func(enc [][]byte) ([]Row, error) {
		var rows []Row
		for _, e := range enc {
			r, err := DecodeRow(e)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
		return rows, nil
	}
	pilot, err := decode(cp.Pilot)
	if err != nil {
		return nil, err
	}
	brows, err := decode(cp.BasisRows)
	if err != nil {
		return nil, err
	}
	if len(pilot) == 0 {
		return nil, fmt.Errorf("stream: checkpoint without pilot rows")
	}
	if err := p.setPilot(pilot, brows, cp.BasisIdx); err != nil {
		return nil, err
	}
	for _, enc := range cp.Finished {
		a := &Accumulator{plan: p}
		if err := a.UnmarshalBinary(enc); err != nil {
			return nil, err
		}
		if a.Kind == PredictPass {
			break
		}
		if err := p.Finish(a, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}
