package pairwise

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// svmBenchCase is the speed comparison's data: m = 200 row and q = 150
// column objects, n = 6000 labelled pairs (20% of the grid), Gaussian
// kernels (γ = 0.5) on 5 and 4 features, λ = 0.1; the primal form on the
// same features. RLScore has no KronSVM tutorial; this is the scale of its
// CGKronRLS tutorial's incomplete-data setting per side, well above the
// 16×7 of its KronSVM test.
func svmBenchCase() svmCase { return randSVMCase(41, 200, 5, 150, 4, 6000) }

// BenchmarkKronSVM trains the dual (Gaussian kernels, the sides' kernel
// matrices formed outside the timing, as RLScore is given K1, K2) and the
// primal form at the default tolerance. RLSKIT_SVM_DUMP=FILE writes the
// case for testdata/rlscore_kronsvm.py (see docs/cli.md for the script).
func BenchmarkKronSVM(b *testing.B) {
	c := svmBenchCase()
	const lambda = 0.1
	rows, cols := svmSides(b, c, kernel.Gaussian{Gamma: 0.5})
	if path := os.Getenv("RLSKIT_SVM_DUMP"); path != "" {
		var rs, cs []int
		for _, p := range c.pairs {
			rs, cs = append(rs, p.Row), append(cs, p.Col)
		}
		one := []int{0}
		dual := svmRLScoreCase{K1: rows2(rows.Matrix()), K2: rows2(cols.Matrix()), Rows: rs, Cols: cs, Y: c.y, Lambda: lambda,
			MaxIter: 100, InnerIter: 50, Repeat: 3, T1: rows2(rows.Matrix()), T2: rows2(cols.Matrix()), TRows: one, TCols: one}
		primal := svmRLScoreCase{X1: rows2(c.x), X2: rows2(c.z), Rows: rs, Cols: cs, Y: c.y, Lambda: lambda,
			MaxIter: 100, InnerIter: 50, Repeat: 3, T1: rows2(c.x), T2: rows2(c.z), TRows: one, TCols: one}
		out, _ := json.Marshal([]svmRLScoreCase{dual, primal})
		if err := os.WriteFile(path, out, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("dual", func(b *testing.B) {
		for b.Loop() {
			s, err := FitKronSVM(rows, cols, c.pairs, c.y)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Solve(lambda, SVMOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("primal", func(b *testing.B) {
		for b.Loop() {
			l, err := FitKronSVMLinear(c.x, c.z, c.pairs, c.y)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := l.Solve(lambda, SVMOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
