package pairwise

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// svmRLScoreCase is one run of testdata/rlscore_kronsvm.py: dual (K1, K2
// and the test-by-training kernel rows T1, T2) or primal (X1, X2 and the
// test features T1, T2).
type svmRLScoreCase struct {
	K1        [][]float64 `json:"k1,omitempty"`
	K2        [][]float64 `json:"k2,omitempty"`
	X1        [][]float64 `json:"x1,omitempty"`
	X2        [][]float64 `json:"x2,omitempty"`
	Rows      []int       `json:"rows"`
	Cols      []int       `json:"cols"`
	Y         []float64   `json:"y"`
	Lambda    float64     `json:"lambda"`
	MaxIter   int         `json:"maxiter"`
	InnerIter int         `json:"inneriter"`
	Repeat    int         `json:"repeat,omitempty"`
	T1        [][]float64 `json:"t1"`
	T2        [][]float64 `json:"t2"`
	TRows     []int       `json:"trows"`
	TCols     []int       `json:"tcols"`
}

type svmRLScoreResult struct {
	Train, Test []float64
	Seconds     float64
}

// runRLScoreSVM runs RLScore's KronSVM on the cases (skipping the test
// when RLScore is absent).
func runRLScoreSVM(t testing.TB, cases []svmRLScoreCase) []svmRLScoreResult {
	t.Helper()
	py, dir := rlscoreKronPython(t)
	arg, _ := json.Marshal(cases)
	cmd := exec.Command(py, "testdata/rlscore_kronsvm.py")
	cmd.Stdin = bytes.NewReader(arg)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("RLScore: %v", err)
	}
	var res []svmRLScoreResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("RLScore output: %v", err)
	}
	return res
}

// TestKronSVMRLScore is issue 25's acceptance for KronSVM: on fresh data,
// RLScore's KronSVM (its defaults: at most 100 Newton steps; 1000 inner
// iterations so that its QMR solves, at its fixed relative tolerance 1e-5,
// are not cut short) and this package's dual form (Gaussian kernels, scores
// of pairs of new objects through the model) and primal form (features)
// give the same predictions, to 1e-6 of their scale, at the default
// tolerance. RLScore takes full Newton steps; on these data they converge
// (on data where they cycle, see TestKronSVMBrute's last case, the line
// search reaches a lower objective than RLScore's iterate).
func TestKronSVMRLScore(t *testing.T) {
	type goCase struct {
		c      svmCase
		gamma  float64 // 0: primal
		lambda float64
		nt     svmCase
	}
	gcs := []goCase{
		{randSVMCase(21, 20, 5, 15, 4, 150), 0.3, 0.1, randSVMCase(31, 6, 5, 7, 4, 30)},
		{randSVMCase(22, 30, 3, 12, 3, 200), 1, 1, randSVMCase(32, 5, 3, 6, 3, 20)},
		{randSVMCase(23, 25, 6, 18, 5, 180), 0, 1, randSVMCase(33, 6, 6, 7, 5, 30)},
		{randSVMCase(24, 16, 3, 14, 4, 120), 0, 0.1, randSVMCase(34, 4, 3, 9, 4, 25)},
	}
	var cases []svmRLScoreCase
	for _, g := range gcs {
		c := svmRLScoreCase{Y: g.c.y, Lambda: g.lambda, MaxIter: 100, InnerIter: 1000}
		for _, p := range g.c.pairs {
			c.Rows, c.Cols = append(c.Rows, p.Row), append(c.Cols, p.Col)
		}
		for _, p := range g.nt.pairs {
			c.TRows, c.TCols = append(c.TRows, p.Row), append(c.TCols, p.Col)
		}
		if g.gamma > 0 {
			rows, cols := svmSides(t, g.c, kernel.Gaussian{Gamma: g.gamma})
			c.K1, c.K2 = rows2(rows.Matrix()), rows2(cols.Matrix())
			b1, err := rows.Block(g.nt.x)
			if err != nil {
				t.Fatal(err)
			}
			b2, err := cols.Block(g.nt.z)
			if err != nil {
				t.Fatal(err)
			}
			c.T1, c.T2 = rows2(b1), rows2(b2)
		} else {
			c.X1, c.X2, c.T1, c.T2 = rows2(g.c.x), rows2(g.c.z), rows2(g.nt.x), rows2(g.nt.z)
		}
		cases = append(cases, c)
	}
	res := runRLScoreSVM(t, cases)
	for ci, g := range gcs {
		var train, test []float64
		var steps int
		if g.gamma > 0 {
			rows, cols := svmSides(t, g.c, kernel.Gaussian{Gamma: g.gamma})
			s, err := FitKronSVM(rows, cols, g.c.pairs, g.c.y)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Solve(g.lambda, SVMOptions{})
			if err != nil || !r.Converged {
				t.Fatalf("case %d: %v, converged %v", ci, err, r != nil && r.Converged)
			}
			train, steps = r.Fitted(), r.NewtonSteps
			if test, err = r.PairModel().Predict(g.nt.x, g.nt.z, cases[ci].TRows, cases[ci].TCols); err != nil {
				t.Fatal(err)
			}
		} else {
			l, err := FitKronSVMLinear(g.c.x, g.c.z, g.c.pairs, g.c.y)
			if err != nil {
				t.Fatal(err)
			}
			r, err := l.Solve(g.lambda, SVMOptions{})
			if err != nil || !r.Converged {
				t.Fatalf("case %d: %v, converged %v", ci, err, r != nil && r.Converged)
			}
			train, steps = r.Fitted(), r.NewtonSteps
			if test, err = r.PredictLinear(g.nt.x, g.nt.z, cases[ci].TRows, cases[ci].TCols); err != nil {
				t.Fatal(err)
			}
		}
		dtr, dte := maxRel(train, res[ci].Train), maxRel(test, res[ci].Test)
		if dtr > 1e-6 || dte > 1e-6 {
			t.Errorf("case %d: predictions differ from RLScore's by %.3g (training pairs), %.3g (new pairs)", ci, dtr, dte)
		}
		t.Logf("case %d: %d Newton steps; relative differences from RLScore %.2g (training), %.2g (new pairs)", ci, steps, dtr, dte)
	}
}
