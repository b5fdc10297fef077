package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// randDense returns an r×c matrix of standard normal values.
func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		row := out.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
	}
	return out
}

// randCSR returns an r×c CSR matrix with about half of the entries non-zero.
func randCSR(t *testing.T, rng *rand.Rand, r, c int) *matrix.CSR {
	t.Helper()
	indptr := []int{0}
	var indices []int
	var values []float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if rng.IntN(2) == 0 {
				indices = append(indices, j)
				values = append(values, rng.NormFloat64())
			}
		}
		indptr = append(indptr, len(indices))
	}
	x, err := matrix.NewCSR(r, c, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

const (
	testWidth = 4 // features of the linear and dense/CSR kernel predictors
	testUnitN = 6 // training points (= data width) of the precomputed predictor
)

// testPredictors returns one predictor of each kind, with two outputs.
func testPredictors(t *testing.T) map[string]*Predictor {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	outs := []string{"a", "b"}
	return map[string]*Predictor{
		"linear": {
			Learner: "rls", Kernel: kernel.Spec{Name: "linear", Bias: 1}, Lambda: 0.25,
			Width: testWidth, Outputs: outs,
			W: randDense(rng, testWidth, 2), B: []float64{0.1, -3.7},
		},
		"dense": {
			Learner: "rls", Kernel: kernel.Spec{Name: "gaussian", Gamma: 0.3}, Lambda: 1e-3,
			Width: testWidth, Outputs: outs,
			Points: randDense(rng, 5, testWidth), A: randDense(rng, 5, 2),
		},
		"csr": {
			Learner: "rls", Kernel: kernel.Spec{Name: "gaussian", Gamma: 0.3}, Lambda: 10,
			Width: testWidth, Outputs: outs,
			Points: randCSR(t, rng, 5, testWidth), A: randDense(rng, 5, 2),
		},
		"unit": {
			Learner: "rls", Kernel: kernel.Spec{Name: "precomputed"}, Lambda: 1.5,
			Width: testUnitN, Outputs: outs,
			Points: &kernel.UnitRows{Index: []int{0, 2, 3, 5}, N: testUnitN}, A: randDense(rng, 4, 2),
		},
	}
}

func save(t *testing.T, p *Predictor) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatalf("Save: %v", err)
	}
	return buf.Bytes()
}

// bitEqual reports the first element where a and b differ in their bits.
func bitEqual(a, b *mat.Dense) error {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return fmt.Errorf("dims %d×%d vs %d×%d", ar, ac, br, bc)
	}
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			if x, y := a.At(i, j), b.At(i, j); math.Float64bits(x) != math.Float64bits(y) {
				return fmt.Errorf("[%d,%d]: %v vs %v", i, j, x, y)
			}
		}
	}
	return nil
}

func TestSaveLoadRoundTrip(t *testing.T) {
	tests := []struct {
		name      string
		pointType reflect.Type // nil for a linear predictor
	}{
		{"linear", nil},
		{"dense", reflect.TypeFor[*mat.Dense]()},
		{"csr", reflect.TypeFor[*matrix.CSR]()},
		{"unit", reflect.TypeFor[*kernel.UnitRows]()},
	}
	preds := testPredictors(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := preds[tc.name]
			q, err := Load(bytes.NewReader(save(t, orig)))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if q.Learner != orig.Learner || q.Kernel != orig.Kernel || q.Lambda != orig.Lambda ||
				q.Width != orig.Width || !reflect.DeepEqual(q.Outputs, orig.Outputs) {
				t.Fatalf("header: got %+v %v %v %d %v, want %+v %v %v %d %v",
					q.Kernel, q.Learner, q.Lambda, q.Width, q.Outputs,
					orig.Kernel, orig.Learner, orig.Lambda, orig.Width, orig.Outputs)
			}
			if q.IsLinear() != orig.IsLinear() {
				t.Fatalf("IsLinear = %v, want %v", q.IsLinear(), orig.IsLinear())
			}
			if orig.IsLinear() {
				if err := bitEqual(q.W, orig.W); err != nil {
					t.Errorf("W: %v", err)
				}
				if !reflect.DeepEqual(q.B, orig.B) {
					t.Errorf("B = %v, want %v", q.B, orig.B)
				}
			} else {
				if got := reflect.TypeOf(q.Points); got != tc.pointType {
					t.Fatalf("points are %v, want %v", got, tc.pointType)
				}
				if !mat.Equal(q.Points, orig.Points) {
					t.Errorf("points differ")
				}
				if err := bitEqual(q.A, orig.A); err != nil {
					t.Errorf("A: %v", err)
				}
			}
			// A second save writes the same bytes.
			if a, b := save(t, orig), save(t, q); !bytes.Equal(a, b) {
				t.Errorf("re-saved file differs:\n%s\n%s", a, b)
			}

			rng := rand.New(rand.NewPCG(3, uint64(len(tc.name))))
			data := map[string]mat.Matrix{
				"dense": randDense(rng, 9, orig.Width),
				"csr":   randCSR(t, rng, 9, orig.Width),
			}
			for kind, x := range data {
				want, err := orig.Predict(x)
				if err != nil {
					t.Fatalf("%s: original Predict: %v", kind, err)
				}
				got, err := q.Predict(x)
				if err != nil {
					t.Fatalf("%s: loaded Predict: %v", kind, err)
				}
				if r, c := got.Dims(); r != 9 || c != 2 {
					t.Fatalf("%s: predictions are %d×%d, want 9×2", kind, r, c)
				}
				if err := bitEqual(got, want); err != nil {
					t.Errorf("%s: predictions differ at %v", kind, err)
				}
			}
		})
	}
}

