package stream

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/selection"
)

// maxGroupBytes bounds the memory leave-group-out spends on keeping every
// group's moments from the statistics pass (then the groups are folds and
// need no grouped pass); beyond it, and beyond maxGroupMoments groups, the
// hold-outs are computed one whole group at a time in a grouped pass.
const (
	maxGroupBytes   = 256 << 20
	maxGroupMoments = 64
)

// Accumulator gathers one pass's statistics over a share of the rows; the
// accumulators of a pass merge (Merge) in any order and encode
// (MarshalBinary) for engines that move them between machines.
type Accumulator struct {
	Kind PassKind
	// Emit receives the hold-out predictions of a pass with Predictions.
	Emit func(Prediction) error

	plan   *Plan
	scale  *ScaleStats
	folds  []*Moments
	groups map[string]*Moments // leave-group-out: per-group moments while they are few
	sizes  map[string]int64
	rows   float64
	width  int
	p      int
	rank   []*RankMoments
	sse    acc
	// tol is, per λ and output (λ-major), the largest tie tolerance of the
	// rows' hold-out predictions (selection.NoiseTolerance against the
	// paths' twins); nil without a twin.
	tol []float64
	// dropped says some share of the rows gave its per-group moments up (too
	// many groups) and added them to folds[0].
	dropped bool
	// ivFold and ivRes are the interval pass's rows: each row's fold and
	// its t hold-out residuals at the chosen λ (interval.go).
	ivFold []int32
	ivRes  []float64
	// ivLoo is, for the jackknife+, each row's leave-one-out update (p + 1
	// + t numbers: V M a_i, its constant, q_i; interval.go).
	ivLoo []float64
}

// NewAccumulator returns an empty accumulator for the pass Next returned.
func (p *Plan) NewAccumulator() (*Accumulator, error) {
	pass, ok := p.Next()
	if !ok {
		return nil, fmt.Errorf("%w: the plan needs no more passes", ErrOptions)
	}
	if pass.Kind != ScalePass && p.fmap == nil {
		if err := p.prepare(); err != nil {
			return nil, err
		}
	}
	a := &Accumulator{Kind: pass.Kind, plan: p}
	switch pass.Kind {
	case ScalePass:
		a.scale = newScaleStats(p.sparse, p.rawShift)
	case StatsPass:
		a.sizes = map[string]int64{}
		if p.loss != learn.QueryPairs {
			n := 1
			if p.scheme == cvKFold {
				n = p.k
			}
			for range n {
				a.folds = append(a.folds, NewMoments(0, p.t))
			}
			if p.scheme == cvGroups {
				a.groups = map[string]*Moments{}
			}
		}
	case QueryPass:
		n := 1
		if p.scheme == cvKFold {
			n = p.k
		}
		for range n {
			a.rank = append(a.rank, NewRankMoments(p.p, p.t))
		}
	case PredictPass:
		a.sse = newAcc(len(p.opt.Lambdas) * p.t)
		if p.twin {
			a.tol = make([]float64, len(p.opt.Lambdas)*p.t)
		}
		p.prepOnce.Do(p.prepPredict)
	case IntervalPass:
		p.ivOnce.Do(p.prepInterval)
	}
	return a, nil
}

// needsGroups reports whether the rows must carry query ids.
func (p *Plan) needsGroups() bool {
	return p.scheme == cvGroups || p.loss == learn.QueryPairs || p.opt.Measure.NeedsQueries
}

// rowView is row i of a chunk, sharing its storage.
func rowView(d *dataset.Data, i int) Row {
	r := Row{Y: d.Y.RawRowView(i)}
	if d.Queries != nil {
		r.Group = d.QueryNames[d.Queries[i]]
	}
	switch x := d.X.(type) {
	case *matrix.CSR:
		r.Index, r.Value = x.Row(i)
		if r.Index == nil {
			r.Index = []int{}
		}
	case *mat.Dense:
		r.Value = x.RawRowView(i)
	default:
		r.Value = mat.Row(nil, i, x)
	}
	return r
}

// check refuses a chunk that does not fit the plan.
func (a *Accumulator) check(d *dataset.Data) error {
	p := a.plan
	if d.Y == nil {
		return fmt.Errorf("%w: rows without labels", ErrData)
	}
	if _, t := d.Y.Dims(); t != p.t {
		return fmt.Errorf("%w: rows of %d labels; the first rows have %d", ErrData, t, p.t)
	}
	if _, ok := d.X.(*matrix.CSR); ok != p.sparse {
		return fmt.Errorf("%w: sparse (svmlight) and dense (CSV) inputs mixed", ErrData)
	}
	if p.needsGroups() && d.Queries == nil {
		return fmt.Errorf("%w: rows without query ids (qid: in svmlight, a query column in CSV): %s needs them", ErrData, p.needsWhat())
	}
	return nil
}

func (p *Plan) needsWhat() string {
	switch {
	case p.loss == learn.QueryPairs:
		return string(p.opt.Learner) + " (the query-pairs loss)"
	case p.scheme == cvGroups:
		return p.opt.CV
	}
	return "the measure " + p.opt.Measure.Name
}

