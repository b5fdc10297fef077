package selection

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/cv"
	"github.com/rlskit/rlskit/learn"
)

// NestedDesign is Nested for a learner of pairs (learn.DesignValidator:
// Kronecker RLS, two-step RLS) whose inner scheme s.Scheme is an object
// design of setting rows (B), cols (C) or both (D): the outer design
// outer, of the same setting, gives the outer folds of row objects
// (outer.RowFolds), of column objects (ColFolds) or, for both, every row
// fold with every column fold as an outer block. For an outer block
// (R_o, C_o) the outer test pairs are those of a held-out row object (B),
// column object (C) or of both (D: row in R_o and column in C_o); the
// outer training part T is the pairs of neither; the inner folds are the
// inner design's folds restricted to T's objects (nil folds: one object
// each), every row fold with every column fold for both. The model trained
// on T without an inner fold (R_i, C_j) is the model of all objects with
// the single fold R_o ∪ R_i (and C_o ∪ C_j) held out, so each inner fold
// is one pass of CrossValidateDesign with a one-fold design over both λ
// grids, of which the pairs of the inner fold are kept; the outer
// predictions are the one-fold design (R_o, C_o) at the chosen point.
// Choices follow Search: the best value, ties to the larger λ·λ_c, then
// the first kernel setting; ordinal measures use the learner's twin for
// ties as selectDesign does (the tolerance of a point is the largest of
// its inner passes). The interval and the value are as in Nested, the
// losses per labelled pair; pairs that share an object are not
// independent observations, which Bates et al.'s interval assumes, so for
// pairs it is an approximation (the outer blocks hold out whole objects,
// which is what the nested estimate of the MSE sees).
//
// A learner of pairs standardizes its own objects (on all of them), so
// p.Standardize is refused, as are settings pairs and vertices (their
// hold-outs of single pairs or vertices do not combine with an outer
// fold). Cost: per kernel setting pair one training, then per outer block
// one CrossValidateDesign pass over the grids per inner fold (for both,
// K_r·K_c of them) and one at the chosen point; memory n values per point
// of the two grids per pass (n labelled pairs).
func NestedDesign(p Problem, s Settings, outer learn.Design, level float64) (*NestedResult, error) {
	if level == 0 {
		level = DefaultLevel
	}
	in := s.Scheme.Design
	switch {
	case !(level > 0 && level < 1):
		return nil, fmt.Errorf("%w: nested CV level %v: want a number in (0, 1)", ErrScheme, level)
	case p.Learner == nil || p.Input == nil || !p.Learner.Needs.Has(learn.NeedsPairs):
		return nil, fmt.Errorf("%w: NestedDesign is for a registered learner of pairs and its input", ErrScheme)
	case s.Scheme.Kind != Objects || in.Setting != "rows" && in.Setting != "cols" && in.Setting != "both":
		return nil, fmt.Errorf("%w: the inner scheme of a nested cross-validation of pairs is rows, cols or both, not %s", ErrScheme, s.Scheme.Name)
	case outer.Setting != in.Setting:
		return nil, fmt.Errorf("%w: outer setting %q, inner %q: nest a setting in itself", ErrScheme, outer.Setting, in.Setting)
	case p.Standardize:
		return nil, fmt.Errorf("%w: a learner of pairs standardizes its objects on all of them: nested cross-validation without standardization only", ErrScheme)
	case len(s.Kernels) == 0 || len(s.Lambdas) == 0:
		return nil, fmt.Errorf("%w: no kernel settings or λ values", ErrGrid)
	case p.Input.Cols == nil:
		return nil, fmt.Errorf("%w: setting %s needs two sets of objects", ErrScheme, in.Setting)
	}
	if err := CheckChoose(s.Choose, s.Scheme, s.Measure); err != nil { // object designs: best only
		return nil, err
	}
	if p.Input.Y != nil {
		if err := s.Measure.CheckLabels(p.Input.Y, p.Input.Outputs); err != nil {
			return nil, err
		}
	}
	nr, _ := p.Input.X.Dims()
	nc, _ := p.Input.Cols.Dims()
	rowsSide, colsSide := in.Setting != "cols", in.Setting != "rows"
	check := func(f [][]int, n int, what string) error {
		if len(f) < 2 && !(rowsSide && colsSide && len(f) >= 1) {
			return fmt.Errorf("%w: nested cross-validation needs at least 2 outer folds of %s", ErrScheme, what)
		}
		if err := cv.Check(f, n); err != nil {
			return fmt.Errorf("%w: outer folds of %s: %w", ErrScheme, what, err)
		}
		return nil
	}
	if rowsSide {
		if err := check(outer.RowFolds, nr, "row objects"); err != nil {
			return nil, err
		}
	}
	if colsSide {
		if err := check(outer.ColFolds, nc, "column objects"); err != nil {
			return nil, err
		}
	}
	var out SearchResult
	method, err := p.method(&s, &out)
	if err != nil {
		return nil, err
	}
	opt := s.Options
	opt.Progress = s.Progress
	pairs := p.Input.Pairs
	n := len(pairs)
	// the outer blocks and their inner blocks
	blocks := func(fr, fc [][]int) [][2][]int {
		var b [][2][]int
		switch {
		case rowsSide && colsSide:
			for _, r := range fr {
				for _, c := range fc {
					b = append(b, [2][]int{r, c})
				}
			}
		case rowsSide:
			for _, r := range fr {
				b = append(b, [2][]int{r, nil})
			}
		default:
			for _, c := range fc {
				b = append(b, [2][]int{nil, c})
			}
		}
		return b
	}
	restrict := func(f [][]int, held []int, size int) [][]int {
		out := [][]int{}
		h := make([]bool, size)
		for _, i := range held {
			h[i] = true
		}
		if f == nil { // one object per fold
			for i := 0; i < size; i++ {
				if !h[i] {
					out = append(out, []int{i})
				}
			}
			return out
		}
		for _, g := range f {
			var r []int
			for _, i := range g {
				if !h[i] {
					r = append(r, i)
				}
			}
			if len(r) > 0 {
				out = append(out, r)
			}
		}
		return out
	}
	member := func(set []int, size int) []bool {
		b := make([]bool, size)
		for _, i := range set {
			b[i] = true
		}
		return b
	}
	var states []*designState
	for _, ob := range blocks(outer.RowFolds, outer.ColFolds) {
		st := &designState{nestedState: nestedState{inT: make([]bool, n)}, rows: ob[0], cols: ob[1]}
		inR, inC := member(ob[0], nr), member(ob[1], nc)
		for k, pr := range pairs {
			r, c := inR[pr.Row], inC[pr.Col]
			switch {
			case (!rowsSide || r) && (!colsSide || c):
				st.outer = append(st.outer, k)
			case !r && !c:
				st.train = append(st.train, k)
				st.inT[k] = true
			}
		}
		if len(st.outer) == 0 || len(st.train) == 0 {
			return nil, fmt.Errorf("%w: an outer block holds %d labelled pairs and leaves %d to train on: both must be > 0", ErrScheme, len(st.outer), len(st.train))
		}
		var ir, ic [][]int
		if rowsSide {
			ir = restrict(in.RowFolds, ob[0], nr)
		}
		if colsSide {
			ic = restrict(in.ColFolds, ob[1], nc)
		}
		for _, ib := range blocks(ir, ic) {
			d := learn.Design{Setting: in.Setting}
			if rowsSide {
				d.RowFolds = [][]int{append(append([]int{}, ob[0]...), ib[0]...)}
			}
			if colsSide {
				d.ColFolds = [][]int{append(append([]int{}, ob[1]...), ib[1]...)}
			}
			iR, iC := member(ib[0], nr), member(ib[1], nc)
			var keep []int
			for _, k := range st.train {
				if (!rowsSide || iR[pairs[k].Row]) && (!colsSide || iC[pairs[k].Col]) {
					keep = append(keep, k)
				}
			}
			if len(keep) > 0 {
				st.designs, st.keep = append(st.designs, d), append(st.keep, keep)
				st.innerSizes = append(st.innerSizes, len(keep))
			}
		}
		if len(st.designs) == 0 {
			return nil, fmt.Errorf("%w: no inner fold holds a labelled pair of an outer training part", ErrScheme)
		}
		st.fold = NestedFold{Rows: st.outer, Inner: math.NaN(), Outer: math.NaN()}
		states = append(states, st)
	}
	var settingsList []setting
	for _, r := range s.Kernels {
		if len(s.ColKernels) == 0 {
			settingsList = append(settingsList, setting{row: r})
		}
		for _, c := range s.ColKernels {
			settingsList = append(settingsList, setting{row: r, col: &c})
		}
	}
	var y = p.Input.Y
	for _, st := range settingsList {
		l, err := method(st)
		if err != nil {
			return nil, fmt.Errorf("training with %s: %w", st, err)
		}
		if y, err = labels(l, opt); err != nil {
			return nil, err
		}
		if err := nestedDesignSetting(l, st, states, s, y, opt); err != nil {
			return nil, fmt.Errorf("nested cross-validation with %s: %w", st, err)
		}
	}
	plain := make([]*nestedState, len(states))
	for k, st := range states {
		plain[k] = &st.nestedState
	}
	return nestedResult(plain, y, s.Measure, opt.Queries, level)
}

