package model

import (
	"bytes"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// hugeModel is a 292-byte kernel model over sparse points of width 10¹².
const hugeModel = `{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"gaussian","gamma":1},` +
	`"lambda":1,"width":1000000000000,"outputs":["y"],"type":"kernel","points":{"kind":"csr","rows":2,` +
	`"indptr":[0,1,2],"indices":[0,999999999999],"values":[1,2]},"coefficients":[[1],[2]]}`

// Acceptance (reliability issue B): a model file of a few hundred bytes that
// declares a width of 10¹² used to make predict run out of memory (5·10⁸
// took 7.8 GB). Loading it and predicting one row costs a few MB.
func TestHugeWidthModelAllocatesLittle(t *testing.T) {
	if len(hugeModel) > 400 {
		t.Fatalf("%d bytes", len(hugeModel))
	}
	sparseLinear := strings.Replace(strings.Replace(hugeModel, `"type":"kernel","points":{"kind":"csr","rows":2,"indptr":[0,1,2],"indices":[0,999999999999],"values":[1,2]},"coefficients":[[1],[2]]`,
		`"type":"linear","weight_index":[5,999999999999],"weights":[[1],[-2]],"intercept":[0.5]`, 1), `{"name":"gaussian","gamma":1}`, `{"name":"linear"}`, 1)
	const width = 1_000_000_000_000
	x, err := matrix.NewCSR(1, width, []int{0, 1}, []int{width - 1}, []float64{2})
	if err != nil {
		t.Fatal(err)
	}
	for name, file := range map[string]string{"kernel": hugeModel, "sparse linear": sparseLinear} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := Load(strings.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		y, err := p.Predict(x)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%s: loading %d bytes and predicting a row allocated %d bytes", name, len(file), got)
		}
		want := 2 + math.Exp(-5) // kernel: k = 1 at the second point, e^−(1+4) at the first
		if name == "sparse linear" {
			want = 0.5 - 2*2
		}
		if v := y.At(0, 0); math.Abs(v-want) > 1e-12 {
			t.Errorf("%s: predicted %v, want %v", name, v, want)
		}
	}
	// A dense model cannot claim a width its rows do not have, and the claim
	// allocates nothing.
	dense := strings.Replace(hugeModel, `"kind":"csr","rows":2,"indptr":[0,1,2],"indices":[0,999999999999],"values":[1,2]`, `"kind":"dense","rows":2,"dense":[[1],[2]]`, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Load(strings.NewReader(dense))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "row 0 has 1 values") {
		t.Errorf("dense points shorter than the width: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("refusing the dense model allocated %d bytes", got)
	}
}

// Regression (reliability issue D): the loader accepted trailing garbage, two
// concatenated models, a linear model with a gaussian kernel, a 1e-320 scale
// and parameters that predict NaN. Each is refused with ErrCorrupt and the
// reason.
func TestLoadRefusesInconsistentModels(t *testing.T) {
	lin := `{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"linear","bias":1},"lambda":1,"width":2,` +
		`"outputs":["y"],"type":"linear","weights":[[1],[2]],"intercept":[0.5]}`
	ker := `{"format":"rlskit-model","version":1,"learner":"rls","kernel":{"name":"gaussian","gamma":1},"lambda":1,"width":2,` +
		`"outputs":["y"],"type":"kernel","points":{"kind":"dense","rows":2,"dense":[[1,2],[3,4]]},"coefficients":[[1],[2]]}`
	for _, base := range []string{lin, ker} {
		if _, err := Load(strings.NewReader(base + "\n \t\n")); err != nil {
			t.Fatalf("valid model: %v", err)
		}
	}
	r := strings.NewReplacer
	cases := []struct{ name, file, want string }{
		{"trailing garbage", lin + "garbage", "data after the model"},
		{"trailing brace", lin + "}", "data after the model"},
		{"two models", lin + "\n" + lin, "one model per file"},
		{"two models, no space", ker + ker, "one model per file"},
		{"linear type, gaussian kernel", r(`{"name":"linear","bias":1}`, `{"name":"gaussian","gamma":1}`).Replace(lin), "linear model with a gaussian kernel"},
		{"linear type, precomputed kernel", r(`{"name":"linear","bias":1}`, `{"name":"precomputed"}`).Replace(lin), "linear model with a precomputed kernel"},
		{"kernel type with weights", r(`"coefficients"`, `"weights":[[1],[1]],"coefficients"`).Replace(ker), "weights in a kernel model"},
		{"linear type with points", r(`"intercept"`, `"points":{"kind":"dense","rows":1,"dense":[[1,1]]},"intercept"`).Replace(lin), "points or coefficients in a linear model"},
		{"subnormal scale", r(`"type"`, `"scaler":{"scale":[1,1e-320]},"type"`).Replace(lin), "scale 1 is 1e-320"},
		{"zero scale", r(`"type"`, `"scaler":{"scale":[0,1]},"type"`).Replace(lin), "scale 0 is 0"},
		{"scaler index and mean", r(`"type"`, `"scaler":{"mean":[0,0],"scale":[2],"index":[1]},"type"`).Replace(lin), "means and an index"},
		{"scaler index out of range", r(`"type"`, `"scaler":{"scale":[2],"index":[2]},"type"`).Replace(lin), "scaler index"},
		{"scaler unknown field", r(`"type"`, `"scaler":{"scale":[1,1],"shift":[0,0]},"type"`).Replace(lin), "unknown field"},
		{"weights that overflow", r(`[[1],[2]]`, `[[1e308],[1e308]]`).Replace(lin), "can predict beyond float64"},
		{"weights that cancel to NaN", r(`[[1],[2]]`, `[[1.7e308],[-1.7e308]]`).Replace(lin), "can predict beyond float64"},
		{"intercept near the limit", r(`[0.5]`, `[1.7e308]`).Replace(lin), "can predict beyond float64"},
		{"coefficients that overflow", r(`[[1],[2]]}`, `[[1.7e308],[1.7e308]]}`).Replace(ker), "coefficients and points can predict beyond float64"},
		{"points that overflow the kernel", r(`[[1,2],[3,4]]`, `[[1e155,2],[3,4]]`).Replace(ker), "overflow"},
		{"polynomial that overflows", r(`{"name":"gaussian","gamma":1}`, `{"name":"polynomial","gamma":1,"degree":300}`, `[[1,2],[3,4]]`, `[[2,2],[1,1]]`).Replace(ker), "can predict beyond float64"},
		{"weight_index not increasing", r(`"weights"`, `"weight_index":[1,0],"weights"`).Replace(lin), "weight_index"},
		{"weight_index beyond the width", r(`"weights"`, `"weight_index":[0,2],"weights"`).Replace(lin), "weight_index"},
		{"weight_index of another length", r(`"weights"`, `"weight_index":[1],"weights"`).Replace(lin), "weights: 2 rows, want 1"},
		{"classes not increasing", r(`"outputs":["y"]`, `"outputs":["a","b"]`, `"classes"`, `"classes"`, `[[1],[2]]`, `[[1,1],[2,2]]`, `[0.5]`, `[0.5,0.5]`, `"type"`, `"classes":[2,1],"class_label":"c","type"`).Replace(lin), "not increasing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Load(strings.NewReader(c.file))
			if !errors.Is(err, ErrCorrupt) || p != nil {
				t.Fatalf("Load = %v, %v; want ErrCorrupt\n%s", p, err, c.file)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not give the reason %q", err, c.want)
			}
		})
	}
}

