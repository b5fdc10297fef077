package greedy

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
)

// Descriptor describes greedy selection to the learner registry
// (learn.Register): it learns from labels with the linear kernel and the
// squared loss, takes the number of features to select (Input.Select), and
// declares no capability — its cross-validation is its own criterion, run
// inside the selection, not a shortcut of a trained model (a hold-out of the
// chosen model would not see that the features were chosen on the held-out
// rows). Its method trains a Learner whose At(λ) runs the whole selection at
// that λ; front ends that want the (λ, k) path call Select directly.
func Descriptor() learn.Descriptor {
	return learn.Descriptor{
		Name:    Name,
		Summary: "greedy (forward feature selection for rls, --select K)",
		Needs:   learn.NeedsLabels,
		Params:  []learn.Param{learn.ParamSelect},
		Loss:    learn.Squared,
		Kernels: []string{"linear"},
		Bias:    1,
		Measure: func(string) string { return "mse" },
		New:     newMethod,
	}
}

func init() { learn.Register(Descriptor()) }

// newMethod checks the input — rows, labels, 1 ≤ Select ≤ the number of
// features — and returns the method: for a setting with the linear kernel
// it returns a Learner at once (nothing is trained until At). O(m·t) for
// the label check.
func newMethod(in *learn.Input) (learn.Method, error) {
	if in == nil || in.X == nil {
		return nil, fmt.Errorf("greedy: %w: no data", learn.ErrShape)
	}
	m, d := in.X.Dims()
	outs, err := learn.CheckLabels(in.Y, m, in.Outputs)
	if err != nil {
		return nil, fmt.Errorf("greedy: %w", err)
	}
	if in.Select < 1 || in.Select > d {
		return nil, fmt.Errorf("%w: %d of %d features (want 1 … %d)", ErrSelect, in.Select, d, d)
	}
	if in.Form != learn.Auto && in.Form != learn.Linear {
		return nil, fmt.Errorf("greedy: %w: selection works on the features by its own rank-one updates (form %d)", learn.ErrShape, int(in.Form))
	}
	return func(s learn.Setting) (learn.Learner, error) {
		lin, ok := s.Kernel.(kernel.Linear)
		if !ok {
			name := "none"
			if s.Kernel != nil {
				name = s.Kernel.Spec().Name
			}
			return nil, fmt.Errorf("greedy selects features of the linear kernel, not %s", name)
		}
		mse, _ := measure.ByName("mse")
		return &Learner{x: in.X, y: in.Y, opt: Options{Bias: lin.Bias, K: in.Select, Measure: mse, Outputs: outs}}, nil
	}, nil
}

// Learner is greedy selection as a learn.Learner at a fixed number of
// features K: At(λ) runs Select at that λ alone with the leave-one-out mse
// criterion and returns the chosen model — the best k ≤ K features, the
// ties going to fewer. Unlike the learners that factor once, every At is a
// whole selection: O(K·m·d·t) (see Select), one selection per λ. The data
// are taken as given (a front end standardizes them before, as
// selection.Search does).
type Learner struct {
	x   mat.Matrix
	y   *mat.Dense
	opt Options
}

// Name is greedy.Name.
func (l *Learner) Name() learn.Name { return Name }

// Labels returns the labels (shared; do not modify).
func (l *Learner) Labels() *mat.Dense { return l.y }

// At runs the selection at λ and returns its chosen model.
func (l *Learner) At(lambda float64) (learn.Solution, error) {
	if err := learn.CheckLambda(lambda); err != nil {
		return nil, fmt.Errorf("greedy: %w", err)
	}
	opt := l.opt
	opt.Lambdas = []float64{lambda}
	res, err := Select(l.x, l.y, opt)
	if err != nil {
		return nil, err
	}
	return &Solution{Result: res}, nil
}

// Solution is the model a Learner chose at one λ: the selection's Result.
type Solution struct {
	Result *Result
}

// Predictor returns the chosen model over the full width of the data
// (Result.Predictor).
func (s *Solution) Predictor() *model.Predictor { return s.Result.Predictor }

var _ learn.Learner = (*Learner)(nil)
