package pairwise

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// rlscoreKronPython returns the interpreter and PYTHONPATH for RLScore at
// /tmp/rlscore (built from its public repository, never committed), or
// skips the test when either is missing.
func rlscoreKronPython(t testing.TB) (string, string) {
	t.Helper()
	const py, dir = "/usr/bin/python3", "/tmp/rlscore"
	cmd := exec.Command(py, "-c", "import numpy, rlscore.learner.kron_rls")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	if err := cmd.Run(); err != nil {
		t.Skipf("%s with numpy and RLScore at %s is not available: conditional ranking is not compared with RLScore (%v)", py, dir, err)
	}
	return py, dir
}

type rankCase struct {
	X1     [][]float64 `json:"x1"`
	X2     [][]float64 `json:"x2"`
	Y      [][]float64 `json:"y"`
	T1     [][]float64 `json:"t1"`
	T2     [][]float64 `json:"t2"`
	Lambda float64     `json:"lambda"`
}

type rankResult struct {
	W       [][]float64 `json:"w"`
	P       [][]float64 `json:"p"`
	Seconds float64     `json:"seconds"`
}

func rows2(a *mat.Dense) [][]float64 {
	r, _ := a.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = append([]float64(nil), a.RawRowView(i)...)
	}
	return out
}

func dense2(v [][]float64) *mat.Dense {
	out := mat.NewDense(len(v), len(v[0]), nil)
	for i, r := range v {
		out.SetRow(i, r)
	}
	return out
}

// runRLScoreRank runs testdata/rlscore_kronrank.py on the cases.
func runRLScoreRank(t testing.TB, cases []rankCase) []rankResult {
	t.Helper()
	py, dir := rlscoreKronPython(t)
	arg, _ := json.Marshal(cases)
	cmd := exec.Command(py, "testdata/rlscore_kronrank.py", string(arg))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("RLScore: %v", err)
	}
	var res []rankResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("RLScore output: %v", err)
	}
	return res
}

// randRankCase draws fresh data: m×d row and q×e column objects, labels
// with a row-dependent ranking of the columns, and new objects to score.
func randRankCase(seed uint64, m, d, q, e int, lambda float64) rankCase {
	rng := rand.New(rand.NewPCG(seed, 2025))
	draw := func(r, c int) [][]float64 {
		out := make([][]float64, r)
		for i := range out {
			out[i] = make([]float64, c)
			for j := range out[i] {
				out[i][j] = rng.NormFloat64()
			}
		}
		return out
	}
	c := rankCase{X1: draw(m, d), X2: draw(q, e), T1: draw(4, d), T2: draw(5, e), Lambda: lambda}
	c.Y = make([][]float64, m)
	for i := range c.Y {
		c.Y[i] = make([]float64, q)
		for j := range c.Y[i] {
			c.Y[i][j] = c.X1[i][0]*c.X2[j][0] - c.X1[i][1%d]*c.X2[j][1%e] + 0.3*rng.NormFloat64()
		}
	}
	return c
}