// A linear predictor over sparse data keeps only the weights of the features
// its data used (WIndex); it predicts what the full weight matrix does and
// survives Save and Load.
func TestSparseWeights(t *testing.T) {
	full := mat.NewDense(6, 2, []float64{0, 0, 1, -1, 0, 0, 0, 0, 2.5, 3, 0, 0})
	sparse := &Predictor{Learner: "rls", Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 6, Outputs: []string{"a", "b"},
		WIndex: []int{1, 4}, W: mat.NewDense(2, 2, []float64{1, -1, 2.5, 3}), B: []float64{0.5, -1}}
	dense := &Predictor{Learner: "rls", Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 6, Outputs: []string{"a", "b"},
		W: full, B: []float64{0.5, -1}}
	x := mat.NewDense(3, 6, []float64{
		1, 2, 3, 4, 5, 6,
		0, 0, 0, 0, 0, 0,
		-1, 0.5, 0, 0, -2, 7,
	})
	xs, _ := matrix.NewCSR(3, 6, []int{0, 6, 6, 10}, []int{0, 1, 2, 3, 4, 5, 0, 1, 4, 5}, []float64{1, 2, 3, 4, 5, 6, -1, 0.5, -2, 7})
	loaded, err := Load(bytes.NewReader(save(t, sparse)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(save(t, sparse)), `"weight_index":[1,4]`) {
		t.Errorf("saved %s", save(t, sparse))
	}
	for _, in := range []mat.Matrix{x, xs} {
		want, err := dense.Predict(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []*Predictor{sparse, loaded} {
			got, err := p.Predict(in)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got, want, 1e-15) {
				t.Errorf("sparse weights predict\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
			}
		}
	}
	// No features used at all: an empty index, kept apart from none.
	empty := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 1 << 50, Outputs: []string{"y"},
		WIndex: []int{}, W: &mat.Dense{}, B: []float64{2}}
	q, err := Load(bytes.NewReader(save(t, empty)))
	if err != nil || q.WIndex == nil {
		t.Fatalf("empty index: %v %v", q, err)
	}
	row, _ := matrix.NewCSR(1, 1<<50, []int{0, 1}, []int{7}, []float64{3})
	if y, err := q.Predict(row); err != nil || y.At(0, 0) != 2 {
		t.Errorf("empty index predicts %v %v", y, err)
	}
}

// naiveScaler is FitScaler's plain formula: mean, then the root mean square
// deviation, column by column.
func naiveScaler(x *mat.Dense) ([]float64, []float64) {
	m, d := x.Dims()
	mean, scale := make([]float64, d), make([]float64, d)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			mean[j] += x.At(i, j)
		}
	}
	for j := range mean {
		mean[j] /= float64(m)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			v := x.At(i, j) - mean[j]
			scale[j] += v * v
		}
	}
	for j := range scale {
		scale[j] = math.Sqrt(scale[j] / float64(m))
		if scale[j] == 0 {
			scale[j] = 1
		}
	}
	return mean, scale
}