// AddChunk adds the rows of a chunk read by package dataset (a row pass).
func (a *Accumulator) AddChunk(d *dataset.Data) error {
	if err := a.check(d); err != nil {
		return err
	}
	p := a.plan
	m, w := d.X.Dims()
	a.rows += float64(m)
	a.width = max(a.width, w)
	switch a.Kind {
	case ScalePass:
		a.scale.add(d.X)
		return nil
	case StatsPass:
		return a.addStats(d)
	case PredictPass:
		if p.scheme == cvGroups && p.paths == nil {
			return fmt.Errorf("%w: the leave-group-out predictions take whole groups (AddGroup)", ErrOptions)
		}
		z, err := p.matrixFeatures(d.X, p.p)
		if err != nil {
			return err
		}
		rows := make([]Row, m)
		for i := range rows {
			rows[i] = rowView(d, i)
		}
		return a.predictRows(z, rows)
	case IntervalPass:
		z, err := p.matrixFeatures(d.X, p.p)
		if err != nil {
			return err
		}
		rows := make([]Row, m)
		for i := range rows {
			rows[i] = rowView(d, i)
		}
		return a.residualRows(z, rows)
	}
	return fmt.Errorf("%w: the %s pass takes whole groups (AddGroup)", ErrOptions, a.Kind)
}

func (a *Accumulator) addStats(d *dataset.Data) error {
	p := a.plan
	m, _ := d.X.Dims()
	if p.needsGroups() {
		for i := 0; i < m; i++ {
			a.sizes[d.QueryNames[d.Queries[i]]]++
		}
	}
	if p.loss == learn.QueryPairs {
		a.p = max(a.p, a.featureDim(d.X))
		return nil
	}
	// at least as wide as the shift: a chunk whose rows lack the last features
	// (sparse rows) still has them, at −z₀ in shifted coordinates
	z, err := p.matrixFeatures(d.X, len(p.shift))
	if err != nil {
		return err
	}
	_, c := z.Dims()
	a.p = max(a.p, c)
	targets := make(map[*Moments][]int)
	var order []*Moments
	for i := 0; i < m; i++ {
		var t *Moments
		switch {
		case p.scheme == cvKFold:
			t = a.folds[Fold(rowView(d, i), p.opt.Seed, p.k)]
		case a.groups != nil:
			g := d.QueryNames[d.Queries[i]]
			if t = a.groups[g]; t == nil {
				t = NewMoments(0, p.t)
				a.groups[g] = t
			}
		default:
			t = a.folds[0]
		}
		if targets[t] == nil {
			order = append(order, t)
		}
		targets[t] = append(targets[t], i)
	}
	for _, t := range order {
		addRows(t, z, d.Y, targets[t], p.shift, p.yshift, p.zeroImage)
	}
	a.capGroups()
	return nil
}

// featureDim is the dimension of the features of rows of the chunk x.
func (a *Accumulator) featureDim(x mat.Matrix) int {
	if a.plan.fmap.wmap != nil {
		_, k := a.plan.fmap.wmap.Dims()
		return k
	}
	_, w := x.Dims()
	return w
}

// capGroups gives up per-group moments when they are too many: their sums
// go to the total, and the hold-outs are then computed group by group.
func (a *Accumulator) capGroups() {
	if a.groups == nil {
		return
	}
	if len(a.groups) <= maxGroupMoments && len(a.groups)*a.p*a.p*16 <= maxGroupBytes {
		return
	}
	a.dropGroups()
}

