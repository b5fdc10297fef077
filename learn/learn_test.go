package learn

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/model"
)

type onlyLOO struct{}

func (onlyLOO) Predictor() *model.Predictor      { return nil }
func (onlyLOO) LeaveOneOut() (*mat.Dense, error) { return nil, nil }

func TestRequire(t *testing.T) {
	cases := []struct {
		caps []Capability
		ok   bool
	}{
		{nil, true},
		{[]Capability{CanLeaveOneOut}, true},
		{[]Capability{CanLeaveOneOut, CanHoldOut}, false},
		{[]Capability{CanLeavePairOut}, false},
		{[]Capability{CanHoldOutBasis}, false},
		{[]Capability{CanRelabel}, false},
	}
	for _, c := range cases {
		err := Require("toy", onlyLOO{}, c.caps...)
		if (err == nil) != c.ok {
			t.Errorf("%v: err = %v", c.caps, err)
		}
		if err != nil && (!errors.Is(err, ErrCapability) || !strings.Contains(err.Error(), "toy")) {
			t.Errorf("%v: err %v does not wrap ErrCapability or name the learner", c.caps, err)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{"": Keep, "keep": Keep, "remove": Remove, "skip": Skip} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParsePolicy("drop"); err == nil {
		t.Error("drop accepted")
	}
}

func TestFormRequest(t *testing.T) {
	for f, want := range map[Form]factor.Request{
		Auto: {Auto: true}, Dual: {Form: factor.Dual}, Linear: {Form: factor.Linear}, Sparse: {Form: factor.Sparse, Basis: []int{1}},
	} {
		b := want.Basis
		got, err := f.Request(b)
		if err != nil || got.Auto != want.Auto || got.Form != want.Form || len(got.Basis) != len(b) {
			t.Errorf("%d: %+v %v", f, got, err)
		}
	}
	if _, err := Form(9).Request(nil); err == nil {
		t.Error("form 9 accepted")
	}
}

func TestChecks(t *testing.T) {
	if err := CheckLambda(0); !errors.Is(err, ErrLambda) {
		t.Errorf("λ = 0: %v", err)
	}
	if err := CheckLambda(math.Inf(1)); !errors.Is(err, ErrLambda) {
		t.Errorf("λ = Inf: %v", err)
	}
	if err := CheckLambda(1e-300); err != nil {
		t.Errorf("λ = 1e-300: %v", err)
	}
	y := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, math.NaN()})
	if _, err := CheckLabels(y, 3, nil); !errors.Is(err, ErrShape) {
		t.Errorf("NaN label: %v", err)
	}
	y.Set(2, 1, 6)
	if names, err := CheckLabels(y, 3, nil); err != nil || names[1] != "y1" {
		t.Errorf("names %v, %v", names, err)
	}
	if _, err := CheckLabels(y, 4, nil); !errors.Is(err, ErrShape) {
		t.Errorf("row mismatch: %v", err)
	}
	for _, h := range [][]int{nil, {0, 1, 2}, {3}, {1, 1}} {
		if err := CheckHoldOut(h, 3); !errors.Is(err, ErrHoldOut) {
			t.Errorf("hold-out %v: %v", h, err)
		}
	}
	for _, p := range [][]Pair{nil, {{I: 1, J: 1}}, {{I: 0, J: 3}}} {
		if err := CheckPairs(p, 3, 3); !errors.Is(err, ErrHoldOut) {
			t.Errorf("pairs %v: %v", p, err)
		}
	}
}

// Options.Build standardizes, and Meta.Predictor carries the scaler: a model
// trained on standardized rows predicts raw rows correctly.
func TestStandardizeTravels(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{100, 200, 300, 400, 500})
	o := Options{Kernel: kernel.Linear{Bias: 1}, Form: Linear, Standardize: true}
	d, sc, err := o.Build(x)
	if err != nil || sc == nil {
		t.Fatal(err)
	}
	m := Meta{Name: RLS, Data: d, Outputs: []string{"y"}, Scaler: sc}
	coef := mat.NewDense(2, 1, []float64{2, 0}) // f(x) = 2·(x − 300)/sd
	p := m.Predictor(coef, 1)
	f, err := p.Predict(mat.NewDense(1, 1, []float64{300}))
	if err != nil || math.Abs(f.At(0, 0)) > 1e-12 {
		t.Errorf("f(mean) = %v, %v", f, err)
	}
}
