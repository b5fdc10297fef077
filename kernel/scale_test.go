package kernel

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/rlskit/rlskit/matrix"
)

// scaleData is an m×d matrix with features on different scales and offsets
// (raw, unstandardized data), about a third of its entries zero.
func scaleData(m, d int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(m, d, nil)
	for i := range m {
		for j := range d {
			if r.IntN(3) == 0 {
				continue
			}
			x.Set(i, j, float64(j+1)*10*r.NormFloat64()+float64(j*j))
		}
	}
	return x
}

// toCSR stores the non-zeros of x.
func toCSR(t *testing.T, x *mat.Dense) *matrix.CSR {
	t.Helper()
	m, d := x.Dims()
	indptr := []int{0}
	var idx []int
	var val []float64
	for i := range m {
		for j := range d {
			if v := x.At(i, j); v != 0 {
				idx, val = append(idx, j), append(val, v)
			}
		}
		indptr = append(indptr, len(val))
	}
	c, err := matrix.NewCSR(m, d, indptr, idx, val)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestScaleGammaDirect checks ScaleGamma against 1/(d·PopVariance) of the
// flattened entries, for dense and CSR data, and the degenerate cases.
func TestScaleGammaDirect(t *testing.T) {
	x := scaleData(57, 6, 3)
	_, v := stat.PopMeanVariance(x.RawMatrix().Data, nil)
	want := 1 / (6 * v)
	if got := ScaleGamma(x); math.Abs(got-want) > 1e-13*want {
		t.Errorf("dense: ScaleGamma = %.17g, direct 1/(d·var) = %.17g", got, want)
	}
	if got := ScaleGamma(toCSR(t, x)); math.Abs(got-want) > 1e-13*want {
		t.Errorf("CSR: ScaleGamma = %.17g, direct 1/(d·var) = %.17g", got, want)
	}
	if got := ScaleGamma(x.T()); math.Abs(got-1/(57*v)) > 1e-13/(57*v) { // any mat.Matrix: d is its width
		t.Errorf("transpose: ScaleGamma = %.17g, want %.17g", got, 1/(57*v))
	}
	constant := mat.NewDense(4, 3, []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2})
	if got := ScaleGamma(constant); got != 1 {
		t.Errorf("constant data: ScaleGamma = %g, want 1 (scikit-learn's value for zero variance)", got)
	}
	empty, _ := matrix.NewCSR(3, 4, []int{0, 0, 0, 0}, nil, nil)
	if got := ScaleGamma(empty); got != 1 {
		t.Errorf("all-zero CSR: ScaleGamma = %g, want 1", got)
	}
}

// sklearnGamma is the Python program printing SVR(gamma="scale")'s _gamma
// on the dense data and on its CSR form.
const sklearnGamma = `
import json, sys
import numpy as np, scipy.sparse as sp
from sklearn.svm import SVR
d = json.load(sys.stdin)
X, y = np.array(d["x"]), np.array(d["y"])
dense = SVR(gamma="scale").fit(X, y)._gamma
sparse = SVR(gamma="scale").fit(sp.csr_matrix(X), y)._gamma
print(json.dumps({"dense": dense, "sparse": sparse}))
`

// TestScaleGammaSklearn checks ScaleGamma against scikit-learn's
// SVR(gamma="scale") on dense and sparse data. It skips without
// /usr/bin/python3 and scikit-learn, except under CI.
func TestScaleGammaSklearn(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy, scipy, sklearn").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s with numpy, scipy and scikit-learn is missing under CI: %v", py, err)
		}
		t.Skipf("%s with scikit-learn is not available: gamma=scale is not compared (%v)", py, err)
	}
	x := scaleData(40, 5, 8)
	m, d := x.Dims()
	rows := make([][]float64, m)
	for i := range rows {
		rows[i] = mat.Row(nil, i, x)
	}
	in, _ := json.Marshal(map[string]any{"x": rows, "y": make([]float64, m)})
	cmd := exec.Command(py, "-c", sklearnGamma)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scikit-learn: %v", err)
	}
	var got struct{ Dense, Sparse float64 }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("scikit-learn output %q: %v", out, err)
	}
	_ = d
	dense, sparse := ScaleGamma(x), ScaleGamma(toCSR(t, x))
	// the data are a few standard deviations from the origin: E[x²] − μ²
	// (scikit-learn's sparse formula) loses few digits
	for _, c := range []struct {
		name      string
		ours, skl float64
	}{{"dense", dense, got.Dense}, {"sparse", sparse, got.Sparse}} {
		if math.Abs(c.ours-c.skl) > 1e-12*c.skl {
			t.Errorf("%s: ScaleGamma = %.17g, scikit-learn gamma=scale = %.17g", c.name, c.ours, c.skl)
		}
	}
}

// TestDegenerate checks the K ≈ I and K ≈ c·11ᵀ warnings of a gaussian
// kernel: γ far too large for unscaled data, far too small, and γ = scale.
func TestDegenerate(t *testing.T) {
	x := scaleData(650, 6, 5) // more rows than the sample: every third row
	for _, c := range []struct {
		gamma float64
		want  Degeneracy
	}{
		{1e4, Identity}, // squared distances of tens and more: exp(−γ‖x−z‖²) underflows
		{ScaleGamma(x), NotDegenerate},
		{1e-18, Constant}, // exp(−γ‖x−z‖²) = 1 to rounding
	} {
		for _, data := range []mat.Matrix{x, toCSR(t, x)} {
			got, err := Degenerate(Gaussian{Gamma: c.gamma}, data)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("gaussian γ = %g on %T: Degenerate = %q, want %q", c.gamma, data, got, c.want)
			}
		}
	}
	// the linear kernel of centred features is neither; of one repeated row, constant
	if got, _ := Degenerate(Linear{}, x); got != NotDegenerate {
		t.Errorf("linear: Degenerate = %q, want none", got)
	}
	same := mat.NewDense(5, 2, []float64{1, 2, 1, 2, 1, 2, 1, 2, 1, 2})
	if got, _ := Degenerate(Linear{Bias: 1}, same); got != Constant {
		t.Errorf("linear on one repeated row: Degenerate = %q, want constant", got)
	}
	if got, _ := Degenerate(Gaussian{Gamma: 1e6}, same.Slice(0, 1, 0, 2)); got != NotDegenerate {
		t.Errorf("one row: Degenerate = %q, want none", got)
	}
}
