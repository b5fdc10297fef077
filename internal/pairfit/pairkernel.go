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
	pk, err = pairkernel.Train(p.PairKernel, p.PairWeights, p.PairRowKernels, p.PairColKernels, rx, cx, train, d.Labels, p.Lambdas[0],
		pairkernel.Options{Tol: p.Tol, MaxIter: o.MaxIter})
	if err != nil {
		return fmt.Errorf("--pair-kernel %s: %w", p.PairKernel, err)
	}
	s := &r.Summary
	s.Form, s.Kernel, s.Lambda, s.Setting, s.Symmetry = "cg", p.PairRowKernels[0], p.Lambdas[0], summary.Setting(""), ""
	if len(p.PairColKernels) > 0 {
		s.ColKernel = &p.PairColKernels[0]
	}
	s.PairKernel = &summary.PairKernel{Kind: string(p.PairKernel), Weights: p.PairWeights, RowKernels: p.PairRowKernels, ColKernels: p.PairColKernels}
	s.CG = &summary.PairCG{Iterations: pk.Model.Iterations, Converged: pk.Model.Converged, Residual: pk.Model.Residual}
	r.PairKernel = pk
	return nil
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
