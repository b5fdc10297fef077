package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
)

// A toy learner that lives in this test file alone: kernel ridge regression
// solved naively, A = (K + λI)⁻¹Y, with leave-one-out from the hat matrix
// H = K(K + λI)⁻¹: ŷ_i^loo = y_i − (y_i − ŷ_i)/(1 − h_ii) (Rifkin & Lippert
// 2007; the residual form, whose rounding error is proportional to y_i, so
// that a kernel that cannot tell rows apart scores by noise correlated with
// the labels unless the tie rule counts it as ties). Its one registry
// entry (below) is all it takes for the command line to plan, search,
// tie-break and permutation-test it.
type toyLearner struct {
	x    mat.Matrix
	k    kernel.Kernel
	kmat *mat.Dense // K, perturbed in a twin
	y    *mat.Dense
}

func (t *toyLearner) Name() learn.Name   { return "toy" }
func (t *toyLearner) Labels() *mat.Dense { return t.y }

func (t *toyLearner) At(lambda float64) (learn.Solution, error) {
	m, _ := t.kmat.Dims()
	g := mat.DenseCopyOf(t.kmat)
	for i := 0; i < m; i++ {
		g.Set(i, i, g.At(i, i)+lambda)
	}
	var a, gi mat.Dense
	if err := a.Solve(g, t.y); err != nil {
		return nil, err
	}
	if err := gi.Inverse(g); err != nil {
		return nil, err
	}
	var h mat.Dense
	h.Mul(t.kmat, &gi)
	return &toySolution{t: t, lambda: lambda, a: &a, h: &h}, nil
}

// Relabel reuses K for other labels (permutation tests).
func (t *toyLearner) Relabel(y *mat.Dense, _ []string) (learn.Learner, error) {
	return &toyLearner{x: t.x, k: t.k, kmat: t.kmat, y: y}, nil
}

// Perturbed is the twin of the tie rule: labels times s, K's diagonal moved
// up by its rounding error m·ε·max|K|.
func (t *toyLearner) Perturbed(s float64) (learn.Learner, error) {
	m, _ := t.kmat.Dims()
	k := mat.DenseCopyOf(t.kmat)
	big := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			big = math.Max(big, math.Abs(k.At(i, j)))
		}
	}
	for i := 0; i < m; i++ {
		k.Set(i, i, k.At(i, i)+float64(m)*0x1p-52*big)
	}
	var y mat.Dense
	y.Scale(s, t.y)
	return &toyLearner{x: t.x, k: t.k, kmat: k, y: &y}, nil
}

type toySolution struct {
	t      *toyLearner
	lambda float64
	a, h   *mat.Dense
}

func (s *toySolution) LeaveOneOut() (*mat.Dense, error) {
	m, tt := s.t.y.Dims()
	var fit mat.Dense
	fit.Mul(s.h, s.t.y)
	out := mat.NewDense(m, tt, nil)
	for i := 0; i < m; i++ {
		hii := s.h.At(i, i)
		for c := 0; c < tt; c++ {
			yi := s.t.y.At(i, c)
			out.Set(i, c, yi-(yi-fit.At(i, c))/(1-hii))
		}
	}
	return out, nil
}

func (s *toySolution) Predictor() *model.Predictor {
	_, d := s.t.x.Dims()
	_, tt := s.t.y.Dims()
	var outs []string
	for c := 0; c < tt; c++ {
		outs = append(outs, fmt.Sprintf("y%d", c))
	}
	return model.New(model.Expansion{Learner: "toy", Kernel: s.t.k, Lambda: s.lambda, Width: d, Outputs: outs,
		Coef: s.a, Points: s.t.x})
}

func init() {
	learn.Register(learn.Descriptor{
		Name: "toy", Summary: "toy (a test's naive kernel ridge regression)",
		Needs:   learn.NeedsLabels,
		Caps:    []learn.Capability{learn.CanLeaveOneOut, learn.CanRelabel, learn.CanPerturb},
		Measure: func(string) string { return "mse" },
		New: func(in *learn.Input) (learn.Method, error) {
			return func(s learn.Setting) (learn.Learner, error) {
				k, err := s.Kernel.Block(in.X, in.X)
				if err != nil {
					return nil, err
				}
				return &toyLearner{x: in.X, k: s.Kernel, kmat: k, y: in.Y}, nil
			}, nil
		},
	})
}