// TestKronRankRLScore is issue 25's acceptance for conditional ranking:
// on fresh data, RLScore's KronRLS.solve_linear_conditional_ranking gives
// the weights W and the scores of new pairs that the linear form
// (FitKronRankLinear) and the dual form (KronRank with linear kernels,
// through its model) give, to 1e-9 of their scale. Cases: d < m with
// e > q (C X₂ of rank q − 1 < e: RLScore drops the zero singular values,
// the eigen form damps them), d > m, and λ from 1e-2 to 1e2.
func TestKronRankRLScore(t *testing.T) {
	cases := []rankCase{
		randRankCase(1, 9, 4, 7, 10, 1),
		randRankCase(2, 6, 8, 11, 3, 1e-2),
		randRankCase(3, 12, 5, 9, 6, 100),
	}
	res := runRLScoreRank(t, cases)
	lin := kernel.Linear{}
	for ci, c := range cases {
		x1, x2, y := dense2(c.X1), dense2(c.X2), dense2(c.Y)
		t1, t2 := dense2(c.T1), dense2(c.T2)
		wantW, wantP := dense2(res[ci].W), dense2(res[ci].P)

		lr, err := FitKronRankLinear(x1, x2, y)
		if err != nil {
			t.Fatal(err)
		}
		w, err := lr.Solve(c.Lambda)
		if err != nil {
			t.Fatal(err)
		}
		dw := relDiff(w, wantW)
		if dw > 1e-9 {
			t.Errorf("case %d: linear W differs from RLScore's by %.3g", ci, dw)
		}
		p, err := PredictLinear(w, t1, t2)
		if err != nil {
			t.Fatal(err)
		}
		dp := relDiff(p, wantP)
		if dp > 1e-9 {
			t.Errorf("case %d: linear scores of new pairs differ from RLScore's by %.3g", ci, dp)
		}
		// the dual form with linear kernels, through its model
		rows, err := NewSide(x1, lin, false)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := NewSide(x2, lin, false)
		if err != nil {
			t.Fatal(err)
		}
		m, q := y.Dims()
		var pairs []Pair
		var ys []float64
		for i := 0; i < m; i++ {
			for j := 0; j < q; j++ {
				pairs, ys = append(pairs, Pair{i, j}), append(ys, y.At(i, j))
			}
		}
		kr, err := FitKronRank(rows, cols, pairs, ys)
		if err != nil {
			t.Fatal(err)
		}
		s, err := kr.Solve(c.Lambda)
		if err != nil {
			t.Fatal(err)
		}
		m2, _ := t1.Dims()
		q2, _ := t2.Dims()
		var ri, cj []int
		for i := 0; i < m2; i++ {
			for j := 0; j < q2; j++ {
				ri, cj = append(ri, i), append(cj, j)
			}
		}
		got, err := s.PairModel().Predict(t1, t2, ri, cj)
		if err != nil {
			t.Fatal(err)
		}
		dd := relDiff(mat.NewDense(m2, q2, got), wantP)
		if dd > 1e-9 {
			t.Errorf("case %d: dual scores of new pairs differ from RLScore's by %.3g", ci, dd)
		}
		t.Logf("case %d: relative differences from RLScore: W %.2g, linear scores %.2g, dual scores %.2g", ci, dw, dp, dd)
	}
}

// TestKronRankLinearRefusals: bad shapes, too few columns and non-finite
// input are errors naming the reason, never panics.
func TestKronRankLinearRefusals(t *testing.T) {
	c := randRankCase(4, 5, 3, 4, 2, 1)
	x1, x2, y := dense2(c.X1), dense2(c.X2), dense2(c.Y)
	if _, err := FitKronRankLinear(x1, x2, mat.NewDense(4, 4, nil)); err == nil {
		t.Error("4×4 labels for 5 rows accepted")
	}
	if _, err := FitKronRankLinear(nil, x2, y); err == nil {
		t.Error("no row objects accepted")
	}
	if _, err := FitKronRankLinear(x1, mat.NewDense(1, 2, nil), mat.NewDense(5, 1, nil)); err == nil {
		t.Error("one column accepted")
	}
	bad := mat.DenseCopyOf(y)
	bad.Set(2, 3, 1/zero())
	if _, err := FitKronRankLinear(x1, x2, bad); err == nil {
		t.Error("an infinite label accepted")
	}
	lr, err := FitKronRankLinear(x1, x2, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lr.Solve(-1); err == nil {
		t.Error("λ = −1 accepted")
	}
	w, _ := lr.Solve(1)
	if _, err := PredictLinear(w, x2, x2); err == nil {
		t.Error("row objects of the wrong width accepted")
	}
	if _, err := PredictLinear(w, x1, x1); err == nil {
		t.Error("column objects of the wrong width accepted")
	}
}

func zero() float64 { return 0 }