func (a *Accumulator) dropGroups() {
	for _, g := range sortedKeys(a.groups) {
		_ = a.folds[0].Merge(a.groups[g])
	}
	a.groups = nil
	a.dropped = true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// addRows adds the rows idx of the features z and labels y, shifted, to m in
// blocks of blockRows, counting per feature the rows whose feature is not
// ref's (the features of a row of zeros; nil: 0).
func addRows(m *Moments, z, y *mat.Dense, idx []int, shift, yshift, ref []float64) {
	_, c := z.Dims()
	_, t := y.Dims()
	for lo := 0; lo < len(idx); lo += blockRows {
		hi := min(lo+blockRows, len(idx))
		zb := mat.NewDense(hi-lo, c, nil)
		yb := mat.NewDense(hi-lo, t, nil)
		nz := make([]float64, c)
		for r, i := range idx[lo:hi] {
			zr, yr := zb.RawRowView(r), yb.RawRowView(r)
			copy(zr, z.RawRowView(i))
			for j := range zr {
				r := 0.0
				if j < len(ref) {
					r = ref[j]
				}
				if zr[j] != r {
					nz[j]++
				}
				if j < len(shift) {
					zr[j] -= shift[j]
				}
			}
			for k, v := range y.RawRowView(i)[:t] {
				yr[k] = v - yshift[k]
			}
		}
		m.addBlockNZ(zb, yb, nz)
	}
}

// AddGroup adds one whole group: every row of one query id (a grouped pass).
func (a *Accumulator) AddGroup(rows []Row) error {
	p := a.plan
	if len(rows) == 0 {
		return nil
	}
	g := rows[0].Group
	for _, r := range rows {
		if r.Group != g {
			return fmt.Errorf("%w: a group of query %q holds a row of query %q", ErrData, g, r.Group)
		}
		if len(r.Y) != p.t {
			return fmt.Errorf("%w: query %q: a row of %d labels; the first rows have %d", ErrData, g, len(r.Y), p.t)
		}
	}
	if want, ok := p.sizes[g]; ok && want != int64(len(rows)) {
		return fmt.Errorf("%w: query %q has %d rows in this pass and had %d in the first (the data changed between passes)", ErrData, g, len(rows), want)
	} else if !ok {
		return fmt.Errorf("%w: query %q was not in the data's first pass (the data changed between passes)", ErrData, g)
	}
	z, err := p.features(rows, p.p)
	if err != nil {
		return fmt.Errorf("query %q: %w", g, err)
	}
	for _, r := range rows {
		a.width = max(a.width, r.Width())
	}
	a.rows += float64(len(rows))
	y := mat.NewDense(len(rows), p.t, nil)
	for i, r := range rows {
		y.SetRow(i, r.Y)
	}
	switch a.Kind {
	case QueryPass:
		f := 0
		if p.scheme == cvKFold {
			f = GroupFold(g, p.opt.Seed, p.k)
		}
		a.rank[f].addQuery(z, y, p.opt.QueryNormalize)
		return nil
	case PredictPass:
		if p.scheme == cvLOO {
			return a.queryLeaveOneOut(z, y, rows)
		}
		pa, err := p.groupPath(z, y, rows)
		if err != nil {
			return fmt.Errorf("query %q: %w", g, err)
		}
		if pa == nil {
			m := p.totalWB()
			if p.totalErr != nil {
				return p.totalErr
			}
			return a.predictWith(z, rows, m)
		}
		return a.predictWith(z, rows, p.stack(pa))
	}
	return fmt.Errorf("%w: the %s pass takes chunks of rows (AddChunk)", ErrOptions, a.Kind)
}

// groupPath solves the training set without one group: O(n_g·p² + p³ + Λ·p²t).
// A query without pairs (one row) leaves query ranking's model unchanged: nil.
func (p *Plan) groupPath(z, y *mat.Dense, rows []Row) (*path, error) {
	if p.loss == learn.QueryPairs {
		if len(rows) < 2 {
			return nil, nil
		}
		h, b := p.rankTotal.withoutQuery(z, y, p.opt.QueryNormalize)
		return p.twinned(queryPath(h, b, p.rankTotal.N-float64(len(rows)), p.opt.Lambdas))
	}
	gm := NewMoments(p.p, p.t)
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	addRows(gm, z, y, idx, p.shift, p.yshift, p.zeroImage)
	if p.rows-gm.N < 2 {
		return nil, fmt.Errorf("%w: %s: %g rows left to train on", ErrData, p.opt.CV, p.rows-gm.N)
	}
	return p.twinned(newPath(p.loss, p.total.Minus(gm), p.shift, p.yshift, p.zeroImage, p.bias(), p.opt.Intercept, p.opt.Lambdas))
}

// wb is a path's weights stacked for prediction: f = z'ᵀW + b for shifted
// rows z', every λ at once (W is p×Λt), followed by its twin's (then W is
// p×2Λt). The rankers' are unshifted — f = zᵀW, b = 0, as their models have
// no intercept — so a row of zeros is predicted exactly 0, as in memory
// (ties among such rows are exact).
type wb struct {
	w         *mat.Dense
	b         []float64
	unshifted bool
}

// stack is the path's stacked weights, and its twin's when it has one.
func (p *Plan) stack(pa *path) wb {
	if pa.loss != learn.Squared {
		w, b := pa.w, make([][]float64, len(pa.w))
		if pa.tw != nil {
			w = append(append([]*mat.Dense(nil), w...), pa.tw.w...)
			b = append(b, make([][]float64, len(pa.tw.w))...)
		}
		for l := range b {
			_, t := w[l].Dims()
			b[l] = make([]float64, t)
		}
		out := stackWB(w, b)
		out.unshifted = true
		return out
	}
	w, b := pa.shifted(p.shift)
	if pa.tw != nil {
		w2, b2 := pa.tw.shifted(p.shift)
		w, b = append(w, w2...), append(b, b2...)
	}
	return stackWB(w, b)
}

func stackWB(ws []*mat.Dense, bs [][]float64) wb {
	p, t := ws[0].Dims()
	out := wb{w: mat.NewDense(p, len(ws)*t, nil), b: make([]float64, len(ws)*t)}
	for l, w := range ws {
		out.w.Slice(0, p, l*t, (l+1)*t).(*mat.Dense).Copy(w)
		copy(out.b[l*t:], bs[l])
	}
	return out
}

// totalWB is the model of all rows (a query without pairs held out changes nothing).
func (p *Plan) totalWB() wb {
	p.totalOnce.Do(func() {
		pa, err := p.twinned(newQueryPath(p.rankTotal, p.opt.Lambdas))
		if err != nil {
			p.totalErr = err
			return
		}
		p.totalModel = p.stack(pa)
	})
	return p.totalModel
}

// prepPredict stacks the folds' weights once for the row predictions.
func (p *Plan) prepPredict() {
	p.foldWB = make([]wb, len(p.paths))
	for f, pa := range p.paths {
		if pa != nil {
			p.foldWB[f] = p.stack(pa)
		}
	}
	if p.groupNames != nil {
		p.groupIndex = map[string]int{}
		for f, g := range p.groupNames {
			p.groupIndex[g] = f
		}
	}
}

// shiftRows returns z − z₀ (a copy).
func (p *Plan) shiftRows(z *mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(z)
	r, _ := out.Dims()
	for i := 0; i < r; i++ {
		row := out.RawRowView(i)
		for j := range row {
			if j < len(p.shift) {
				row[j] -= p.shift[j]
			}
		}
	}
	return out
}

// predictWith predicts every row of z with one stacked model (and its
// twin) and scores them.
func (a *Accumulator) predictWith(z *mat.Dense, rows []Row, m wb) error {
	zs := z
	if !m.unshifted {
		zs = a.plan.shiftRows(z)
	}
	pred := linalg.Mul(false, false, zs, m.w)
	r, _ := pred.Dims()
	n := len(a.plan.opt.Lambdas) * a.plan.t
	for i := 0; i < r; i++ {
		row := pred.RawRowView(i)
		for k := range row {
			row[k] += m.b[k]
		}
		var twin []float64
		if len(row) > n {
			twin = row[n:]
		}
		if err := a.score(rows[i], row[:n], twin); err != nil {
			return err
		}
	}
	return nil
}

// predictRows computes the hold-out predictions of a chunk's rows (row pass).
func (a *Accumulator) predictRows(z *mat.Dense, rows []Row) error {
	p := a.plan
	if p.scheme == cvLOO {
		return a.leaveOneOut(z, rows)
	}
	byFold := map[int][]int{}
	var order []int
	for i, r := range rows {
		var f int
		switch {
		case p.loss == learn.QueryPairs:
			f = GroupFold(r.Group, p.opt.Seed, p.k)
		case p.groupIndex != nil:
			f = p.groupIndex[r.Group]
		default:
			f = Fold(r, p.opt.Seed, p.k)
		}
		if byFold[f] == nil {
			order = append(order, f)
		}
		byFold[f] = append(byFold[f], i)
	}
	_, c := z.Dims()
	for _, f := range order {
		idx := byFold[f]
		zf := mat.NewDense(len(idx), c, nil)
		rf := make([]Row, len(idx))
		for n, i := range idx {
			zf.SetRow(n, z.RawRowView(i))
			rf[n] = rows[i]
		}
		if err := a.predictWith(zf, rf, p.foldWB[f]); err != nil {
			return err
		}
	}
	return nil
}

// leaveOneOut computes exact leave-one-out predictions from the total path
// (and, with a twin, the twin's from the twin's path: same rotation).
func (a *Accumulator) leaveOneOut(z *mat.Dense, rows []Row) error {
	p := a.plan
	pa := p.totalPath
	r, c := z.Dims()
	zc := mat.DenseCopyOf(z)
	for i := 0; i < r; i++ {
		row := zc.RawRowView(i)
		for j := 0; j < c; j++ {
			row[j] -= pa.mu[j]
		}
	}
	g := linalg.Mul(false, false, zc, pa.v) // r×p: Vᵀ(z_i − μ)
	var zv, zv2 *mat.Dense                  // the rankers: Vᵀz_i (a row of zeros predicts exactly 0)
	if pa.loss == learn.AllPairs {
		zv = linalg.Mul(false, false, z, pa.v)
	}
	n := len(p.opt.Lambdas) * p.t
	out := make([]float64, n)
	var twin, ys []float64
	var g2 *mat.Dense
	if pa.tw != nil {
		twin, ys = make([]float64, n), make([]float64, p.t)
		zc2 := mat.DenseCopyOf(z) // about the twin's mean
		for i := 0; i < r; i++ {
			row := zc2.RawRowView(i)
			for j := 0; j < c; j++ {
				row[j] -= pa.tw.mu[j]
			}
		}
		g2 = linalg.Mul(false, false, zc2, pa.tw.v) // the twin's rotation
		if zv != nil {
			zv2 = linalg.Mul(false, false, z, pa.tw.v)
		}
	}
	row := func(m *mat.Dense, i int) []float64 {
		if m == nil {
			return nil
		}
		return m.RawRowView(i)
	}
	for i := 0; i < r; i++ {
		gi := g.RawRowView(i)
		y := rows[i].Y
		pa.leaveOneOut(gi, row(zv, i), y, out)
		if twin != nil {
			for k, v := range y {
				ys[k] = v * selection.TwinScale
			}
			pa.tw.leaveOneOut(g2.RawRowView(i), row(zv2, i), ys, twin)
		}
		if err := a.score(rows[i], out, twin); err != nil {
			return err
		}
	}
	return nil
}

// leaveOneOut writes the leave-one-out predictions of one row (every λ,
// λ-major) into out, from gi = Vᵀ(z_i − μ), for the all-pairs loss zi =
// Vᵀz_i, and the row's labels y.
//
// Squared loss: with h_i = z_iᵀ(S + λI)⁻¹z_i the leverage (in centred
// coordinates h_i = aᵀM a + b/(bn+λ), a = Vᵀ(z_i − μ) + κVᵀμ, M = (D + ρṽṽᵀ)⁻¹
// by Sherman–Morrison; with an unpenalized intercept ρ = κ = 0 and the last
// term is 1/n, the leverage of the centred ridge with its intercept) and ŷ_i
// the fitted value, f₋ᵢ = y_i − (y_i − ŷ_i)/(1 − h_i) (Rifkin & Lippert 2007,
// LOOE).
//
// All-pairs loss: without row i the training set has n−1 rows and
// H₋ᵢ = (n−1)C − n x'x'ᵀ, b₋ᵢ = (n−1)c − n x'y'ᵀ (x' = z_i − μ, y' = y_i − ȳ):
// a rank-one downdate of (n−1)C, solved by Sherman–Morrison on its
// eigenvectors; the prediction z_iᵀw is formed from Vᵀz_i itself, so that a
// row of zeros is predicted exactly 0. O(p·t) per λ.
func (pa *path) leaveOneOut(gi, zi, y, out []float64) {
	t := len(y)
	pp := len(pa.e)
	n := pa.n
	for l, lambda := range pa.lambdas {
		wt := pa.wt[l]
		switch pa.loss {
		case learn.Squared:
			rho, kappa, _ := pa.rhoKappa(lambda)
			var adv, ada, vdv float64
			for k := 0; k < pp; k++ {
				d := pa.e[k] + lambda
				ak := gi[k] + kappa*pa.vmu[k]
				ada += ak * ak / d
				adv += ak * pa.vmu[k] / d
				vdv += pa.vmu[k] * pa.vmu[k] / d
			}
			gamma := rho / (1 + rho*vdv)
			h := ada - gamma*adv*adv + pa.constLeverage(lambda)
			for cc := 0; cc < t; cc++ {
				fit := pa.beta[l][cc]
				for k := 0; k < pp; k++ {
					fit += gi[k] * wt.At(k, cc)
				}
				out[l*t+cc] = y[cc] - (y[cc]-fit)/(1-h)
			}
		case learn.AllPairs:
			// (D' − n uuᵀ)⁻¹ with D' = (n−1)e + λ, u = g_i
			var udu, zdu float64
			for k := 0; k < pp; k++ {
				d := (n-1)*pa.e[k] + lambda
				udu += gi[k] * gi[k] / d
				zdu += zi[k] * gi[k] / d
			}
			den := 1 - n*udu
			for cc := 0; cc < t; cc++ {
				yp := y[cc] - pa.ybar[cc]
				// x = D'⁻¹b̃, b̃ = (n−1)Vᵀc − n u y'
				var ux, zx float64
				for k := 0; k < pp; k++ {
					d := (n-1)*pa.e[k] + lambda
					xk := ((n-1)*pa.rt.At(k, cc) - n*gi[k]*yp) / d
					ux += gi[k] * xk
					zx += zi[k] * xk
				}
				// w = x + n D'⁻¹u (uᵀx)/den; prediction (Vᵀz_i)ᵀw
				out[l*t+cc] = zx + n*zdu*ux/den
			}
		}
	}
}

// score adds one row's hold-out predictions (every λ) to the squared errors
// and emits them when the measure needs them all. twin, when set, holds the
// twin's predictions of the row: their difference, turned into a tie
// tolerance by selection.NoiseTolerance, raises the pass's tolerances.
func (a *Accumulator) score(r Row, pred, twin []float64) error {
	t := a.plan.t
	for k, v := range pred {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: output %d is %v at λ = %g (rescale the features, e.g. standardize them)", ErrNonFinite, k%t, v, a.plan.opt.Lambdas[k/t])
		}
		d := r.Y[k%t] - v
		sq, e := twoProd(d, d)
		a.sse.addDD(k, dd{sq, e})
	}
	if twin != nil && a.tol != nil {
		n := len(pred)
		for k, v := range selection.NoiseTolerance(mat.NewDense(1, n, pred), mat.NewDense(1, n, twin)) {
			a.tol[k] = math.Max(a.tol[k], v)
		}
	}
	if a.Emit != nil {
		return a.Emit(Prediction{Y: append([]float64(nil), r.Y...), Group: r.Group, P: append([]float64(nil), pred...)})
	}
	if a.plan.opt.Measure.Name != "mse" {
		return fmt.Errorf("%w: the measure %s needs every prediction: set Accumulator.Emit", ErrOptions, a.plan.opt.Measure.Name)
	}
	return nil
}