func TestPredictKnownValues(t *testing.T) {
	// Linear: f(x) = Wᵀx + b.
	lin := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 2, Outputs: []string{"y", "z"},
		W: mat.NewDense(2, 2, []float64{1, 2, 3, 4}), B: []float64{10, 20}}
	x := mat.NewDense(2, 2, []float64{1, 1, 0, 2})
	xs, err := matrix.NewCSR(2, 2, []int{0, 2, 3}, []int{0, 1, 1}, []float64{1, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(2, 2, []float64{14, 26, 16, 28})
	for name, in := range map[string]mat.Matrix{"dense": x, "csr": xs} {
		got, err := lin.Predict(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("linear %s: got %v, want %v", name, mat.Formatted(got), mat.Formatted(want))
		}
	}
	// Precomputed: f(x) = Σ_j a_j x[Index_j].
	pre := &Predictor{Kernel: kernel.Spec{Name: "precomputed"}, Lambda: 1, Width: 3, Outputs: []string{"y"},
		Points: &kernel.UnitRows{Index: []int{2, 0}, N: 3}, A: mat.NewDense(2, 1, []float64{1, -2})}
	got, err := pre.Predict(mat.NewDense(1, 3, []float64{5, 7, 11}))
	if err != nil {
		t.Fatal(err)
	}
	if v := got.At(0, 0); v != 11-2*5 {
		t.Errorf("precomputed: got %v, want %v", v, 11-2*5)
	}
	// Gaussian at the point itself: k = 1.
	g := &Predictor{Kernel: kernel.Spec{Name: "gaussian", Gamma: 2}, Lambda: 1, Width: 2, Outputs: []string{"y"},
		Points: mat.NewDense(1, 2, []float64{1, 2}), A: mat.NewDense(1, 1, []float64{3})}
	got, err = g.Predict(mat.NewDense(2, 2, []float64{1, 2, 1, 3}))
	if err != nil {
		t.Fatal(err)
	}
	if v, w := got.At(0, 0), 3.0; math.Abs(v-w) > 1e-15 {
		t.Errorf("gaussian at the point: got %v, want %v", v, w)
	}
	if v, w := got.At(1, 0), 3*math.Exp(-2); math.Abs(v-w) > 1e-15 {
		t.Errorf("gaussian at distance 1: got %v, want %v", v, w)
	}
}

func TestPredictEmpty(t *testing.T) {
	for name, p := range testPredictors(t) {
		x, err := matrix.NewCSR(0, p.Width, []int{0}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Predict(x)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if r, _ := got.Dims(); r != 0 {
			t.Errorf("%s: %d rows of predictions for no data", name, r)
		}
	}
}

func TestPredictWidth(t *testing.T) {
	preds := testPredictors(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"linear", "dense", "csr", "unit"} {
		p := preds[name]
		for _, w := range []int{p.Width - 1, p.Width + 1} {
			for kind, x := range map[string]mat.Matrix{
				"dense": randDense(rng, 3, w),
				"csr":   randCSR(t, rng, 3, w),
			} {
				t.Run(fmt.Sprintf("%s/%s/width=%d", name, kind, w), func(t *testing.T) {
					out, err := p.Predict(x)
					if !errors.Is(err, ErrWidth) {
						t.Fatalf("got %v, %v; want ErrWidth", out, err)
					}
				})
			}
		}
	}
}

// jsonMap decodes a saved model into generic JSON values (numbers kept as json.Number).
func jsonMap(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func sub(m map[string]any, key string) map[string]any { return m[key].(map[string]any) }

func TestLoadCorrupt(t *testing.T) {
	preds := testPredictors(t)
	saved := map[string][]byte{}
	for name, p := range preds {
		saved[name] = save(t, p)
	}
	tests := []struct {
		name string
		want string               // in the error message: the check that fails
		base string               // which saved predictor to start from
		edit func(map[string]any) // one change to its JSON
		raw  func([]byte) []byte  // or a change to its bytes
	}{
		{name: "not JSON", want: `invalid character`, base: "linear", raw: func([]byte) []byte { return []byte("this is not a model") }},
		{name: "empty", want: `EOF`, base: "linear", raw: func([]byte) []byte { return nil }},
		{name: "truncated JSON", want: `unexpected EOF`, base: "linear", raw: func(b []byte) []byte { return b[:len(b)/2] }},
		{name: "JSON array", want: `cannot unmarshal array`, base: "linear", raw: func([]byte) []byte { return []byte("[1, 2]") }},
		{name: "wrong format", want: `format`, base: "linear", edit: func(m map[string]any) { m["format"] = "other-model" }},
		{name: "no format", want: `format`, base: "linear", edit: func(m map[string]any) { delete(m, "format") }},
		{name: "newer version", want: `version 6: this build reads versions 1 to 5`, base: "linear", edit: func(m map[string]any) { m["version"] = Version + 1 }},
		{name: "centered disagrees", want: `centered is true, but the scaler has 0 means`, base: "linear", edit: func(m map[string]any) { m["scaler"] = map[string]any{"centered": true, "scale": []any{1.0, 1.0, 1.0}} }},
		{name: "version 0", want: `version 0`, base: "dense", edit: func(m map[string]any) { m["version"] = 0 }},
		{name: "unknown field", want: `unknown field "comment"`, base: "linear", edit: func(m map[string]any) { m["comment"] = "hello" }},
		{name: "unknown kernel field", want: `unknown field "sigma"`, base: "dense", edit: func(m map[string]any) { sub(m, "kernel")["sigma"] = 1 }},
		{name: "no outputs", want: `no outputs`, base: "linear", edit: func(m map[string]any) { m["outputs"] = []any{} }},
		{name: "outputs missing", want: `no outputs`, base: "dense", edit: func(m map[string]any) { delete(m, "outputs") }},
		{name: "negative width", want: `width -1`, base: "linear", edit: func(m map[string]any) { m["width"] = -1 }},
		{name: "lambda 0", want: `lambda 0`, base: "linear", edit: func(m map[string]any) { m["lambda"] = 0 }},
		{name: "lambda negative", want: `lambda -0.5`, base: "dense", edit: func(m map[string]any) { m["lambda"] = -0.5 }},
		{name: "lambda string", want: `file.lambda`, base: "linear", edit: func(m map[string]any) { m["lambda"] = "1" }},
		{name: "lambda huge", want: `file.lambda`, base: "linear", edit: func(m map[string]any) { m["lambda"] = json.Number("1e999") }},
		{name: "unknown kernel name", want: `unknown kernel`, base: "dense", edit: func(m map[string]any) { sub(m, "kernel")["name"] = "sigmoid" }},
		{name: "gamma 0", want: `gamma = 0`, base: "dense", edit: func(m map[string]any) { sub(m, "kernel")["gamma"] = 0 }},
		{name: "gamma negative", want: `gamma = -1`, base: "csr", edit: func(m map[string]any) { sub(m, "kernel")["gamma"] = -1 }},
		{name: "weights row of wrong length", want: `weights: row 1`, base: "linear", edit: func(m map[string]any) {
			w := m["weights"].([]any)
			w[1] = w[1].([]any)[:1]
		}},
		{name: "weights row count", want: `weights: 3 rows`, base: "linear", edit: func(m map[string]any) {
			m["weights"] = m["weights"].([]any)[1:]
		}},
		{name: "weight huge", want: `file.weights`, base: "linear", edit: func(m map[string]any) {
			m["weights"].([]any)[0].([]any)[0] = json.Number("1e999")
		}},
		{name: "intercept length mismatch", want: `intercept`, base: "linear", edit: func(m map[string]any) {
			m["intercept"] = append(m["intercept"].([]any), json.Number("1"))
		}},
		{name: "intercept missing", want: `intercept`, base: "linear", edit: func(m map[string]any) { delete(m, "intercept") }},
		{name: "coefficient huge", want: `file.coefficients`, base: "dense", edit: func(m map[string]any) {
			m["coefficients"].([]any)[2].([]any)[1] = json.Number("-1e999")
		}},
		{name: "coefficients row count != points rows", want: `4 coefficient rows for 5 points`, base: "dense", edit: func(m map[string]any) {
			c := m["coefficients"].([]any)
			m["coefficients"] = c[:len(c)-1]
		}},
		{name: "coefficient row of wrong length", want: `coefficients: row 0`, base: "unit", edit: func(m map[string]any) {
			c := m["coefficients"].([]any)
			c[0] = append(c[0].([]any), json.Number("2"))
		}},
		{name: "points rows 0", want: `for 0 points`, base: "dense", edit: func(m map[string]any) { sub(m, "points")["rows"] = 0 }},
		{name: "no points", want: `without points`, base: "dense", edit: func(m map[string]any) { delete(m, "points") }},
		{name: "dense point row of wrong length", want: `points: row 3`, base: "dense", edit: func(m map[string]any) {
			d := sub(m, "points")["dense"].([]any)
			d[3] = d[3].([]any)[1:]
		}},
		{name: "dense point huge", want: `points.dense`, base: "dense", edit: func(m map[string]any) {
			sub(m, "points")["dense"].([]any)[0].([]any)[0] = json.Number("1e999")
		}},
		{name: "CSR indptr not starting at 0", want: `indptr`, base: "csr", edit: func(m map[string]any) {
			sub(m, "points")["indptr"].([]any)[0] = 1
		}},
		{name: "CSR indptr too short", want: `indptr`, base: "csr", edit: func(m map[string]any) {
			p := sub(m, "points")
			ip := p["indptr"].([]any)
			p["indptr"] = ip[:len(ip)-1]
		}},
		{name: "CSR column out of range", want: `column 4`, base: "csr", edit: func(m map[string]any) {
			sub(m, "points")["indices"].([]any)[0] = testWidth
		}},
		{name: "CSR values length", want: `7 values`, base: "csr", edit: func(m map[string]any) {
			p := sub(m, "points")
			v := p["values"].([]any)
			p["values"] = v[:len(v)-1]
		}},
		{name: "unit points for a gaussian kernel", want: `unit points for a gaussian`, base: "unit", edit: func(m map[string]any) {
			m["kernel"] = map[string]any{"name": "gaussian", "gamma": 1}
		}},
		{name: "dense points for a precomputed kernel", want: `"dense" for a precomputed`, base: "dense", edit: func(m map[string]any) {
			m["kernel"] = map[string]any{"name": "precomputed"}
		}},
		{name: "CSR points for a precomputed kernel", want: `"csr" for a precomputed`, base: "csr", edit: func(m map[string]any) {
			m["kernel"] = map[string]any{"name": "precomputed"}
		}},
		{name: "unit index out of range", want: `unit point 6`, base: "unit", edit: func(m map[string]any) {
			sub(m, "points")["unit"].([]any)[1] = testUnitN
		}},
		{name: "unit index negative", want: `unit point -1`, base: "unit", edit: func(m map[string]any) {
			sub(m, "points")["unit"].([]any)[0] = -1
		}},
		{name: "unit count != points rows", want: `unit points`, base: "unit", edit: func(m map[string]any) {
			p := sub(m, "points")
			p["unit"] = p["unit"].([]any)[1:]
		}},
		{name: "unknown points kind", want: `kind "sparse"`, base: "dense", edit: func(m map[string]any) { sub(m, "points")["kind"] = "sparse" }},
		{name: "unknown type", want: `type "tree"`, base: "linear", edit: func(m map[string]any) { m["type"] = "tree" }},
		{name: "no type", want: `type ""`, base: "dense", edit: func(m map[string]any) { delete(m, "type") }},
	}
	// The unedited re-encoding of every base loads: each case differs from a valid file in its one change.
	for name, b := range saved {
		out, err := json.Marshal(jsonMap(t, b))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Load(bytes.NewReader(out)); err != nil {
			t.Fatalf("re-encoded %s model: %v", name, err)
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b []byte
			if tc.raw != nil {
				b = tc.raw(bytes.Clone(saved[tc.base]))
			} else {
				m := jsonMap(t, saved[tc.base])
				tc.edit(m)
				var err error
				if b, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			p, err := Load(bytes.NewReader(b))
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Load(%s) = %v, %v; want ErrCorrupt", b, p, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if p != nil {
				t.Errorf("Load returned a predictor with the error %v", err)
			}
			if !strings.HasPrefix(err.Error(), ErrCorrupt.Error()) {
				t.Errorf("error %q does not start with %q", err, ErrCorrupt)
			}
		})
	}
}

func ExamplePredictor_Predict() {
	// f(x) = 2x₁ − x₂ + 0.5, written by hand.
	p := &Predictor{
		Kernel:  kernel.Spec{Name: "linear"},
		Lambda:  1,
		Width:   2,
		Outputs: []string{"y"},
		W:       mat.NewDense(2, 1, []float64{2, -1}),
		B:       []float64{0.5},
	}
	x := mat.NewDense(3, 2, []float64{
		1, 0,
		0, 1,
		1, 1,
	})
	y, err := p.Predict(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mat.Col(nil, 0, y))

	_, err = p.Predict(mat.NewDense(1, 3, nil))
	fmt.Println(errors.Is(err, ErrWidth))
	// Output:
	// [2.5 -0.5 1.5]
	// true
}
