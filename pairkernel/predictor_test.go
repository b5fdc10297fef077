package pairkernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// trainPredictor fits a Predictor of the kind on fresh data: Gaussian
// object kernels (three pairs of them for sum), m row and q column objects.
func trainPredictor(t *testing.T, rng *rand.Rand, kind Kind) (*Predictor, []kernel.Spec, []kernel.Spec) {
	t.Helper()
	const m, q, n = 9, 7, 60
	nk, w := 1, []float64(nil)
	if kind == Sum {
		nk, w = 2, []float64{0.7, 0.3}
	}
	var rs, cs []kernel.Spec
	for i := range nk {
		rs = append(rs, kernel.Spec{Name: "gaussian", Gamma: 0.2 + 0.1*float64(i)})
		if !kind.Homogeneous() {
			cs = append(cs, kernel.Spec{Name: "gaussian", Gamma: 0.4 + 0.1*float64(i)})
		}
	}
	rows := randPoints(rng, m, 3)
	var cols *mat.Dense
	qq := m
	if !kind.Homogeneous() {
		cols, qq = randPoints(rng, q, 2), q
	}
	p, err := Train(kind, w, rs, cs, rows, cols, randPairs(rng, n, m, qq), randVec(rng, n), 0.5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p, rs, cs
}

// TestPredictorNewObjects: Predictor.Predict on new objects equals the sum
// Σ_p α_p k((u,v),(d_p,t_p)) written out from each kind's formula with the
// Gaussian kernel computed here (δ = 0: new objects are no training
// object), to 1e-12 relative; on the training objects (nil features) it
// equals the model's fitted values.
func TestPredictorNewObjects(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 9))
	for _, kind := range Kinds() {
		p, rs, cs := trainPredictor(t, rng, kind)
		u := randPoints(rng, 4, 3)
		var v *mat.Dense
		var ks, gs []*mat.Dense
		for i := range rs {
			ks = append(ks, gauss(u, p.Rows, rs[i].Gamma))
			if !kind.Homogeneous() {
				gs = append(gs, gauss(v0(&v, rng), p.Cols, cs[i].Gamma))
			}
		}
		nq := 4
		if kind.Homogeneous() {
			v = nil
		}
		test := randPairs(rng, 10, 4, nq)
		got, err := p.Predict(u, v, test)
		if err != nil {
			t.Fatal(err)
		}
		never := func(i, j int) bool { return false }
		for k := range got {
			want, scale := 0.0, 1.0
			for r, a := range p.Model.Coef {
				x := a * pairKernel(kind, p.Weights, ks, gs, never, never, test.Rows[k], test.Cols[k], p.Model.Train.Rows[r], p.Model.Train.Cols[r])
				want += x
				scale += math.Abs(x)
			}
			if !(math.Abs(got[k]-want) <= 1e-12*scale) {
				t.Fatalf("%s: pair %d: %v, formula %v", kind, k, got[k], want)
			}
		}
		fit, err := p.Predict(nil, nil, p.Model.Train)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := p.base(nil, nil)
		want, _ := p.Model.Predict(base, p.Model.Train)
		for k := range fit {
			if fit[k] != want[k] {
				t.Fatalf("%s: fitted value %d: %v, model %v", kind, k, fit[k], want[k])
			}
		}
	}
}

// v0 draws the 4 new column objects once.
func v0(v **mat.Dense, rng *rand.Rand) *mat.Dense {
	if *v == nil {
		*v = randPoints(rng, 4, 2)
	}
	return *v
}

// TestSaveLoad: a saved and loaded predictor predicts bit for bit the same.
func TestSaveLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 10))
	for _, kind := range Kinds() {
		p, _, _ := trainPredictor(t, rng, kind)
		var buf bytes.Buffer
		if err := p.Save(&buf); err != nil {
			t.Fatal(err)
		}
		l, err := Load(&buf)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		u := randPoints(rng, 3, 3)
		var v *mat.Dense
		nq := 3
		if !kind.Homogeneous() {
			v = randPoints(rng, 2, 2)
			nq = 2
		}
		test := randPairs(rng, 6, 3, nq)
		a, err := p.Predict(u, v, test)
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.Predict(u, v, test)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s: prediction %d: %v before saving, %v after loading", kind, i, a[i], b[i])
			}
		}
	}
}

