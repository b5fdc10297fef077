package pairkernel

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"gonum.org/v1/gonum/mat"
)

type rlsCase struct {
	Kernels [][][]float64 `json:"kernels"`
	Cross   [][][]float64 `json:"cross"`
	Terms   [][4]any      `json:"terms"`
	Train   [2][]int      `json:"train"`
	Test    [2][]int      `json:"test"`
	Y       []float64     `json:"y"`
	Lambda  float64       `json:"lambda"`
	V       []float64     `json:"v"`
	MaxIter int           `json:"maxiter"`
}

type rlsResult struct {
	MV      []float64 `json:"mv"`
	A       []float64 `json:"a"`
	Fitted  []float64 `json:"fitted"`
	Pred    []float64 `json:"pred"`
	Solver  string    `json:"solver"`
	Seconds float64   `json:"seconds"`
}

func rows(a *mat.Dense) [][]float64 {
	r, _ := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = a.RawRowView(i)
	}
	return out
}

// runRLScore runs testdata/rlscore_pko.py, or skips the test when Python
// with NumPy, SciPy and RLScore at /tmp/rlscore (built from its public
// repository, never committed) is missing.
func runRLScore(t *testing.T, cases []rlsCase) []rlsResult {
	t.Helper()
	const py, dir = "/usr/bin/python3", "/tmp/rlscore"
	env := append(os.Environ(), "PYTHONPATH="+dir)
	probe := exec.Command(py, "-c", "import numpy, scipy, rlscore.utilities.pairwise_kernel_operator, rlscore.learner.cg_kron_rls")
	probe.Env = env
	if err := probe.Run(); err != nil {
		t.Skipf("%s with NumPy, SciPy and RLScore at %s is not available: pairwise kernels not compared with RLScore (%v)", py, dir, err)
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "testdata/rlscore_pko.py")
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("RLScore: %v\n%s", err, stderr.String())
	}
	var res []rlsResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("RLScore output: %v", err)
	}
	return res
}

// TestRLScore: on fresh data, for every kind, the operator's product equals
// RLScore's PairwiseKernelOperator's (the same weighted sum of sampled
// Kronecker products, given the same kernel list and index vectors) to
// 1e-12 relative, and the model's coefficients, fitted values and test
// predictions equal RLScore's CGKronRLS(pko=…) to 1e-6. When CGKronRLS
// cannot run (Debian's SciPy minres() lacks its rtol keyword), the same
// MINRES on RLScore's operator plus λI is run with SciPy's tol, and the
// test says so (it does with SciPy 1.10). RLScore has no named kernels:
// it is given this package's kernel list and terms (Kind.Base, Kind.Terms),
// so this checks the vec trick and the solver — for the prediction
// operator in both orderings of the product — while the kinds' definitions
// are checked against their formulas by TestMulVecEqualsDense.
func TestRLScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	var cases []rlsCase
	var probs []*problem
	for _, sh := range [][2]int{{7, 6}, {2, 15}} { // the second takes the product's other ordering for prediction
		for _, kind := range Kinds() {
			cases, probs = addRLSCase(t, rng, kind, sh[0], sh[1], cases, probs)
		}
	}
	res := runRLScore(t, cases)
	if len(res) != len(cases) {
		t.Fatalf("RLScore answered %d of %d cases", len(res), len(cases))
	}
	for i, pr := range probs {
		c, r := cases[i], res[i]
		t.Logf("%s: RLScore solver: %s", pr.kind, r.Solver)
		base, terms := pr.base(t, false), pr.terms(t)
		op, err := NewOperator(base, terms, pr.train, pr.train)
		if err != nil {
			t.Fatal(err)
		}
		mv := make([]float64, len(c.V))
		op.MulVec(mv, c.V)
		for p := range mv {
			if math.Abs(mv[p]-r.MV[p]) > 1e-12*(1+math.Abs(r.MV[p]))*float64(len(mv)) {
				t.Fatalf("%s: product %d: %v, RLScore %v", pr.kind, p, mv[p], r.MV[p])
			}
		}
		m, err := Fit(base, terms, pr.train, c.Y, c.Lambda, Options{Tol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(pr.base(t, true), pr.test)
		if err != nil {
			t.Fatal(err)
		}
		fitted, err := m.Predict(base, pr.train)
		if err != nil {
			t.Fatal(err)
		}
		for _, cmp := range []struct {
			what      string
			got, want []float64
		}{{"coefficient", m.Coef, r.A}, {"fitted value", fitted, r.Fitted}, {"prediction", pred, r.Pred}} {
			for p := range cmp.got {
				if !(math.Abs(cmp.got[p]-cmp.want[p]) <= 1e-6) {
					t.Fatalf("%s: %s %d: %v, RLScore %v", pr.kind, cmp.what, p, cmp.got[p], cmp.want[p])
				}
			}
		}
	}
}

// addRLSCase draws a fresh problem of the kind with m2 and q2 test objects
// and appends it as a case for RLScore.
func addRLSCase(t *testing.T, rng *rand.Rand, kind Kind, m2, q2 int, cases []rlsCase, probs []*problem) ([]rlsCase, []*problem) {
	pr := newProblem(rng, kind, 120, 12, 10, 30, m2, q2)
	c := rlsCase{Y: randVec(rng, pr.train.Len()), V: randVec(rng, pr.train.Len()), Lambda: 0.25, MaxIter: 2000,
		Train: [2][]int{pr.train.Rows, pr.train.Cols}, Test: [2][]int{pr.test.Rows, pr.test.Cols}}
	for _, k := range pr.base(t, false) {
		c.Kernels = append(c.Kernels, rows(k))
	}
	for _, k := range pr.base(t, true) {
		c.Cross = append(c.Cross, rows(k))
	}
	for _, tm := range pr.terms(t) {
		c.Terms = append(c.Terms, [4]any{tm.Weight, tm.Row, tm.Col, tm.Swapped})
	}
	cases = append(cases, c)
	return cases, append(probs, pr)
}
