package selection_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

// tlpoData is m rows of d features with a binary label (±1) that depends on
// the first feature plus noise; rows dup[0] and dup[1] are made identical
// (same features, the same class), so that their pair is an exact tie.
func tlpoData(m, d int, seed uint64) (x [][]float64, y []float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	x = make([][]float64, m)
	y = make([]float64, m)
	for i := range x {
		x[i] = make([]float64, d)
		for k := range x[i] {
			x[i][k] = r.NormFloat64()
		}
		y[i] = -1
		if x[i][0]+0.8*r.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	copy(x[5], x[3])
	y[5] = y[3]
	return x, y
}

// oracleGauss is the gaussian kernel exp(−γ‖a − b‖²), written out.
func oracleGauss(a, b []float64, gamma float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Exp(-gamma * s)
}

// oracleRetrain trains from scratch on the rows keep and predicts rows i and
// j: dual RLS a = (K + λI)⁻¹y, or Global RankRLS a = (LK + λI)⁻¹Ly with
// L = nI − 11ᵀ (n = |keep|, the all-pairs Laplacian), f(x) = Σ a_k k(x_k, x).
func oracleRetrain(x [][]float64, y []float64, keep []int, gamma, lambda float64, ranking bool, i, j int) (fi, fj float64) {
	n := len(keep)
	k := mat.NewDense(n, n, nil)
	for a, ra := range keep {
		for b, rb := range keep {
			k.Set(a, b, oracleGauss(x[ra], x[rb], gamma))
		}
	}
	yv := mat.NewVecDense(n, nil)
	for a, ra := range keep {
		yv.SetVec(a, y[ra])
	}
	sys := mat.NewDense(n, n, nil)
	rhs := mat.NewVecDense(n, nil)
	if ranking {
		l := mat.NewDense(n, n, nil)
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				l.Set(a, b, -1)
			}
			l.Set(a, a, float64(n)-1)
		}
		sys.Mul(l, k)
		rhs.MulVec(l, yv)
	} else {
		sys.Copy(k)
		rhs.CopyVec(yv)
	}
	for a := 0; a < n; a++ {
		sys.Set(a, a, sys.At(a, a)+lambda)
	}
	var coef mat.VecDense
	if err := coef.SolveVec(sys, rhs); err != nil {
		panic(err)
	}
	for a, ra := range keep {
		fi += coef.AtVec(a) * oracleGauss(x[ra], x[i], gamma)
		fj += coef.AtVec(a) * oracleGauss(x[ra], x[j], gamma)
	}
	return fi, fj
}

// oracleTournament holds out every pair by retraining from scratch: the wins
// (a difference below 1e-9 of the predictions' scale is a tie — only the
// duplicated rows come near it, and the test checks that every other pair is
// clear of it by far), and the LPO AUC over the positive–negative pairs.
func oracleTournament(t *testing.T, x [][]float64, y []float64, gamma, lambda float64, ranking bool) (wins []float64, lpoAUC float64) {
	m := len(y)
	wins = make([]float64, m)
	var good, count float64
	closest := math.Inf(1)
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			keep := make([]int, 0, m-2)
			for r := 0; r < m; r++ {
				if r != i && r != j {
					keep = append(keep, r)
				}
			}
			fi, fj := oracleRetrain(x, y, keep, gamma, lambda, ranking, i, j)
			scale := math.Max(1, math.Max(math.Abs(fi), math.Abs(fj)))
			var oi float64 // i's share of the game
			switch d := fi - fj; {
			case math.Abs(d) <= 1e-9*scale:
				oi = 0.5
				if !(i == 3 && j == 5) {
					t.Fatalf("oracle: pair (%d, %d) is a near tie (%g, %g): the data do not separate ties from wins", i, j, fi, fj)
				}
			case d > 0:
				oi = 1
			}
			if i == 3 && j == 5 && oi != 0.5 {
				t.Fatalf("oracle: the duplicated rows are not a tie: %g, %g", fi, fj)
			}
			if !(i == 3 && j == 5) {
				closest = math.Min(closest, math.Abs(fi-fj)/scale)
			}
			wins[i] += oi
			wins[j] += 1 - oi
			switch {
			case y[i] > 0 && y[j] <= 0:
				good += oi
				count++
			case y[j] > 0 && y[i] <= 0:
				good += 1 - oi
				count++
			}
		}
	}
	if closest < 1e-7 {
		t.Fatalf("oracle: closest non-tie pair differs by %g relative: too near a tie for the test", closest)
	}
	return wins, good / count
}

