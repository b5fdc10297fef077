package pairkernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// Predictor is a trained model with what predicting for new objects needs:
// the pairwise kernel's kind (and sum weights), the object kernels' specs,
// the training objects' features, and the Model. Its JSON form (Save, Load)
// is the model file.
type Predictor struct {
	Kind    Kind
	Weights []float64
	// RowSpecs are the row-object kernels (k, or k_i of a sum); ColSpecs the
	// column-object kernels (none for the homogeneous kinds, whose columns
	// are the row objects).
	RowSpecs, ColSpecs []kernel.Spec
	// Rows (m×d) and Cols (q×e) are the training objects' features; Cols is
	// nil for the homogeneous kinds.
	Rows, Cols *mat.Dense
	Model      *Model
}

// Train computes the object kernels of the training objects (O(m²·d +
// q²·e)) and fits the model on the labelled pairs (Fit). rows and cols are
// the objects' features (cols nil for the homogeneous kinds); rowSpecs and
// colSpecs the object kernels as Kind.Base takes them (the precomputed
// kernel is refused: prediction needs features).
func Train(kind Kind, weights []float64, rowSpecs, colSpecs []kernel.Spec, rows, cols *mat.Dense, train Pairs, y []float64, lambda float64, opt Options) (*Predictor, error) {
	p := &Predictor{Kind: kind, Weights: weights, RowSpecs: rowSpecs, ColSpecs: colSpecs, Rows: rows, Cols: cols}
	if err := p.check(); err != nil {
		return nil, err
	}
	terms, err := kind.Terms(weights)
	if err != nil {
		return nil, err
	}
	base, err := p.base(nil, nil)
	if err != nil {
		return nil, err
	}
	if p.Model, err = Fit(base, terms, train, y, lambda, opt); err != nil {
		return nil, err
	}
	return p, nil
}

// TrainSearch chooses the sum kernel's weights from grid by
// cross-validation (SearchWeights: the model refitted on the other pairs
// of each fold, exact up to the fits' tolerance) and trains the model on
// every pair with the best weight vector (the first with the lowest mean
// squared error). The object kernels are formed once, for every fit
// (O(m²·d + q²·e)); the search costs len(grid) × len(folds) fits, the
// final model one more. rowSpecs and colSpecs hold one kernel per term,
// as Train takes them. It returns the model, every grid point's scores
// and the best one's index.
func TrainSearch(grid [][]float64, rowSpecs, colSpecs []kernel.Spec, rows, cols *mat.Dense, train Pairs, y []float64, folds [][]int, lambda float64, opt Options) (*Predictor, []WeightScore, int, error) {
	if len(grid) == 0 {
		return nil, nil, 0, errors.New("pairkernel: an empty weight grid")
	}
	var base []*mat.Dense
	for g, w := range grid {
		p := &Predictor{Kind: Sum, Weights: w, RowSpecs: rowSpecs, ColSpecs: colSpecs, Rows: rows, Cols: cols}
		if err := p.check(); err != nil {
			return nil, nil, 0, fmt.Errorf("weight grid point %d: %w", g+1, err)
		}
		if base == nil {
			var err error
			if base, err = p.base(nil, nil); err != nil {
				return nil, nil, 0, err
			}
		}
	}
	scores, best, err := SearchWeights(base, grid, train, y, folds, lambda, opt)
	if err != nil {
		return nil, nil, 0, err
	}
	p := &Predictor{Kind: Sum, Weights: grid[best], RowSpecs: rowSpecs, ColSpecs: colSpecs, Rows: rows, Cols: cols}
	terms, err := Sum.Terms(p.Weights)
	if err != nil {
		return nil, nil, 0, err
	}
	if p.Model, err = Fit(base, terms, train, y, lambda, opt); err != nil {
		return nil, nil, 0, err
	}
	return p, scores, best, nil
}