// Regression (reliability issue D): --standardize zeroed features below about
// 1e-154, whose squares underflow. FitScaler scales each column by a power of
// two first: tiny and huge columns get their true spread, ordinary data the
// very bits of the plain formula.
func TestFitScalerStable(t *testing.T) {
	x := mat.NewDense(4, 5, []float64{
		1e-160, 3e-300, 1e308, 0.1, 7,
		3e-160, -3e-300, -1e308, 0.7, 7,
		2e-160, 1e-300, 1e308, -2.2, 7,
		-1e-160, 0, -1e308, 1.9, 7,
	})
	s := FitScaler(x)
	wantMean := []float64{1.25e-160, 0.25e-300, 0, 0.125, 7}
	for j, w := range wantMean {
		if math.Abs(s.Mean[j]-w) > 1e-12*math.Abs(w)+1e-320 {
			t.Errorf("mean %d = %v, want %v", j, s.Mean[j], w)
		}
	}
	sd := func(v ...float64) float64 {
		mu := 0.0
		for _, x := range v {
			mu += x
		}
		mu /= float64(len(v))
		ss := 0.0
		for _, x := range v {
			ss += (x - mu) * (x - mu)
		}
		return math.Sqrt(ss / float64(len(v)))
	}
	wantScale := []float64{sd(1, 3, 2, -1) * 1e-160, sd(3, -3, 1, 0) * 1e-300, 1e308, sd(0.1, 0.7, -2.2, 1.9), 1}
	for j, w := range wantScale {
		if math.Abs(s.Scale[j]-w) > 1e-12*w {
			t.Errorf("scale %d = %v, want %v", j, s.Scale[j], w)
		}
	}
	xs, err := s.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	if v := xs.At(1, 0); math.Abs(v-(3-1.25)/sd(1, 3, 2, -1)) > 1e-12 {
		t.Errorf("standardized 3e-160 = %v", v)
	}
	// Ordinary data: the same bits as the plain formula.
	y := mat.NewDense(3, 3, []float64{1.5, -2, 1e3, 0.25, 4, 2e3, 3, 9, -7})
	mean, scale := naiveScaler(y)
	sy := FitScaler(y)
	for j := range mean {
		if math.Float64bits(sy.Mean[j]) != math.Float64bits(mean[j]) || math.Float64bits(sy.Scale[j]) != math.Float64bits(scale[j]) {
			t.Errorf("column %d: %v %v, plain formula %v %v", j, sy.Mean[j], sy.Scale[j], mean[j], scale[j])
		}
	}
	// Sparse: root mean squares of tiny values, only for the features used.
	sp, _ := matrix.NewCSR(2, 1<<40, []int{0, 1, 3}, []int{3, 3, 1 << 39}, []float64{3e-200, 4e-200, 2})
	ss := FitScaler(sp)
	if len(ss.Index) != 2 || ss.Index[0] != 3 || math.Abs(ss.Scale[0]-math.Sqrt(12.5)*1e-200) > 1e-212 || ss.Scale[1] != math.Sqrt2 || ss.Mean != nil {
		t.Errorf("sparse scaler %+v", ss)
	}
	tr, err := ss.Transform(sp)
	if err != nil || math.Abs(tr.At(1, 3)-4/math.Sqrt(12.5)) > 1e-12 || math.Abs(tr.At(1, 1<<39)-math.Sqrt2) > 1e-15 {
		t.Errorf("sparse transform: %v", err)
	}
	// A subnormal spread gets scale 1: dividing by it would overflow.
	sub := FitScaler(mat.NewDense(2, 1, []float64{1e-310, -1e-310}))
	if sub.Scale[0] != 1 {
		t.Errorf("subnormal spread: scale %v", sub.Scale[0])
	}
}

