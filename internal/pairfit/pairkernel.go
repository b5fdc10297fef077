package pairfit

import (
	"bytes"
	"encoding/json"
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
	rx := mat.DenseCopyOf(rows) // the model keeps the training objects' features
	var (
		cx *mat.Dense
		pk *pairkernel.Predictor
	)
	if !p.PairKernel.Homogeneous() {
		cx = rx
		if !p.Homogeneous {
			cx = mat.DenseCopyOf(cols)
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

// Model is a model of pairs read from its file: Pair, a model.PairPredictor
// (the closed forms and Kronecker conjugate gradients; format
// "rlskit-pairwise-model"), or Kernel, a pairkernel.Predictor (--pair-kernel;
// format "rlskit-pairkernel"); the other is nil.
type Model struct {
	Pair   *model.PairPredictor
	Kernel *pairkernel.Predictor
}

// LoadModel reads a model of pairs, choosing its reader by the file's
// format tag (its "format" field): pairkernel.Load for "rlskit-pairkernel",
// model.LoadPairwise for anything else (whose errors name what is wrong,
// a model of rows included). Each reader checks every field; memory is
// proportional to the file's size (the file is held once as raw JSON).
func LoadModel(r io.Reader) (Model, error) {
	var raw json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return Model{}, fmt.Errorf("%w: %w", model.ErrCorrupt, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		return Model{}, fmt.Errorf("%w: data after the model (%v, %v): one model per file", model.ErrCorrupt, tok, err)
	}
	var head struct {
		Format string `json:"format"`
	}
	_ = json.Unmarshal(raw, &head) // not an object: model.LoadPairwise says so
	if head.Format == pairkernel.Format {
		pk, err := pairkernel.Load(bytes.NewReader(raw))
		return Model{Kernel: pk}, err
	}
	pm, err := model.LoadPairwise(bytes.NewReader(raw))
	return Model{Pair: pm}, err
}