// writeToyCSV writes m rows of features a, b and labels y: informative, or
// noise labels on points at least 2 apart (a gaussian kernel with γ = 10⁶
// is then I exactly).
func writeToyCSV(t *testing.T, m int, informative bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 5))
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := 0; i < m; i++ {
		a, c := rng.NormFloat64(), rng.NormFloat64()
		y := rng.NormFloat64()
		if informative {
			y = math.Sin(2*a) + c + 0.1*y
		} else {
			a = 2 * float64(i)
		}
		fmt.Fprintf(&b, "%g,%g,%g\n", a, c, y)
	}
	path := filepath.Join(t.TempDir(), "toy.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The toy learner, registered in this file only, gets the whole engine:
// the plan checks its declared capabilities, Search selects γ and λ by its
// leave-one-out exactly as for rls (the dual gaussian RLS is the same
// model), the tie rule holds on a degenerate kernel, and the permutation
// test runs over its factorizations.
func TestToyLearnerThroughTheEngine(t *testing.T) {
	data := writeToyCSV(t, 40, true)
	args := []string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma-grid", "2^-3..2^1",
		"--lambda-grid", "2^-8..2^2", "--cv", "loo", "--quiet"}
	toyOut, _, err := run(t, "", append(args, "--learner", "toy", "--permutations", "19")...)
	if err != nil {
		t.Fatal(err)
	}
	rlsOut, _, err := run(t, "", append(args, "--learner", "rls")...)
	if err != nil {
		t.Fatal(err)
	}
	toy, ref := decodeFit(t, toyOut), decodeFit(t, rlsOut)
	if toy.Learner != "toy" || len(toy.CV.Curve) != len(ref.CV.Curve) {
		t.Fatalf("toy: %+v", toy)
	}
	for i, pt := range toy.CV.Curve {
		if want := ref.CV.Curve[i].Value; math.Abs(pt.Value-want) > 1e-8*math.Abs(want) {
			t.Errorf("point %d: toy LOO %v, rls %v", i, pt.Value, want)
		}
	}
	if toy.Lambda != ref.Lambda || toy.Kernel.Gamma != ref.Kernel.Gamma {
		t.Errorf("toy chose γ %v λ %v, rls γ %v λ %v", toy.Kernel.Gamma, toy.Lambda, ref.Kernel.Gamma, ref.Lambda)
	}
	if toy.Perm == nil || toy.Perm.Permutations != 19 || toy.Perm.PValue > 0.1 {
		t.Errorf("permutation test on informative data: %+v", toy.Perm)
	}

	// the plan reads the declared capabilities: no hold-out, no leave-pair-out
	for _, c := range []struct{ cv, want string }{{"kfold:4", "hold-out"}, {"lpo", "leave-pair-out"}} {
		_, _, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", "toy", "--cv", c.cv, "--measure", "cindex", "--quiet")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--cv %s: error %v, want one naming %q", c.cv, err, c.want)
		}
	}

	// the one tie rule: K = I with noise labels predicts 0 for every
	// held-out row (retraining does, exactly), so rounding noise must not score
	flat := writeToyCSV(t, 30, false)
	out, _, err := run(t, "", "fit", "--data", flat, "--label", "y", "--learner", "toy", "--kernel", "gaussian", "--gamma", "1e6",
		"--lambda-grid", "2^-4..2^4", "--cv", "loo", "--measure", "cindex", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, out)
	if o.CV.Best.Value != 0.5 || !o.CV.Best.Indistinguishable {
		t.Errorf("K = I, noise labels: c-index %v, indistinguishable %v; want 0.5, true", o.CV.Best.Value, o.CV.Best.Indistinguishable)
	}
}