// Merge adds other (the same pass over other rows) to a.
func (a *Accumulator) Merge(o *Accumulator) error {
	if o.Kind != a.Kind {
		return fmt.Errorf("%w: merging a %s accumulator into a %s one", ErrOptions, o.Kind, a.Kind)
	}
	a.rows += o.rows
	a.width = max(a.width, o.width)
	a.p = max(a.p, o.p)
	if o.scale != nil {
		if a.scale == nil {
			a.scale = newScaleStats(o.scale.Sparse, o.scale.shift)
		}
		a.scale.Merge(o.scale)
	}
	if len(o.folds) != len(a.folds) && len(o.folds) > 0 || len(o.rank) != len(a.rank) && len(o.rank) > 0 {
		return fmt.Errorf("%w: merging accumulators of different folds", ErrOptions)
	}
	a.dropped = a.dropped || o.dropped
	a.ivFold, a.ivRes, a.ivLoo = append(a.ivFold, o.ivFold...), append(a.ivRes, o.ivRes...), append(a.ivLoo, o.ivLoo...)
	for f := range o.folds {
		if err := a.folds[f].Merge(o.folds[f]); err != nil {
			return err
		}
	}
	for f := range o.rank {
		if err := a.rank[f].Merge(o.rank[f]); err != nil {
			return err
		}
	}
	if o.sizes != nil {
		if a.sizes == nil {
			a.sizes = map[string]int64{}
		}
		for g, n := range o.sizes {
			a.sizes[g] += n
		}
	}
	switch {
	case a.groups != nil && o.groups != nil:
		for _, g := range sortedKeys(o.groups) {
			if m := a.groups[g]; m != nil {
				_ = m.Merge(o.groups[g])
			} else {
				a.groups[g] = o.groups[g].Clone()
			}
		}
		a.capGroups()
	case a.groups != nil && o.dropped: // o gave them up: so must a
		a.dropGroups()
	case o.groups != nil:
		for _, g := range sortedKeys(o.groups) {
			_ = a.folds[0].Merge(o.groups[g])
		}
	}
	if o.sse.len() > 0 {
		if a.sse.len() == 0 {
			a.sse = newAcc(o.sse.len())
		}
		a.sse.merge(o.sse)
	}
	if len(o.tol) > 0 {
		if len(a.tol) == 0 {
			a.tol = make([]float64, len(o.tol))
		}
		if len(a.tol) != len(o.tol) {
			return fmt.Errorf("%w: merging tolerances of %d and %d values", ErrOptions, len(o.tol), len(a.tol))
		}
		for k, v := range o.tol {
			a.tol[k] = math.Max(a.tol[k], v)
		}
	}
	return nil
}

