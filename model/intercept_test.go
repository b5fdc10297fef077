package model

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// An unpenalized intercept (AddIntercept) is added to every prediction of
// every kind of predictor, survives Save and Load bit for bit, and makes a
// kernel model a version-3 file; without one a kernel model stays version 2.
func TestInterceptPredictSaveLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	b := []float64{2.5, -0.75}
	for name, p := range testPredictors(t) {
		t.Run(name, func(t *testing.T) {
			x := randDense(rng, 6, p.Width) // the unit predictor's width is its N
			before, err := p.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			plain := jsonMap(t, save(t, p))
			q := *p
			if p.B != nil {
				q.B = append([]float64(nil), p.B...) // AddIntercept adds to B in place
			}
			q.AddIntercept(b)
			after, err := q.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 6; i++ {
				for c := range b {
					if want := before.At(i, c) + b[c]; math.Abs(after.At(i, c)-want) > 1e-15*(1+math.Abs(want)) {
						t.Fatalf("row %d output %d: %v with the intercept, want %v + %v", i, c, after.At(i, c), before.At(i, c), b[c])
					}
				}
			}
			raw := save(t, &q)
			m := jsonMap(t, raw)
			wantVersion := json.Number("2")
			if !p.IsLinear() {
				wantVersion = "3"
			}
			if m["version"] != wantVersion || plain["version"] != json.Number("2") {
				t.Errorf("version %v with the intercept (want %v), %v without (want 2)", m["version"], wantVersion, plain["version"])
			}
			loaded, err := Load(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got, err := loaded.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			if err := bitEqual(got, after); err != nil {
				t.Errorf("loaded predictions: %v", err)
			}
		})
	}
}

// A kernel model's intercept is refused in a file of version 1 or 2, with
// the wrong number of values or a value that is not finite, and counts in
// the bound on the predictions.
func TestInterceptLoadRefuses(t *testing.T) {
	p := testPredictors(t)["dense"]
	q := *p
	q.AddIntercept([]float64{1, 2})
	raw := save(t, &q)
	edit := func(f func(map[string]any)) []byte {
		m := jsonMap(t, raw)
		f(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"version 2", "intercept in a version 2 kernel model", edit(func(m map[string]any) { m["version"] = 2 })},
		{"version 1", "version 1", edit(func(m map[string]any) { m["version"] = 1; delete(m, "zero_based") })},
		{"one value for two outputs", "intercept has 1 finite values, want 2", edit(func(m map[string]any) { m["intercept"] = []any{1.0} })},
		{"beyond float64", "predict beyond float64", edit(func(m map[string]any) { m["intercept"] = []any{1.0, 1e308} })},
		{"not finite", "", []byte(strings.Replace(string(raw), `"intercept":[1,2]`, `"intercept":[1,NaN]`, 1))},
	}
	if !strings.Contains(string(raw), `"intercept":[1,2]`) {
		t.Fatalf("the saved model lacks its intercept: %s", raw)
	}
	for _, c := range cases {
		_, err := Load(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Load error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := Load(bytes.NewReader(raw)); err != nil {
		t.Errorf("the untouched version-3 model: %v", err)
	}
	// version 3 is read for a model without a kernel intercept too
	if _, err := Load(bytes.NewReader(bytes.Replace(save(t, p), []byte(`"version":2`), []byte(`"version":3`), 1))); err != nil {
		t.Errorf("a version-3 kernel model without an intercept: %v", err)
	}
}
