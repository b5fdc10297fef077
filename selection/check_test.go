package selection

import (
	"errors"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// Descriptors written for the tests: Check reads only what a learner
// declares, so these stand for any learner declaring the same.
var (
	// every row capability
	fullRows = &learn.Descriptor{Name: "full", Needs: learn.NeedsLabels, Caps: []learn.Capability{
		learn.CanLeaveOneOut, learn.CanHoldOut, learn.CanLeavePairOut, learn.CanHoldOutBasis,
		learn.CanRelabel, learn.CanPerturb, learn.CanStream, learn.CanCG}}
	// leave-one-out only, the linear kernel only
	looOnly = &learn.Descriptor{Name: "looonly", Needs: learn.NeedsLabels, Caps: []learn.Capability{learn.CanLeaveOneOut}, Kernels: []string{"linear"}}
	// hold-out only
	holdOnly = &learn.Descriptor{Name: "holdonly", Needs: learn.NeedsLabels, Caps: []learn.Capability{learn.CanHoldOut}}
	// a learner of pairs with one λ, and one with a column λ
	pairsOne = &learn.Descriptor{Name: "pairsone", Needs: learn.NeedsPairs | learn.NeedsLabels, Caps: []learn.Capability{learn.CanHoldOutObjects, learn.CanRelabel}}
	pairsTwo = &learn.Descriptor{Name: "pairstwo", Needs: learn.NeedsPairs | learn.NeedsLabels, Caps: []learn.Capability{learn.CanHoldOutObjects, learn.CanColLambda}}
	// learns from groups, or from a preference graph
	grouped = &learn.Descriptor{Name: "grouped", Needs: learn.NeedsLabels | learn.NeedsGroups, Caps: []learn.Capability{learn.CanLeaveOneOut}}
	graphed = &learn.Descriptor{Name: "graphed", Needs: learn.NeedsGraph, Caps: []learn.Capability{learn.CanLeaveOneOut}}
)

func measureNamed(t *testing.T, name string) measure.Measure {
	t.Helper()
	m, err := measure.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCheckPlans runs Check over plans each learner can or cannot run; the
// expected outcome follows from the descriptor and Check's documented rules
// (the kernel, rows vs pairs of objects, the scheme's capabilities, a
// pairwise measure for lpo, one output per class, the column kernel and λ,
// permutations, stream and CG), the error from the sentinel it documents.
func TestCheckPlans(t *testing.T) {
	mse, auc, multi := measureNamed(t, "mse"), measureNamed(t, "auc"), measureNamed(t, "multiclass-accuracy")
	for _, tc := range []struct {
		name string
		d    *learn.Descriptor
		p    Plan
		want error // nil: the plan is fine
	}{
		{"loo", fullRows, Plan{Scheme: "loo", Measure: mse}, nil},
		{"bad spec", fullRows, Plan{Scheme: "kfold:1", Measure: mse}, ErrScheme},
		{"unknown spec", fullRows, Plan{Scheme: "bootstrap", Measure: mse}, ErrScheme},
		{"no kernel named", looOnly, Plan{Scheme: "loo", Measure: mse}, nil},
		{"its kernel", looOnly, Plan{Scheme: "loo", Measure: mse, Kernel: "linear"}, nil},
		{"not its kernel", looOnly, Plan{Scheme: "loo", Measure: mse, Kernel: "gaussian"}, learn.ErrCapability},
		{"every kernel", fullRows, Plan{Scheme: "loo", Measure: mse, Kernel: "gaussian"}, nil},
		{"rows: object design", fullRows, Plan{Scheme: "rows", Measure: mse}, ErrScheme},
		{"rows: none", fullRows, Plan{Scheme: "none", Measure: mse}, nil},
		{"pairs: row scheme", pairsOne, Plan{Scheme: "loo", Measure: mse}, ErrScheme},
		{"pairs: kfold", pairsOne, Plan{Scheme: "kfold:3", Measure: mse}, ErrScheme},
		{"pairs: object design", pairsOne, Plan{Scheme: "rows:3", Measure: mse}, nil},
		{"pairs: none", pairsOne, Plan{Scheme: "none", Measure: mse}, nil},
		{"scheme's capability missing", looOnly, Plan{Scheme: "kfold:5", Measure: mse}, ErrScheme},
		{"lgo needs hold-out", looOnly, Plan{Scheme: "lgo", Measure: mse}, ErrScheme},
		{"hold-out has it", holdOnly, Plan{Scheme: "kfold:5", Measure: mse}, nil},
		{"hold-out has no loo", holdOnly, Plan{Scheme: "loo", Measure: mse}, ErrScheme},
		{"lpo with auc", fullRows, Plan{Scheme: "lpo", Measure: auc}, nil},
		{"lpo with mse", fullRows, Plan{Scheme: "lpo", Measure: mse}, ErrScheme},
		{"lpo without the capability", holdOnly, Plan{Scheme: "lpo", Measure: auc}, ErrScheme},
		{"remove policy", fullRows, Plan{Scheme: "kfold:3", Policy: learn.Remove, Measure: mse}, nil},
		{"remove policy missing", holdOnly, Plan{Scheme: "kfold:3", Policy: learn.Remove, Measure: mse}, ErrScheme},
		{"rows: multiclass", fullRows, Plan{Scheme: "loo", Measure: multi}, nil},
		{"pairs: multiclass", pairsOne, Plan{Scheme: "rows", Measure: multi}, measure.ErrUnknown},
		{"rows: column kernel", fullRows, Plan{Scheme: "loo", Measure: mse, ColKernels: true}, learn.ErrCapability},
		{"pairs: column kernel", pairsOne, Plan{Scheme: "rows", Measure: mse, ColKernels: true}, nil},
		{"rows: column λ", fullRows, Plan{Scheme: "loo", Measure: mse, ColLambdas: true}, learn.ErrCapability},
		{"one λ: no column λ", pairsOne, Plan{Scheme: "rows", Measure: mse, ColLambdas: true}, learn.ErrCapability},
		{"two λ: column λ", pairsTwo, Plan{Scheme: "both", Measure: mse, ColLambdas: true}, nil},
		{"two λ: column λ missing", pairsTwo, Plan{Scheme: "both", Measure: mse}, ErrGrid},
		{"no permutations with none", fullRows, Plan{Scheme: "none", Measure: mse}, nil},
		{"permutations", fullRows, Plan{Scheme: "loo", Measure: mse, Permutations: 1}, nil},
		{"permutations without CV", fullRows, Plan{Scheme: "none", Measure: mse, Permutations: 1}, ErrScheme},
		{"permutations without relabel", looOnly, Plan{Scheme: "loo", Measure: mse, Permutations: 3}, ErrScheme},
		{"pairs: permutations", pairsOne, Plan{Scheme: "rows", Measure: mse, Permutations: 3}, nil},
		{"stream", fullRows, Plan{Scheme: "loo", Measure: mse, Stream: true}, nil},
		{"stream missing", looOnly, Plan{Scheme: "loo", Measure: mse, Stream: true}, learn.ErrCapability},
		{"cg", fullRows, Plan{Scheme: "loo", Measure: mse, CG: true}, nil},
		{"cg missing", looOnly, Plan{Scheme: "loo", Measure: mse, CG: true}, learn.ErrCapability},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.d, tc.p)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Check: %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Check: %v, want %v", err, tc.want)
			}
		})
	}
	// a missing capability of the scheme says which
	if err := Check(looOnly, Plan{Scheme: "kfold:5", Measure: mse}); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("kfold on a loo-only learner: %v, want it to wrap learn.ErrCapability too", err)
	}
}