// flush completes the accumulator before it is read.
func (a *Accumulator) flush() {}

// wire is an Accumulator's encoded form.
type wire struct {
	Kind                 PassKind
	Rows                 float64
	Width, P             int
	Scale                []byte
	Folds, Rank          [][]byte
	GroupNames           []string
	Groups               [][]byte
	HasGroups            bool
	SizeNames            []string
	Sizes                []int64
	SSE                  []byte
	HasScale, HasSizeMap bool
	Dropped              bool
	Tol                  []float64
	IvFold               []int32
	IvRes                []float64
	IvLoo                []float64
}

// MarshalBinary encodes the accumulator (gob of its sums, each packed
// little-endian).
func (a *Accumulator) MarshalBinary() ([]byte, error) {
	w := wire{Kind: a.Kind, Rows: a.rows, Width: a.width, P: a.p, Dropped: a.dropped, Tol: a.tol, IvFold: a.ivFold, IvRes: a.ivRes, IvLoo: a.ivLoo}
	if a.scale != nil {
		w.HasScale = true
		w.Scale, _ = a.scale.MarshalBinary()
	}
	for _, f := range a.folds {
		b, _ := f.MarshalBinary()
		w.Folds = append(w.Folds, b)
	}
	for _, r := range a.rank {
		b, _ := r.MarshalBinary()
		w.Rank = append(w.Rank, b)
	}
	if a.groups != nil {
		w.HasGroups = true
		for _, g := range sortedKeys(a.groups) {
			b, _ := a.groups[g].MarshalBinary()
			w.GroupNames, w.Groups = append(w.GroupNames, g), append(w.Groups, b)
		}
	}
	if a.sizes != nil {
		w.HasSizeMap = true
		for _, g := range sortedKeys(a.sizes) {
			w.SizeNames, w.Sizes = append(w.SizeNames, g), append(w.Sizes, a.sizes[g])
		}
	}
	w.SSE = appendAcc(nil, a.sse)
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(w); err != nil {
		return nil, fmt.Errorf("stream: encoding an accumulator: %w", err)
	}
	return buf.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary wrote. The accumulator must come
// from the same plan's NewAccumulator (or Plan.DecodeAccumulator).
func (a *Accumulator) UnmarshalBinary(b []byte) error {
	var w wire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return fmt.Errorf("stream: decoding an accumulator: %w", err)
	}
	plan := a.plan
	if len(w.IvFold) == 0 && len(w.IvRes) != 0 || len(w.IvFold) > 0 && len(w.IvRes)%len(w.IvFold) != 0 {
		return errCorrupt
	}
	*a = Accumulator{Kind: w.Kind, plan: plan, rows: w.Rows, width: w.Width, p: w.P, dropped: w.Dropped, tol: w.Tol, ivFold: w.IvFold, ivRes: w.IvRes, ivLoo: w.IvLoo}
	if w.HasScale {
		a.scale = &ScaleStats{}
		if err := a.scale.UnmarshalBinary(w.Scale); err != nil {
			return err
		}
		if plan != nil {
			a.scale.shift = plan.rawShift
		}
	}
	for _, f := range w.Folds {
		m := &Moments{}
		if err := m.UnmarshalBinary(f); err != nil {
			return err
		}
		a.folds = append(a.folds, m)
	}
	for _, r := range w.Rank {
		m := &RankMoments{}
		if err := m.UnmarshalBinary(r); err != nil {
			return err
		}
		a.rank = append(a.rank, m)
	}
	if w.HasGroups {
		a.groups = map[string]*Moments{}
		for n, g := range w.GroupNames {
			m := &Moments{}
			if err := m.UnmarshalBinary(w.Groups[n]); err != nil {
				return err
			}
			a.groups[g] = m
		}
	}
	if w.HasSizeMap {
		a.sizes = make(map[string]int64, len(w.SizeNames))
		for n, g := range w.SizeNames {
			a.sizes[g] = w.Sizes[n]
		}
	}
	if len(w.SSE)%16 != 0 {
		return errCorrupt
	}
	a.sse = newAcc(len(w.SSE) / 16)
	readAcc(w.SSE, 0, a.sse)
	return nil
}