// designState is an outer block of NestedDesign: its objects, its inner
// one-fold designs and the pairs each of them predicts for the inner CV.
type designState struct {
	nestedState
	rows, cols []int
	designs    []learn.Design
	keep       [][]int
}

// nestedDesignSetting runs one kernel setting's learner (trained on all
// objects) for every outer block: each inner design's pass over the grids,
// the inner curve of T, and the outer predictions where the setting's best
// point beats the block's best so far.
func nestedDesignSetting(l learn.Learner, st setting, states []*designState, s Settings, y *mat.Dense, opt Options) error {
	meas := s.Measure
	dv, ok := l.(learn.DesignValidator)
	if !ok {
		return fmt.Errorf("%w: %w", ErrScheme, learn.Require(l.Name(), l, learn.CanHoldOutObjects))
	}
	grid, colGrid := s.Lambdas, s.ColLambdas
	_, twoLambdas := l.(learn.ColLambdaLearner)
	if twoLambdas != (len(colGrid) > 0) {
		return fmt.Errorf("%w: learner %s: the second λ grid must be given exactly when the learner has a second λ", ErrGrid, l.Name())
	}
	var twinDV learn.DesignValidator
	if meas.Ordinal {
		tw, err := twin(l, meas, s.Scheme)
		if err != nil {
			return err
		}
		if tw != nil {
			if twinDV, ok = tw.(learn.DesignValidator); !ok {
				return fmt.Errorf("%w: the twin of %s cannot cross-validate its design", learn.ErrCapability, l.Name())
			}
		}
	}
	nc := max(1, len(colGrid))
	n, _ := y.Dims()
	for b, ds := range states {
		acc := make([]*mat.Dense, len(grid)*nc) // the inner CV predictions of T at each point
		tols := make([][]float64, len(acc))
		for k := range acc {
			acc[k] = nanDense(n, 1)
		}
		for d, des := range ds.designs {
			keep := ds.keep[d]
			run := func(v func(i, j int, p *mat.Dense) error) error {
				return dv.CrossValidateDesign(des, grid, colGrid, v)
			}
			var runTwin func(v func(i, j int, p *mat.Dense) error) error
			if twinDV != nil {
				runTwin = func(v func(i, j int, p *mat.Dense) error) error {
					return twinDV.CrossValidateDesign(des, grid, colGrid, v)
				}
			}
			err := lockstep(run, runTwin, func(i, j int, p, p2 *mat.Dense) error {
				k := i*nc + j
				for _, r := range keep {
					acc[k].Set(r, 0, p.At(r, 0))
				}
				if p2 != nil {
					part := nanDense(n, 1)
					for _, r := range keep {
						part.Set(r, 0, p.At(r, 0))
					}
					tol := noiseTolerance(part, p2, memberOf(keep, n))
					if tols[k] == nil || tol[0] > tols[k][0] {
						tols[k] = tol
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("outer block %d, inner fold %d: %w", b, d, err)
			}
		}
		r := &Result{BestIndex: -1}
		var best *mat.Dense
		for i := range grid {
			for j := 0; j < nc; j++ {
				k := i*nc + j
				pt := Point{Lambda: grid[i]}
				if colGrid != nil {
					pt.ColLambda = colGrid[j]
				}
				c := &cvPredictions{p: acc[k], covered: ds.inT, tol: tols[k]}
				var err error
				if pt.Value, pt.Indistinguishable, err = c.score(meas, y, opt.Queries); err != nil {
					return fmt.Errorf("outer block %d at λ = %g%s: %w", b, pt.Lambda, colText(colGrid, pt.ColLambda), err)
				}
				r.Curve = append(r.Curve, pt)
				if r.BestIndex < 0 || meas.Better(pt.Value, r.Best.Value) || (pt.Value == r.Best.Value && simpler(pt, r.Best)) {
					r.BestIndex, r.Best, best = len(r.Curve)-1, pt, acc[k]
				}
			}
		}
		ds.fold.Curves = append(ds.fold.Curves, Curve{Kernel: st.row, ColKernel: st.col, Result: &Result{Curve: r.Curve, Best: r.Best, BestIndex: r.BestIndex}})
		opt.Progress.Step("nested cross-validation: outer block", b+1, len(states))
		if len(ds.fold.Curves) > 1 && !meas.Better(r.Best.Value, ds.fold.Inner) {
			continue
		}
		od := learn.Design{Setting: ds.designs[0].Setting}
		if ds.rows != nil {
			od.RowFolds = [][]int{ds.rows}
		}
		if ds.cols != nil {
			od.ColFolds = [][]int{ds.cols}
		}
		var cg []float64
		if colGrid != nil {
			cg = []float64{r.Best.ColLambda}
		}
		var po *mat.Dense
		if err := dv.CrossValidateDesign(od, []float64{r.Best.Lambda}, cg, func(_, _ int, p *mat.Dense) error {
			po = mat.NewDense(len(ds.outer), 1, nil)
			for a, k := range ds.outer {
				po.Set(a, 0, p.At(k, 0))
			}
			return nil
		}); err != nil {
			return fmt.Errorf("outer block %d: %w", b, err)
		}
		ds.fold.Kernel, ds.fold.ColKernel, ds.fold.Lambda, ds.fold.ColLambda, ds.fold.Inner = st.row, st.col, r.Best.Lambda, r.Best.ColLambda, r.Best.Value
		ds.best, ds.outerPred = best, po
	}
	return nil
}

// memberOf marks the rows of set among n.
func memberOf(set []int, n int) []bool {
	b := make([]bool, n)
	for _, i := range set {
		b[i] = true
	}
	return b
}