// check validates the kind, weights, specs and feature matrices.
func (p *Predictor) check() error {
	if _, err := ParseKind(string(p.Kind)); err != nil {
		return err
	}
	if _, err := p.Kind.Terms(p.Weights); err != nil {
		return err
	}
	nr, nc := 1, 1
	switch {
	case p.Kind == Sum:
		nr, nc = len(p.Weights), len(p.Weights)
	case p.Kind.Homogeneous():
		nc = 0
	}
	if len(p.RowSpecs) != nr || len(p.ColSpecs) != nc {
		return fmt.Errorf("%w: the %s kernel takes %d row and %d column kernels (%d and %d given)", ErrShape, p.Kind, nr, nc, len(p.RowSpecs), len(p.ColSpecs))
	}
	if p.Rows == nil {
		return fmt.Errorf("%w: no row objects", ErrShape)
	}
	if p.Kind.Homogeneous() != (p.Cols == nil) {
		return fmt.Errorf("%w: the %s kernel takes %s", ErrShape, p.Kind, map[bool]string{true: "one object set (no column objects)", false: "row and column objects"}[p.Kind.Homogeneous()])
	}
	for _, s := range append(append([]kernel.Spec(nil), p.RowSpecs...), p.ColSpecs...) {
		if s.Name == "precomputed" {
			return fmt.Errorf("pairkernel: the precomputed kernel cannot predict for new objects: give features and a kernel")
		}
		if _, err := kernel.New(s); err != nil {
			return fmt.Errorf("pairkernel: %w", err)
		}
	}
	return nil
}

// base builds the kernel list of the terms between the objects rowX (colX)
// — the training objects when nil — and the training objects. A kernel
// several of a sum's terms share (an equal spec on one side) is formed
// once and shared: a sum of w terms with one column kernel holds one q×q
// column matrix, not w.
func (p *Predictor) base(rowX, colX *mat.Dense) ([]*mat.Dense, error) {
	block := func(specs []kernel.Spec, x, train *mat.Dense, what string) ([]*mat.Dense, error) {
		if x == nil {
			x = train
		}
		if _, c := x.Dims(); c != train.RawMatrix().Cols {
			return nil, fmt.Errorf("%w: %s objects have %d features, the training ones %d", ErrShape, what, c, train.RawMatrix().Cols)
		}
		out := make([]*mat.Dense, len(specs))
		for i, s := range specs {
			if j := slices.Index(specs[:i], s); j >= 0 { // a kernel a sum's terms share is formed once
				out[i] = out[j]
				continue
			}
			k, err := kernel.New(s)
			if err != nil {
				return nil, fmt.Errorf("pairkernel: %w", err)
			}
			if out[i], err = k.Block(x, train); err != nil {
				return nil, fmt.Errorf("pairkernel: %s kernel %d: %w", what, i+1, err)
			}
		}
		return out, nil
	}
	ks, err := block(p.RowSpecs, rowX, p.Rows, "row")
	if err != nil {
		return nil, err
	}
	var gs []*mat.Dense
	if !p.Kind.Homogeneous() {
		if gs, err = block(p.ColSpecs, colX, p.Cols, "column"); err != nil {
			return nil, err
		}
	}
	// new objects are the same as no training object (δ = 0)
	var sameR, sameC []int
	if rowX != nil {
		sameR = none(rowX)
	}
	if colX != nil {
		sameC = none(colX)
	}
	return p.Kind.Base(ks, gs, sameR, sameC)
}

func none(x *mat.Dense) []int {
	r, _ := x.Dims()
	s := make([]int, r)
	for i := range s {
		s[i] = -1
	}
	return s
}

// Predict returns f(u_p, v_p) for the pairs test, whose indices refer to
// the rows of rowX and colX — new objects — or to the training objects when
// rowX (colX) is nil; for the homogeneous kinds colX must be nil and the
// column indices refer to rowX's objects (or the training objects) too.
// New objects are never the same object as a training one (δ = 0 in the
// cartesian kernel). Cost: the cross kernels, O(m'·m·d + q'·q·e), then one
// Operator.MulVec, O(n·(m' + q)) per term for n training pairs.
func (p *Predictor) Predict(rowX, colX *mat.Dense, test Pairs) ([]float64, error) {
	if p.Kind.Homogeneous() && colX != nil {
		return nil, fmt.Errorf("%w: the %s kernel's pairs are of one object set: give no column objects", ErrShape, p.Kind)
	}
	base, err := p.base(rowX, colX)
	if err != nil {
		return nil, err
	}
	return p.Model.Predict(base, test)
}

// The model file: a JSON object tagged "rlskit-pairkernel".
type predictorFile struct {
	Format   string        `json:"format"`
	Kind     string        `json:"pair_kernel"`
	Weights  []float64     `json:"weights,omitempty"`
	RowSpecs []kernel.Spec `json:"row_kernels"`
	ColSpecs []kernel.Spec `json:"col_kernels,omitempty"`
	Rows     [][]float64   `json:"rows"`
	Cols     [][]float64   `json:"cols,omitempty"`
	Terms    []Term        `json:"terms"`
	Pairs    [2][]int      `json:"pairs"`
	Coef     []float64     `json:"coef"`
	Lambda   float64       `json:"lambda"`
}

// Format is the model file's format tag (its "format" field), by which a
// reader of model files tells this format from the others.
const Format = "rlskit-pairkernel"