// DecodeAccumulator decodes an accumulator encoded by MarshalBinary for this plan.
func (p *Plan) DecodeAccumulator(b []byte) (*Accumulator, error) {
	a := &Accumulator{plan: p}
	if err := a.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return a, nil
}

// predictState is what the predict pass shares between accumulators.
type predictState struct {
	prepOnce   sync.Once
	foldWB     []wb
	groupIndex map[string]int
	totalOnce  sync.Once
	totalModel wb
	totalErr   error
}

// Piece is one keyed part of an accumulator — the statistics of one fold
// ("fold/3"), one query fold ("rank/0"), one group ("group/<id>"), or the rest
// ("meta": row counts, group sizes, squared errors, standardization sums) — so
// that an engine can combine a pass's statistics per key in parallel
// (MergePieces) before the driver joins them (Plan.Join).
type Piece struct {
	Key  string
	Data []byte
}

type pieceWire struct {
	Kind  string // fold, rank, group, meta
	Index int
	Name  string
	Data  []byte
}

// TakePieces returns the accumulator's pieces and empties it, so that one
// accumulator can serve many elements of a pipeline (each element's pieces
// emitted as it is done). O(size of the statistics).
func (a *Accumulator) TakePieces() ([]Piece, error) {
	pieces, err := a.Pieces()
	if err != nil {
		return nil, err
	}
	p := a.plan
	for f, m := range a.folds {
		if m.N != 0 {
			a.folds[f] = NewMoments(0, p.t)
		}
	}
	for f, m := range a.rank {
		if m.N != 0 {
			a.rank[f] = NewRankMoments(p.p, p.t)
		}
	}
	if a.groups != nil {
		a.groups = map[string]*Moments{}
	}
	if a.sizes != nil {
		a.sizes = map[string]int64{}
	}
	if a.scale != nil {
		a.scale = newScaleStats(a.scale.Sparse, a.scale.shift)
	}
	a.sse = newAcc(a.sse.len())
	if a.tol != nil {
		a.tol = make([]float64, len(a.tol))
	}
	a.rows, a.dropped = 0, false
	a.ivFold, a.ivRes, a.ivLoo = nil, nil, nil
	return pieces, nil
}

