package report

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSteps: the feature-selection curves are drawn with the chosen point,
// and inconsistent ones are refused before anything is written.
func TestSteps(t *testing.T) {
	base := Data{Measure: "mse", Curves: []Curve{{Lambdas: []float64{0.5, 2}, Values: []float64{3, 2.5}}},
		BestLambda: 2, BestValue: 2.5,
		Steps:     []StepCurve{{Label: "lambda=0.5", Values: []float64{4, 3, math.NaN(), 3.2}}, {Label: "lambda=2", Values: []float64{3.9, 2.5, 2.6}}},
		BestSteps: 1, BestStep: 2}
	var b bytes.Buffer
	if err := Write(&b, base); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="selection-curve"`, "features selected", "lambda=2", "Chosen (ringed): 2 features, lambda=2, mse = 2.5"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for name, mod := range map[string]func(d *Data){
		"empty curve":        func(d *Data) { d.Steps = []StepCurve{{}} },
		"infinite value":     func(d *Data) { d.Steps = []StepCurve{{Values: []float64{math.Inf(1)}}}; d.BestSteps, d.BestStep = 0, 1 },
		"best curve outside": func(d *Data) { d.BestSteps = 2 },
		"best step 0":        func(d *Data) { d.BestStep = 0 },
		"best step past end": func(d *Data) { d.BestStep = 4 },
	} {
		d := base
		d.Steps = append([]StepCurve(nil), base.Steps...)
		mod(&d)
		var w bytes.Buffer
		if err := Write(&w, d); !errors.Is(err, ErrData) || w.Len() != 0 {
			t.Errorf("%s: error %v, %d bytes written", name, err, w.Len())
		}
	}
}