// TestCheckSettingsByKind checks that CheckSettings checks a scheme built
// by hand — whose Name is free text, or names another kind — by its Kind,
// and passes the column kernel and λ grids on as present or absent.
func TestCheckSettingsByKind(t *testing.T) {
	mse := measureNamed(t, "mse")
	folds := [][]int{{0, 1}, {2, 3}}
	for _, tc := range []struct {
		name string
		d    *learn.Descriptor
		s    Settings
		want error
	}{
		{"spec name", looOnly, Settings{Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse}, nil},
		{"loo by hand", looOnly, Settings{Scheme: Scheme{Kind: LOO, Name: "my loo"}, Measure: mse}, nil},
		{"loo named as folds", looOnly, Settings{Scheme: Scheme{Kind: LOO, Name: "kfold:5"}, Measure: mse}, nil},
		{"folds by hand", holdOnly, Settings{Scheme: Scheme{Kind: Folds, Name: "my folds", Folds: folds}, Measure: mse}, nil},
		{"folds named loo", holdOnly, Settings{Scheme: Scheme{Kind: Folds, Name: "loo", Folds: folds}, Measure: mse}, nil},
		{"folds by hand, no hold-out", looOnly, Settings{Scheme: Scheme{Kind: Folds, Name: "my folds", Folds: folds}, Measure: mse}, ErrScheme},
		{"empty name", holdOnly, Settings{Scheme: Scheme{Kind: Folds, Folds: folds}, Measure: mse}, nil},
		{"objects by hand", pairsOne, Settings{Scheme: Scheme{Kind: Objects, Name: "my design", Design: learn.Design{Setting: "rows"}}, Measure: mse}, nil},
		{"objects by hand on rows", fullRows, Settings{Scheme: Scheme{Kind: Objects, Name: "my design", Design: learn.Design{Setting: "rows"}}, Measure: mse}, ErrScheme},
		{"no column grids", fullRows, Settings{Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse}, nil},
		{"column λ on rows", fullRows, Settings{Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse, ColLambdas: []float64{1}}, learn.ErrCapability},
		{"column λ grid", pairsTwo, Settings{Scheme: Scheme{Kind: Objects, Name: "rows", Design: learn.Design{Setting: "rows"}}, Measure: mse, ColLambdas: []float64{1, 2}}, nil},
		{"column λ grid missing", pairsTwo, Settings{Scheme: Scheme{Kind: Objects, Name: "rows", Design: learn.Design{Setting: "rows"}}, Measure: mse}, ErrGrid},
		{"permutations", looOnly, Settings{Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse, Permutations: 2}, ErrScheme},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSettings(tc.d, &tc.s)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("CheckSettings: %v, want %v", err, tc.want)
			}
		})
	}
	// column kernels: on a learner of pairs fine, on rows refused
	s := Settings{Scheme: Scheme{Kind: LOO, Name: "loo"}, Measure: mse, ColKernels: []kernel.Spec{{Name: "linear"}}}
	if err := CheckSettings(fullRows, &s); !errors.Is(err, learn.ErrCapability) {
		t.Errorf("column kernels on a row learner: %v, want learn.ErrCapability", err)
	}
	s.Scheme = Scheme{Kind: Objects, Name: "rows", Design: learn.Design{Setting: "rows"}}
	if err := CheckSettings(pairsOne, &s); err != nil {
		t.Errorf("column kernels on a learner of pairs: %v", err)
	}
}