// Pieces splits the accumulator into keyed pieces. O(size of the statistics).
func (a *Accumulator) Pieces() ([]Piece, error) {
	var out []Piece
	add := func(key string, w pieceWire) error {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(w); err != nil {
			return fmt.Errorf("stream: encoding a piece: %w", err)
		}
		out = append(out, Piece{Key: key, Data: buf.Bytes()})
		return nil
	}
	for f, m := range a.folds {
		if m.N == 0 {
			continue
		}
		b, _ := m.MarshalBinary()
		if err := add(fmt.Sprintf("fold/%d", f), pieceWire{Kind: "fold", Index: f, Data: b}); err != nil {
			return nil, err
		}
	}
	for f, m := range a.rank {
		if m.N == 0 {
			continue
		}
		b, _ := m.MarshalBinary()
		if err := add(fmt.Sprintf("rank/%d", f), pieceWire{Kind: "rank", Index: f, Data: b}); err != nil {
			return nil, err
		}
	}
	for _, g := range sortedKeys(a.groups) {
		b, _ := a.groups[g].MarshalBinary()
		if err := add("group/"+g, pieceWire{Kind: "group", Name: g, Data: b}); err != nil {
			return nil, err
		}
	}
	meta := &Accumulator{Kind: a.Kind, rows: a.rows, width: a.width, p: a.p, scale: a.scale, sizes: a.sizes, sse: a.sse, dropped: a.dropped, tol: a.tol, ivFold: a.ivFold, ivRes: a.ivRes, ivLoo: a.ivLoo}
	b, err := meta.MarshalBinary()
	if err != nil {
		return nil, err
	}
	if err := add("meta", pieceWire{Kind: "meta", Data: b}); err != nil {
		return nil, err
	}
	return out, nil
}

func decodePiece(b []byte) (pieceWire, error) {
	var w pieceWire
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&w); err != nil {
		return w, fmt.Errorf("stream: decoding a piece: %w", err)
	}
	return w, nil
}

