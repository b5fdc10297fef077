package pairfit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairkernel"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// fitPairKernel trains the plan's pairwise kernel (--pair-kernel; package
// pairkernel) on the labelled pairs by conjugate gradients at the plan's one
// λ: pairkernel.Train with the plan's kind, weights and object kernels on
// the objects' features (the columns are the rows for --cols same). The
// pairs are checked as two sets of objects (indices in range, no pair twice,
// finite labels): the pairwise kernel, not the data, carries any symmetry.
// Cost: the object kernels, O(m²·d + q²·e) per kernel, then
// O(n·(m + q)) per term and iteration.
func fitPairKernel(p *plan.PairPlan, d Data, o Options, rows, cols mat.Matrix, r *Result) error {
	m, _ := rows.Dims()
	q, _ := cols.Dims()
	complete, _, err := pairwise.CheckPairs(m, q, d.Pairs, d.Labels, pairwise.Heterogeneous)
	if err != nil {
		return fmt.Errorf("--pairs %s: %w", d.PairsName, err)
	}
	r.Summary.Complete = complete
	rx := denseOf(rows) // the model keeps the training objects' features
	var (
		cx *mat.Dense
		pk *pairkernel.Predictor
	)
	if !p.PairKernel.Homogeneous() {
		cx = rx
		if !p.Homogeneous {
			cx = denseOf(cols)
		}
	}
	train := pairkernel.Pairs{Rows: make([]int, len(d.Pairs)), Cols: make([]int, len(d.Pairs))}
	for i, pr := range d.Pairs {
		train.Rows[i], train.Cols[i] = pr.Row, pr.Col
	}
	opt := pairkernel.Options{Tol: p.Tol, MaxIter: o.MaxIter}
	var search *summary.WeightSearch
	if len(p.PairWeightGrid) > 1 {
		folds, err := weightFolds(p, o, train, m, q)
		if err != nil {
			return err
		}
		found, scores, best, err := pairkernel.TrainSearch(p.PairWeightGrid, p.PairRowKernels, p.PairColKernels, rx, cx, train, d.Labels, folds, p.Lambdas[0], opt)
		if err != nil {
			return fmt.Errorf("--pair-kernel %s: %w", p.PairKernel, err)
		}
		r.PairKernel = found
		search = &summary.WeightSearch{Strategy: p.CVSpec, Folds: len(folds), Best: best}
		for _, sc := range scores {
			search.Grid = append(search.Grid, summary.WeightPoint{Weights: sc.Weights, MSE: sc.MSE})
		}
	} else {
		if r.PairKernel, err = pairkernel.Train(p.PairKernel, p.PairWeights, p.PairRowKernels, p.PairColKernels, rx, cx, train, d.Labels, p.Lambdas[0], opt); err != nil {
			return fmt.Errorf("--pair-kernel %s: %w", p.PairKernel, err)
		}
	}
	pk = r.PairKernel
	s := &r.Summary
	s.Form, s.Kernel, s.Lambda, s.Setting, s.Symmetry = "cg", p.PairRowKernels[0], p.Lambdas[0], summary.Setting(p.Setting), ""
	if len(p.PairColKernels) > 0 {
		s.ColKernel = &p.PairColKernels[0]
	}
	s.PairKernel = &summary.PairKernel{Kind: string(p.PairKernel), Weights: pk.Weights, RowKernels: p.PairRowKernels, ColKernels: p.PairColKernels, Search: search}
	s.CG = &summary.PairCG{Iterations: pk.Model.Iterations, Converged: pk.Model.Converged, Residual: pk.Model.Residual}
	return nil
}

// weightFolds splits the training pairs into the folds of the weight
// search: the plan's row (--cv rows[:K]) or column (cols[:K]) object folds
// — drawn with the seed, given by --folds/--col-folds, or one object each
// without K — each holding the pairs of its objects; folds of objects
// without pairs are dropped. O(n + m + q).
func weightFolds(p *plan.PairPlan, o Options, train pairkernel.Pairs, m, q int) ([][]int, error) {
	so := selection.SchemeOptions{RowObjects: m, ColObjects: q, Seed: o.Seed, FoldsName: o.FoldsName}
	if o.ObjectFolds != nil {
		var err error
		if so.Folds, so.ColFolds, err = o.ObjectFolds(m, q); err != nil {
			return nil, err
		}
	}
	sc, err := selection.NewScheme(p.CVSpec, so)
	if err != nil {
		return nil, fmt.Errorf("--cv %s: %w", p.CVSpec, err)
	}
	objFolds, of, n := sc.Design.RowFolds, train.Rows, m
	if p.Setting == pairwise.Cols {
		objFolds, of, n = sc.Design.ColFolds, train.Cols, q
	}
	if objFolds == nil { // one object per fold
		for i := 0; i < n; i++ {
			objFolds = append(objFolds, []int{i})
		}
	}
	foldOf := make([]int, n)
	for f, objs := range objFolds {
		for _, i := range objs {
			foldOf[i] = f
		}
	}
	pairFolds := make([][]int, len(objFolds))
	for pi, i := range of {
		pairFolds[foldOf[i]] = append(pairFolds[foldOf[i]], pi)
	}
	var out [][]int
	for _, f := range pairFolds {
		if len(f) > 0 {
			out = append(out, f)
		}
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("--cv %s: the pairs fall in %d fold: a weight search needs two or more", p.CVSpec, len(out))
	}
	return out, nil
}

// denseOf returns x itself when it is dense (not copied: the model shares
// it), else a dense copy (O(m·d)).
func denseOf(x mat.Matrix) *mat.Dense {
	if d, ok := x.(*mat.Dense); ok {
		return d
	}
	return mat.DenseCopyOf(x)
}

// Model is a model of pairs read from its file: Pair, a model.PairPredictor
// (the closed forms and Kronecker conjugate gradients; format
// "rlskit-pairwise-model"), or Kernel, a pairkernel.Predictor (--pair-kernel;
// format "rlskit-pairkernel"); the other is nil.
type Model struct {
	Pair   *model.PairPredictor
	Kernel *pairkernel.Predictor
}

// LoadModel reads a model of pairs, choosing its reader by the format tag
// at the file's start (the first 512 bytes, where both writers put the
// "format" field): pairkernel.Load for "rlskit-pairkernel", model.LoadPairwise
// for anything else (whose errors name what is wrong, a model of rows
// included). Each reader checks every field and refuses data after the
// model; the file is read once, through a 512-byte buffer, so memory is
// each reader's own (proportional to the file's size).
func LoadModel(r io.Reader) (Model, error) {
	if r == nil {
		return Model{}, fmt.Errorf("%w: no reader", model.ErrCorrupt)
	}
	br := bufio.NewReaderSize(r, 512)
	head, _ := br.Peek(512) // shorter at the end of a short file: the readers say what is wrong
	if bytes.Contains(head, []byte(`"`+pairkernel.Format+`"`)) {
		pk, err := pairkernel.Load(br)
		return Model{Kernel: pk}, err
	}
	pm, err := model.LoadPairwise(br)
	return Model{Pair: pm}, err
}