// TestLoadCorrupt: damaged model files are errors wrapping ErrCorrupt, and
// no truncation of a valid file panics.
func TestLoadCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	p, _, _ := trainPredictor(t, rng, Cartesian)
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the model file", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	structured := func(change func(f *predictorFile)) string {
		var f predictorFile
		if err := json.Unmarshal([]byte(good), &f); err != nil {
			t.Fatal(err)
		}
		change(&f)
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := map[string]string{
		"format":        edit(`"rlskit-pairkernel"`, `"rlskit-model"`),
		"kind":          edit(`"cartesian"`, `"kron"`),
		"homogeneous":   edit(`"cartesian"`, `"symmetric"`),
		"weights":       edit(`"pair_kernel":"cartesian",`, `"pair_kernel":"cartesian","weights":[1],`),
		"spec":          edit(`"gaussian","gamma":0.2`, `"gaussian","gamma":-1`),
		"term":          edit(`"Weight":1,"Row":0,"Col":3`, `"Weight":2,"Row":0,"Col":3`),
		"lambda":        edit(`"lambda":0.5`, `"lambda":0`),
		"pair index":    structured(func(f *predictorFile) { f.Pairs[0][3] = len(f.Rows) }),
		"col index":     structured(func(f *predictorFile) { f.Pairs[1][2] = len(f.Cols) }),
		"ragged":        structured(func(f *predictorFile) { f.Rows[2] = append(f.Rows[2], 1) }),
		"extra spec":    structured(func(f *predictorFile) { f.RowSpecs = append(f.RowSpecs, f.RowSpecs[0]) }),
		"swapped pairs": structured(func(f *predictorFile) { f.Pairs[0], f.Pairs[1] = f.Pairs[1], f.Pairs[0] }),
		"unknown":       edit(`"lambda"`, `"lambdas":1,"lambda"`),
		"coef count":    edit(`"coef":[`, `"coef":[1,`),
		"overflow":      edit(`"lambda":0.5`, `"lambda":1e999`),
	}
	for name, s := range cases {
		if _, err := Load(strings.NewReader(s)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v does not wrap ErrCorrupt", name, err)
		}
	}
	for i := range len(good) - 1 {
		if _, err := Load(strings.NewReader(good[:i])); err == nil {
			t.Fatalf("truncated at %d of %d bytes: no error", i, len(good))
		}
	}
}

// TestSharedKernel: a sum whose later terms share a column kernel (equal specs)
// forms that kernel once — the kernel list holds one matrix for both terms
// — and still predicts the formula Σ_p α_p Σ_i w_i k_i(u,d_p) g(v,t_p) on new
// objects to 1e-12 relative.
func TestSharedKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 10))
	rs := []kernel.Spec{{Name: "gaussian", Gamma: 0.2}, {Name: "gaussian", Gamma: 0.6}, {Name: "gaussian", Gamma: 1}}
	g := kernel.Spec{Name: "gaussian", Gamma: 0.4}
	cs := []kernel.Spec{{Name: "gaussian", Gamma: 0.9}, g, g}
	rows, cols := randPoints(rng, 9, 3), randPoints(rng, 7, 2)
	p, err := Train(Sum, []float64{0.7, 0.3, 0.5}, rs, cs, rows, cols, randPairs(rng, 50, 9, 7), randVec(rng, 50), 0.5, Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := p.base(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if base[3] != base[5] || base[1] == base[3] || base[0] == base[2] {
		t.Fatalf("kernel list: the shared column kernel is not one matrix (or the row kernels are)")
	}
	u, v := randPoints(rng, 4, 3), randPoints(rng, 5, 2)
	ks := []*mat.Dense{gauss(u, rows, 0.2), gauss(u, rows, 0.6), gauss(u, rows, 1)}
	gv := gauss(v, cols, 0.4)
	test := randPairs(rng, 12, 4, 5)
	got, err := p.Predict(u, v, test)
	if err != nil {
		t.Fatal(err)
	}
	never := func(i, j int) bool { return false }
	for k := range got {
		want, scale := 0.0, 1.0
		for r, a := range p.Model.Coef {
			x := a * pairKernel(Sum, p.Weights, ks, []*mat.Dense{gauss(v, cols, 0.9), gv, gv}, never, never, test.Rows[k], test.Cols[k], p.Model.Train.Rows[r], p.Model.Train.Cols[r])
			want += x
			scale += math.Abs(x)
		}
		if !(math.Abs(got[k]-want) <= 1e-12*scale) {
			t.Fatalf("pair %d: %v, formula %v", k, got[k], want)
		}
	}
}
