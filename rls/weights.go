package rls

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// sqrtWeights checks the sample weights w against m rows
// (learn.CheckWeights) and returns s_i = √w_i. O(m).
func sqrtWeights(w []float64, m int) ([]float64, error) {
	if err := learn.CheckWeights(w, m); err != nil {
		return nil, err
	}
	s := make([]float64, m)
	for i, v := range w {
		s[i] = math.Sqrt(v)
	}
	return s, nil
}

// buildWeighted factors the kernel matrix of the weighted problem, K̃ =
// S K S with S = diag(s) (the package comment's "Sample weights"): the
// dual form eigendecomposes S K S (one kernel block and O(m³); the scaled
// copy is one more m×m matrix at the peak than Build's in-place
// factorization), the linear form takes the thin SVD of S[X, √bias·1]
// (O(m·d²)). The sparse form is refused. X is standardized first when
// Options say so (unweighted, as without weights).
func buildWeighted(x mat.Matrix, opt Options, s []float64) (*factor.Data, *model.Scaler, error) {
	if opt.Kernel == nil {
		return nil, nil, fmt.Errorf("no kernel given")
	}
	req, err := opt.Form.Request(opt.Basis)
	if err != nil {
		return nil, nil, err
	}
	x, sc, err := opt.Prepare(x)
	if err != nil {
		return nil, nil, err
	}
	form := req.Form
	if req.Auto {
		form = factor.AutoForm(x, opt.Kernel, opt.Basis)
	}
	m, width := x.Dims()
	switch form {
	case factor.Dual:
		if err := factor.CheckMemory(m, factor.DualPeak+1); err != nil {
			return nil, nil, err
		}
		opt.Observe.Report(factor.KernelPhase(m, m, width))
		d, km, err := factor.KernelOnly(x, opt.Kernel)
		if err != nil {
			return nil, nil, err
		}
		for i := 0; i < m; i++ {
			row := km.RawRowView(i)
			for j := range row {
				row[j] *= s[i] * s[j]
			}
		}
		opt.Observe.Report(factor.EigPhase(m))
		if d.Factor, err = factor.NewDual(km); err != nil {
			return nil, nil, err
		}
		return d, sc, nil
	case factor.Linear:
		lin, ok := opt.Kernel.(kernel.Linear)
		if !ok {
			return nil, nil, fmt.Errorf("factor: the linear form needs the linear kernel, not %s", opt.Kernel.Spec())
		}
		if lin.Bias < 0 {
			return nil, nil, fmt.Errorf("factor: the linear form needs bias ≥ 0, got %g (use the dual form)", lin.Bias)
		}
		if width == 0 && lin.Bias == 0 {
			return nil, nil, fmt.Errorf("%w: the data have no features and the linear kernel no bias: the kernel matrix is zero (give a bias, or features)", factor.ErrShape)
		}
		feat := factor.WithBias(x, lin.Bias)
		for i := 0; i < m; i++ {
			row := feat.RawRowView(i)
			for j := range row {
				row[j] *= s[i]
			}
		}
		f, err := factor.NewLinear(feat)
		if err != nil {
			return nil, nil, err
		}
		return &factor.Data{Factor: f, Kernel: opt.Kernel, X: x, Bias: lin.Bias, Width: width}, sc, nil
	}
	return nil, nil, fmt.Errorf("sample weights are not supported in the %s form yet (use the dual or linear form)", form)
}

// unscaleRows divides row a of p by s[rows[a]] (rows nil: row a by s[a]):
// a prediction or residual of the scaled problem back to the data's scale.
// Nothing to do without weights. O(|rows|·t).
func (r *RLS) unscaleRows(rows []int, p *mat.Dense) {
	if r.sw == nil {
		return
	}
	n, _ := p.Dims()
	for a := 0; a < n; a++ {
		i := a
		if rows != nil {
			i = rows[a]
		}
		row := p.RawRowView(a)
		for c := range row {
			row[c] /= r.sw[i]
		}
	}
}

// Weighted reports whether the model was fit with sample weights.
func (r *RLS) Weighted() bool { return r.sw != nil }