// oracleROC is the ROC curve by thresholds: for every distinct score s in
// decreasing order, the point (share of negatives with score ≥ s, share of
// positives with score ≥ s), after (0, 0).
func oracleROC(y, score []float64) (fpr, tpr []float64) {
	var pos, neg float64
	for _, v := range y {
		if v > 0 {
			pos++
		} else {
			neg++
		}
	}
	seen := map[float64]bool{}
	var levels []float64
	for _, s := range score {
		if !seen[s] {
			seen[s] = true
			levels = append(levels, s)
		}
	}
	for a := range levels { // insertion sort, decreasing
		for b := a; b > 0 && levels[b] > levels[b-1]; b-- {
			levels[b], levels[b-1] = levels[b-1], levels[b]
		}
	}
	fpr, tpr = []float64{0}, []float64{0}
	for _, s := range levels {
		var fp, tp float64
		for i, v := range score {
			if v >= s {
				if y[i] > 0 {
					tp++
				} else {
					fp++
				}
			}
		}
		fpr, tpr = append(fpr, fp/neg), append(tpr, tp/pos)
	}
	return fpr, tpr
}

// oracleMannWhitney is the AUC of scores: positive–negative pairs ordered
// right, ties ½.
func oracleMannWhitney(y, s []float64) float64 {
	var good, n float64
	for i := range y {
		for j := range y {
			if y[i] > 0 && y[j] <= 0 {
				n++
				switch {
				case s[i] > s[j]:
					good++
				case s[i] == s[j]:
					good += 0.5
				}
			}
		}
	}
	return good / n
}