// TestCheckInput checks the input against the learner's needs: each
// missing or mis-sized input is an error wrapping learn.ErrShape, each
// complete input passes.
func TestCheckInput(t *testing.T) {
	x := mat.NewDense(4, 2, nil)
	y := mat.NewDense(4, 1, nil)
	y2 := mat.NewDense(3, 1, nil)
	pairs := []learn.ObjectPair{{Row: 0, Col: 1}, {Row: 2, Col: 0}, {Row: 3, Col: 2}}
	graph := []learn.Edge{{I: 0, J: 1}}
	for _, tc := range []struct {
		name string
		d    *learn.Descriptor
		in   *learn.Input
		ok   bool
	}{
		{"nil input", fullRows, nil, false},
		{"no X", fullRows, &learn.Input{Y: y}, false},
		{"labels", fullRows, &learn.Input{X: x, Y: y}, true},
		{"labels missing", fullRows, &learn.Input{X: x}, false},
		{"labels of other rows", fullRows, &learn.Input{X: x, Y: y2}, false},
		{"groups", grouped, &learn.Input{X: x, Y: y, Groups: []int{0, 0, 1, 1}}, true},
		{"groups missing", grouped, &learn.Input{X: x, Y: y}, false},
		{"groups of other rows", grouped, &learn.Input{X: x, Y: y, Groups: []int{0, 1, 1}}, false},
		{"groups not needed", fullRows, &learn.Input{X: x, Y: y, Groups: []int{0, 0, 1, 1}}, true},
		{"groups not needed, wrong length", fullRows, &learn.Input{X: x, Y: y, Groups: []int{0, 1}}, false},
		{"graph", graphed, &learn.Input{X: x, Graph: graph}, true},
		{"graph and scoring labels", graphed, &learn.Input{X: x, Graph: graph, Y: y}, true},
		{"graph, labels of other rows", graphed, &learn.Input{X: x, Graph: graph, Y: y2}, false},
		{"graph missing", graphed, &learn.Input{X: x, Y: y}, false},
		{"pairs", pairsOne, &learn.Input{X: x, Pairs: pairs, Y: y2}, true},
		{"pairs with columns", pairsOne, &learn.Input{X: x, Cols: x, Pairs: pairs, Y: y2}, true},
		{"pairs missing", pairsOne, &learn.Input{X: x, Y: y}, false},
		{"labels per row, not per pair", pairsOne, &learn.Input{X: x, Pairs: pairs, Y: y}, false},
		{"rows given pairs", fullRows, &learn.Input{X: x, Y: y2, Pairs: pairs}, false},
		{"rows given columns", fullRows, &learn.Input{X: x, Y: y, Cols: x}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckInput(tc.d, tc.in)
			if tc.ok && err != nil {
				t.Fatalf("CheckInput: %v, want nil", err)
			}
			if !tc.ok && !errors.Is(err, learn.ErrShape) {
				t.Fatalf("CheckInput: %v, want learn.ErrShape", err)
			}
		})
	}
}