// A sparse scaler round-trips through a model file, an empty one included,
// and scales dense data of the model's width as well.
func TestSparseScalerSaveLoad(t *testing.T) {
	for _, sc := range []*Scaler{{Index: []int{1}, Scale: []float64{4}}, {Index: []int{}, Scale: []float64{}}} {
		p := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 3, Outputs: []string{"y"},
			W: mat.NewDense(3, 1, []float64{1, 1, 1}), B: []float64{0}, Scaler: sc}
		q, err := Load(bytes.NewReader(save(t, p)))
		if err != nil {
			t.Fatal(err)
		}
		if q.Scaler.Index == nil || len(q.Scaler.Index) != len(sc.Index) {
			t.Fatalf("index %v, want %v", q.Scaler.Index, sc.Index)
		}
		y, err := q.Predict(mat.NewDense(1, 3, []float64{1, 8, 1}))
		want := 10.0
		if len(sc.Index) == 1 {
			want = 4
		}
		if err != nil || y.At(0, 0) != want {
			t.Errorf("predicted %v %v, want %v", y, err, want)
		}
	}
}

// Predictions that overflow, and data that would overflow the kernel, are
// errors naming the row, not NaN.
func TestPredictOverflowIsAnError(t *testing.T) {
	lin := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 2, Outputs: []string{"y"},
		W: mat.NewDense(2, 1, []float64{1e300, 1e300}), B: []float64{0}}
	_, err := lin.Predict(mat.NewDense(3, 2, []float64{1, 1, 1e10, 1e10, 0, 0}))
	var oe *OverflowError
	if !errors.Is(err, ErrOverflow) || !errors.As(err, &oe) || oe.Row != 1 || !strings.Contains(err.Error(), "data row 2") {
		t.Errorf("linear overflow: %v", err)
	}
	g := &Predictor{Kernel: kernel.Spec{Name: "gaussian", Gamma: 1}, Lambda: 1, Width: 1, Outputs: []string{"y"},
		Points: mat.NewDense(1, 1, []float64{0}), A: mat.NewDense(1, 1, []float64{1})}
	_, err = g.Predict(mat.NewDense(2, 1, []float64{0, 1e155}))
	var ve *kernel.ValueError
	if !errors.Is(err, kernel.ErrOverflow) || !errors.As(err, &ve) || ve.Row != 1 || ve.Col != 0 {
		t.Errorf("gaussian overflow: %v", err)
	}
}