// TestTournamentEqualsRetraining: the tournament of rls and Global RankRLS
// (leave-pair-out shortcuts over all m(m−1)/2 pairs, tie rule from the
// learn.Perturber twin) equals the one built by retraining from scratch for
// every pair — every row's wins exactly, the ROC curve's vertices, the AUC
// as the wins' Mann–Whitney statistic and the LPO AUC — on 24 rows with a
// duplicated pair (an exact tie: ½ each).
func TestTournamentEqualsRetraining(t *testing.T) {
	const gamma = 0.3
	for _, ranking := range []bool{false, true} {
		for _, lambda := range []float64{0.05, 1} {
			x, y := tlpoData(24, 3, 11)
			xm := mat.NewDense(len(x), len(x[0]), nil)
			for i, row := range x {
				xm.SetRow(i, row)
			}
			ym := mat.NewDense(len(y), 1, append([]float64(nil), y...))
			opt := learn.Options{Kernel: kernel.Gaussian{Gamma: gamma}}
			var l learn.Learner
			var err error
			if ranking {
				l, err = rank.FitGlobal(xm, ym, opt)
			} else {
				l, err = rls.Fit(xm, ym, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			s, err := l.At(lambda)
			if err != nil {
				t.Fatal(err)
			}
			tw, err := l.(learn.Perturber).Perturbed(selection.TwinScale)
			if err != nil {
				t.Fatal(err)
			}
			s2, err := tw.At(lambda)
			if err != nil {
				t.Fatal(err)
			}
			got, err := selection.Tournament(s, s2, y, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			wins, lpo := oracleTournament(t, x, y, gamma, lambda, ranking)
			for i := range wins {
				if got.Wins[i] != wins[i] {
					t.Fatalf("ranking %v λ %g: row %d has %g wins, retraining %g", ranking, lambda, i, got.Wins[i], wins[i])
				}
			}
			fpr, tpr := oracleROC(y, wins)
			if len(fpr) != len(got.FPR) {
				t.Fatalf("ranking %v λ %g: %d ROC vertices, retraining %d", ranking, lambda, len(got.FPR), len(fpr))
			}
			for k := range fpr {
				if math.Abs(fpr[k]-got.FPR[k]) > 1e-15 || math.Abs(tpr[k]-got.TPR[k]) > 1e-15 {
					t.Fatalf("ranking %v λ %g: vertex %d (%g, %g), retraining (%g, %g)", ranking, lambda, k, got.FPR[k], got.TPR[k], fpr[k], tpr[k])
				}
			}
			if want := oracleMannWhitney(y, wins); math.Abs(got.AUC-want) > 1e-15 {
				t.Errorf("ranking %v λ %g: AUC %g, Mann–Whitney of the wins %g", ranking, lambda, got.AUC, want)
			}
			if math.Abs(got.LPOAUC-lpo) > 1e-15 {
				t.Errorf("ranking %v λ %g: LPO AUC %g, retraining %g", ranking, lambda, got.LPOAUC, lpo)
			}
			if got.Pairs != 24*23/2 || got.Pos+got.Neg != 24 {
				t.Errorf("pairs %d, classes %d + %d", got.Pairs, got.Pos, got.Neg)
			}
			if got.Transitive && got.AUC != got.LPOAUC {
				t.Errorf("ranking %v λ %g: transitive but AUC %g ≠ LPO AUC %g", ranking, lambda, got.AUC, got.LPOAUC)
			}
			if !(got.Interval[0] <= got.AUC && got.AUC <= got.Interval[1]) || got.Interval[0] < 0 || got.Interval[1] > 1 {
				t.Errorf("interval %v around %g", got.Interval, got.AUC)
			}
			t.Logf("ranking %v λ %g: AUC %.4f %v, LPO AUC %.4f %v, transitive %v, tol %.2g",
				ranking, lambda, got.AUC, got.Interval, got.LPOAUC, got.LPOInterval, got.Transitive, got.Tolerance)
		}
	}
}

// tableSolution is a learn.PairHoldOuter whose leave-pair-out predictions
// come from a table: f[i][j] is the prediction for row i with the pair {i, j}
// held out.
type tableSolution struct{ f [][]float64 }

func (tableSolution) Predictor() *model.Predictor { return nil }

func (s tableSolution) LeavePairOut(pairs []learn.Pair) (pi, pj *mat.Dense, err error) {
	pi, pj = mat.NewDense(len(pairs), 1, nil), mat.NewDense(len(pairs), 1, nil)
	for n, p := range pairs {
		pi.Set(n, 0, s.f[p.I][p.J])
		pj.Set(n, 0, s.f[p.J][p.I])
	}
	return pi, pj, nil
}

// games builds a table from outcomes: beats[i][j] means i beats j; neither
// way is a tie.
func games(beats [][]bool) tableSolution {
	m := len(beats)
	f := make([][]float64, m)
	for i := range f {
		f[i] = make([]float64, m)
		for j := range f[i] {
			if beats[i][j] {
				f[i][j] = 1
			}
		}
	}
	return tableSolution{f}
}

// TestTournamentAUCAgainstLPO: the tournament AUC equals the LPO AUC when the
// comparisons are transitive, and not in general — the counterexample of
// the TLPO doc comment (P₁, P₂ positive, N₁, N₂ negative; LPO AUC ¾,
// tournament AUC 1). A tie gives ½ a win to each side, and the DeLong
// interval matches a hand computation.
func TestTournamentAUCAgainstLPO(t *testing.T) {
	y := []float64{1, 1, -1, -1} // P1, P2, N1, N2
	b := func(pairs ...[2]int) [][]bool {
		out := make([][]bool, 4)
		for i := range out {
			out[i] = make([]bool, 4)
		}
		for _, p := range pairs {
			out[p[0]][p[1]] = true
		}
		return out
	}
	// P1 > N1, P1 > N2, P2 > N1, N2 > P2, P2 > P1, N1 > N2.
	c, err := selection.Tournament(games(b([2]int{0, 2}, [2]int{0, 3}, [2]int{1, 2}, [2]int{3, 1}, [2]int{1, 0}, [2]int{2, 3})), nil, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if c.LPOAUC != 0.75 || c.AUC != 1 || c.Transitive {
		t.Errorf("intransitive: LPO AUC %g (want 0.75), AUC %g (want 1), transitive %v", c.LPOAUC, c.AUC, c.Transitive)
	}
	if want := []float64{2, 2, 1, 1}; !equalFloats(c.Wins, want) {
		t.Errorf("wins %v, want %v", c.Wins, want)
	}
	// Transitive, with a tie P2 ~ N1: order P1 > P2 ~ N1 > N2.
	tr, err := selection.Tournament(games(b([2]int{0, 1}, [2]int{0, 2}, [2]int{0, 3}, [2]int{1, 3}, [2]int{2, 3})), nil, y, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{3, 1.5, 1.5, 0}; !equalFloats(tr.Wins, want) {
		t.Errorf("wins %v, want %v", tr.Wins, want)
	}
	if !tr.Transitive || tr.AUC != tr.LPOAUC || tr.AUC != 0.875 {
		t.Errorf("transitive %v: AUC %g, LPO AUC %g, want both 0.875", tr.Transitive, tr.AUC, tr.LPOAUC)
	}
	// DeLong by hand: ψ = [[1, 1], [½, 1]]; V₁₀ = (1, ¾), V₀₁ = (¾, 1);
	// S₁₀ = S₀₁ = 1/32; Var = 1/64 + 1/64 = 1/32.
	z := 1.959963984540054
	lo, hi := 0.875-z*math.Sqrt(1.0/32), math.Min(1, 0.875+z*math.Sqrt(1.0/32))
	if math.Abs(tr.Interval[0]-lo) > 1e-12 || tr.Interval[1] != hi {
		t.Errorf("interval %v, want [%g, %g]", tr.Interval, lo, hi)
	}
	if want := [][2]float64{{0, 0}, {0, 0.5}, {0.5, 1}, {1, 1}}; len(tr.FPR) != len(want) {
		t.Errorf("curve %v %v, want %v", tr.FPR, tr.TPR, want)
	} else {
		for k, p := range want {
			if tr.FPR[k] != p[0] || tr.TPR[k] != p[1] {
				t.Errorf("vertex %d (%g, %g), want %v", k, tr.FPR[k], tr.TPR[k], p)
			}
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// noPairs is a solution without leave-pair-out.
type noPairs struct{}

func (noPairs) Predictor() *model.Predictor { return nil }

// TestTournamentRefuses: a solution without leave-pair-out, one class, a
// single row of a class, a level outside (0, 1).
func TestTournamentRefuses(t *testing.T) {
	ok := games([][]bool{{false, true, true, true}, {false, false, true, true}, {false, false, false, true}, {false, false, false, false}})
	if _, err := selection.Tournament(noPairs{}, nil, []float64{1, 1, 0, 0}, 0.95); !errors.Is(err, learn.ErrCapability) || !errors.Is(err, selection.ErrTLPO) {
		t.Errorf("no leave-pair-out: %v", err)
	}
	for _, y := range [][]float64{{1, 1, 1, 1}, {1, 0, 0, 0}, {0, 0, 0, 0}} {
		if _, err := selection.Tournament(ok, nil, y, 0.95); !errors.Is(err, selection.ErrTLPO) {
			t.Errorf("labels %v: %v", y, err)
		}
	}
	for _, level := range []float64{0, 1, math.NaN(), 95} {
		if _, err := selection.Tournament(ok, nil, []float64{1, 1, 0, 0}, level); !errors.Is(err, selection.ErrTLPO) {
			t.Errorf("level %v: %v", level, err)
		}
	}
}

// TestTournamentTwinPairs: the twin's pairs are those between rows ≡ 0 and
// ≡ 3 (mod 6), each with its index in the enumeration of all pairs.
func TestTournamentTwinPairs(t *testing.T) {
	for _, m := range []int{4, 7, 13, 30} {
		sub, idx := selection.TournamentTwinPairs(m)
		n, want := 0, 0
		for i := 0; i < m; i++ {
			for j := i + 1; j < m; j++ {
				if (i%6 == 0 && j%6 == 3) || (i%6 == 3 && j%6 == 0) {
					if want >= len(sub) || sub[want] != (learn.Pair{I: i, J: j}) || idx[want] != n {
						t.Fatalf("m %d: pair %d is %v at %v, want (%d, %d) at %d", m, want, sub, idx, i, j, n)
					}
					want++
				}
				n++
			}
		}
		if want != len(sub) || len(idx) != len(sub) || want == 0 {
			t.Errorf("m %d: %d pairs, want %d", m, len(sub), want)
		}
	}
}

// TestTournamentRefusesBeyondMemory: rows whose TLPOCopies m×m matrices do
// not fit in the memory available are refused before any pair is formed,
// with an error wrapping factor.ErrMemory that states the estimate.
func TestTournamentRefusesBeyondMemory(t *testing.T) {
	const m = 400000 // 8 × 8 × m² bytes ≈ 10 TB
	if factor.CheckMemory(m, selection.TLPOCopies) == nil {
		t.Skip("the memory available is unknown or above 10 TB")
	}
	y := make([]float64, m)
	for i := range y {
		y[i] = float64(i%2) - 0.5
	}
	_, err := selection.Tournament(games([][]bool{{false}}), nil, y, 0.95)
	if !errors.Is(err, factor.ErrMemory) || !errors.Is(err, selection.ErrTLPO) || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("err = %v, want factor.ErrMemory with the estimate", err)
	}
}