// ErrCorrupt is wrapped by Load's errors about the file's content.
var ErrCorrupt = errors.New("pairkernel: corrupt model file")

// Save writes the predictor as JSON. O(size of the model).
func (p *Predictor) Save(w io.Writer) error {
	f := predictorFile{Format: Format, Kind: string(p.Kind), Weights: p.Weights, RowSpecs: p.RowSpecs, ColSpecs: p.ColSpecs,
		Rows: denseRows(p.Rows), Terms: p.Model.Terms, Pairs: [2][]int{p.Model.Train.Rows, p.Model.Train.Cols},
		Coef: p.Model.Coef, Lambda: p.Model.Lambda}
	if p.Cols != nil {
		f.Cols = denseRows(p.Cols)
	}
	if err := json.NewEncoder(w).Encode(f); err != nil {
		return fmt.Errorf("pairkernel: writing the model: %w", err)
	}
	return nil
}

func denseRows(a *mat.Dense) [][]float64 {
	r, _ := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = a.RawRowView(i)
	}
	return out
}

// Load reads a model Save wrote, checking everything a prediction relies
// on: one JSON object with nothing after it, the kind, weights and kernel
// specs, rectangular finite features, terms equal to the kind's, pair
// indices within the objects, one finite coefficient per pair, λ > 0. Allocation is proportional to the file's
// size. Errors wrap ErrCorrupt (or name the JSON offset of a syntax error).
func Load(r io.Reader) (*Predictor, error) {
	var f predictorFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: data after the model (%v, %v): one model per file", ErrCorrupt, tok, err)
	}
	if f.Format != Format {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrCorrupt, f.Format, Format)
	}
	rows, err := fromRows(f.Rows, "rows")
	if err != nil {
		return nil, err
	}
	var cols *mat.Dense
	if f.Cols != nil {
		if cols, err = fromRows(f.Cols, "cols"); err != nil {
			return nil, err
		}
	}
	p := &Predictor{Kind: Kind(f.Kind), Weights: f.Weights, RowSpecs: f.RowSpecs, ColSpecs: f.ColSpecs, Rows: rows, Cols: cols}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	terms, _ := p.Kind.Terms(p.Weights)
	if len(terms) != len(f.Terms) {
		return nil, fmt.Errorf("%w: %d terms, the %s kernel has %d", ErrCorrupt, len(f.Terms), p.Kind, len(terms))
	}
	for i := range terms {
		if terms[i] != f.Terms[i] {
			return nil, fmt.Errorf("%w: term %d is %+v, the %s kernel's is %+v", ErrCorrupt, i+1, f.Terms[i], p.Kind, terms[i])
		}
	}
	train := Pairs{Rows: f.Pairs[0], Cols: f.Pairs[1]}
	if train.Len() == 0 || len(train.Cols) != train.Len() || len(f.Coef) != train.Len() {
		return nil, fmt.Errorf("%w: %d pair rows, %d pair columns and %d coefficients", ErrCorrupt, len(train.Rows), len(train.Cols), len(f.Coef))
	}
	if err := checkFinite(f.Coef, "coefficient"); err != nil {
		return nil, err
	}
	if !(f.Lambda > 0) || math.IsInf(f.Lambda, 1) {
		return nil, fmt.Errorf("%w: lambda = %v", ErrCorrupt, f.Lambda)
	}
	m := rows.RawMatrix().Rows
	q := m
	if cols != nil {
		q = cols.RawMatrix().Rows
	}
	if err := checkIndex(train.Rows, m, 0, "row objects", "training row objects"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if err := checkIndex(train.Cols, q, 0, "column objects", "training column objects"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	p.Model = &Model{Terms: terms, Train: train, Coef: f.Coef, Lambda: f.Lambda, Converged: true}
	return p, nil
}

func fromRows(r [][]float64, what string) (*mat.Dense, error) {
	if len(r) == 0 || len(r[0]) == 0 {
		return nil, fmt.Errorf("%w: no %s", ErrCorrupt, what)
	}
	d := len(r[0])
	data := make([]float64, 0, len(r)*d)
	for i, row := range r {
		if len(row) != d {
			return nil, fmt.Errorf("%w: %s row %d has %d values, row 1 has %d", ErrCorrupt, what, i+1, len(row), d)
		}
		if err := checkFinite(row, what); err != nil {
			return nil, err
		}
		data = append(data, row...)
	}
	return mat.NewDense(len(r), d, data), nil
}

func checkFinite(v []float64, what string) error {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s %d is %v", ErrCorrupt, what, i+1, x)
		}
	}
	return nil
}