// MergePieces combines two pieces of the same key (the statistics of
// disjoint rows). O(size of the statistics).
func MergePieces(x, y []byte) ([]byte, error) {
	a, err := decodePiece(x)
	if err != nil {
		return nil, err
	}
	b, err := decodePiece(y)
	if err != nil {
		return nil, err
	}
	if a.Kind != b.Kind || a.Index != b.Index || a.Name != b.Name {
		return nil, fmt.Errorf("%w: merging pieces %s/%d/%q and %s/%d/%q", ErrOptions, a.Kind, a.Index, a.Name, b.Kind, b.Index, b.Name)
	}
	switch a.Kind {
	case "fold", "group":
		a.Data, err = mergeEncoded[Moments](a.Data, b.Data)
	case "rank":
		a.Data, err = mergeEncoded[RankMoments](a.Data, b.Data)
	case "meta":
		a.Data, err = mergeEncoded[Accumulator](a.Data, b.Data)
	default:
		return nil, fmt.Errorf("%w: unknown piece %q", ErrOptions, a.Kind)
	}
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(a); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// mergeable is a statistic that merges with another of its type and travels encoded.
type mergeable[T any] interface {
	*T
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	Merge(*T) error
}

// mergeEncoded decodes two encoded statistics of type T, merges them and
// encodes the sum.
func mergeEncoded[T any, P mergeable[T]](a, b []byte) ([]byte, error) {
	m, n := P(new(T)), P(new(T))
	if err := m.UnmarshalBinary(a); err != nil {
		return nil, err
	}
	if err := n.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	if err := m.Merge((*T)(n)); err != nil {
		return nil, err
	}
	return m.MarshalBinary()
}

// Join assembles the accumulator of the pass Next returned from its pieces
// (each key once, or any number of times: pieces of one key are merged).
func (p *Plan) Join(pieces []Piece) (*Accumulator, error) {
	a, err := p.NewAccumulator()
	if err != nil {
		return nil, err
	}
	var groups []pieceWire
	for _, pc := range pieces {
		w, err := decodePiece(pc.Data)
		if err != nil {
			return nil, err
		}
		switch w.Kind {
		case "fold", "group":
			m := &Moments{}
			if err := m.UnmarshalBinary(w.Data); err != nil {
				return nil, err
			}
			if w.Kind == "group" {
				groups = append(groups, w)
				continue
			}
			if w.Index < 0 || w.Index >= len(a.folds) {
				return nil, fmt.Errorf("%w: piece of fold %d, the pass has %d", ErrOptions, w.Index, len(a.folds))
			}
			if err := a.folds[w.Index].Merge(m); err != nil {
				return nil, err
			}
		case "rank":
			m := &RankMoments{}
			if err := m.UnmarshalBinary(w.Data); err != nil {
				return nil, err
			}
			if w.Index < 0 || w.Index >= len(a.rank) {
				return nil, fmt.Errorf("%w: piece of query fold %d, the pass has %d", ErrOptions, w.Index, len(a.rank))
			}
			if err := a.rank[w.Index].Merge(m); err != nil {
				return nil, err
			}
		case "meta":
			m := &Accumulator{plan: p}
			if err := m.UnmarshalBinary(w.Data); err != nil {
				return nil, err
			}
			if m.Kind != a.Kind {
				return nil, fmt.Errorf("%w: a %s piece in a %s pass", ErrOptions, m.Kind, a.Kind)
			}
			if err := a.Merge(m); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("%w: unknown piece %q", ErrOptions, w.Kind)
		}
	}
	for _, w := range groups {
		m := &Moments{}
		if err := m.UnmarshalBinary(w.Data); err != nil {
			return nil, err
		}
		switch {
		case a.groups == nil && len(a.folds) > 0:
			_ = a.folds[0].Merge(m)
		case a.groups == nil:
			return nil, fmt.Errorf("%w: a group piece in a pass without groups", ErrOptions)
		case a.groups[w.Name] != nil:
			_ = a.groups[w.Name].Merge(m)
		default:
			a.groups[w.Name] = m
		}
	}
	if a.dropped && a.groups != nil {
		a.dropGroups()
	}
	a.capGroups()
	return a, nil
}

// queryLeaveOneOut predicts every row of one query from the query ranker
// trained without the row — without every pair the row is in (Pahikkala et
// al. 2008, Theorem 1). With d = z_i − z̄_q, e = y_i − ȳ_q, C_q and c_q the
// query's scatter and cross-products about its mean, the query's term n_q·C_q
// becomes (n_q − 1)·C_{q∖i}, so
//
//	H₋ᵢ = (H − C_q) − n_q·d dᵀ,   B₋ᵢ = (B − c_q) − n_q·d eᵀ,
//
// and normalized (every query's pairs weighted 1/n_q), C_q becomes C_{q∖i}:
//
//	H₋ᵢ = H − n_q/(n_q − 1)·d dᵀ,  B₋ᵢ = B − n_q/(n_q − 1)·d eᵀ.
//
// Each is a rank-one downdate (Sherman–Morrison) of a base matrix
// eigendecomposed once — H − C_q per query (O(p³), as leave-query-out), or H
// itself when normalized — then O(p²) per row and O(p·t) per row and λ. The
// eigenvalues of the base at or below p·ε·max are dropped as in the fit
// (d has no part in that null space: it is centred within the query).
func (a *Accumulator) queryLeaveOneOut(z, y *mat.Dense, rows []Row) error {
	p := a.plan
	nq := len(rows)
	t := p.t
	nl := len(p.opt.Lambdas)
	if nq < 2 { // no pairs: the model of every row
		m := p.totalWB()
		if p.totalErr != nil {
			return p.totalErr
		}
		return a.predictWith(z, rows, m)
	}
	var pa *path
	coef := float64(nq) / float64(nq-1)
	if p.opt.QueryNormalize {
		pa = p.totalPath
	} else {
		// base: H − C_q, B − c_q (the query's unweighted terms)
		unw := NewRankMoments(p.p, p.t)
		queryTerms(z, y, true, func(g, c *mat.Dense, w float64) {
			P, T := unw.P, unw.T
			pp, _ := g.Dims()
			for i := 0; i < pp; i++ {
				for j := i; j < pp; j++ {
					unw.h.addF(i*P+j, g.At(i, j))
				}
				for k := 0; k < T; k++ {
					unw.b.addF(i*T+k, c.At(i, k))
				}
			}
		})
		h, b := p.rankTotal.Minus(unw).matrices()
		var err error
		if pa, err = p.twinned(queryPath(h, b, p.rankTotal.N, p.opt.Lambdas)); err != nil {
			return err
		}
		coef = float64(nq)
	}
	zc, yc := centreRows(z), centreRows(y)
	g := linalg.Mul(false, false, zc, pa.v) // Vᵀd per row
	zv := linalg.Mul(false, false, z, pa.v) // Vᵀz per row (z unshifted features)
	out := make([]float64, nl*t)
	var twin, es []float64
	var g2, zv2 *mat.Dense
	if pa.tw != nil {
		twin, es = make([]float64, nl*t), make([]float64, t)
		g2, zv2 = linalg.Mul(false, false, zc, pa.tw.v), linalg.Mul(false, false, z, pa.tw.v) // the twin's rotation
	}
	for i := 0; i < nq; i++ {
		gi, vi := g.RawRowView(i), zv.RawRowView(i)
		pa.queryLeaveOneOut(gi, vi, yc.RawRowView(i), coef, out)
		if twin != nil {
			for c, v := range yc.RawRowView(i) {
				es[c] = v * selection.TwinScale
			}
			pa.tw.queryLeaveOneOut(g2.RawRowView(i), zv2.RawRowView(i), es, coef, twin)
		}
		if err := a.score(rows[i], out, twin); err != nil {
			return err
		}
	}
	return nil
}

// queryLeaveOneOut writes one row's leave-one-out predictions (every λ,
// λ-major) into out from the base path pa: gi = Vᵀd, vi = Vᵀz, e the row's
// labels about its query's mean, coef the downdate's weight (see
// Accumulator.queryLeaveOneOut). O(p·t) per λ.
func (pa *path) queryLeaveOneOut(gi, vi, e []float64, coef float64, out []float64) {
	t := len(e)
	for l, lambda := range pa.lambdas {
		var gdg, zdg float64
		for k, ek := range pa.e {
			if pa.drop[k] {
				continue
			}
			dk := ek + lambda
			gdg += gi[k] * gi[k] / dk
			zdg += vi[k] * gi[k] / dk
		}
		den := 1 - coef*gdg
		for c := 0; c < t; c++ {
			ec := e[c]
			// x = D⁻¹(r − coef·g e),  w = x + coef·D⁻¹g (gᵀx)/den,  f = (Vᵀz)ᵀw
			var gx, zx float64
			for k, ek := range pa.e {
				if pa.drop[k] {
					continue
				}
				xk := (pa.rt.At(k, c) - coef*gi[k]*ec) / (ek + lambda)
				gx += gi[k] * xk
				zx += vi[k] * xk
			}
			out[l*t+c] = zx + coef*zdg*gx/den
		}
	}
}
