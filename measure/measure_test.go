package measure

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const tol = 1e-12

var nan = math.NaN()

// case1 is a table row for a single-output function of (y, p).
type case1 struct {
	name string
	y, p []float64
	want float64 // ignored if err != nil
	err  error   // sentinel the error must wrap, or nil
}

func runSingle(t *testing.T, fname string, f func(y, p []float64) (float64, error), cases []case1) {
	t.Helper()
	for _, c := range cases {
		t.Run(fname+"/"+c.name, func(t *testing.T) {
			got, err := f(c.y, c.p)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want wrapping %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !near(got, c.want) {
				t.Errorf("got %.17g, want %.17g", got, c.want)
			}
		})
	}
}

// near reports whether a and b agree within tol, treating NaN as equal to NaN.
func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

func TestMSE(t *testing.T) {
	runSingle(t, "MSE", MSE, []case1{
		// (0² + 1² + 2²)/3 = 5/3
		{name: "basic", y: []float64{1, 2, 3}, p: []float64{1, 3, 5}, want: 5.0 / 3},
		// exact predictions
		{name: "zero", y: []float64{0.5, -2}, p: []float64{0.5, -2}, want: 0},
		// ((−1−1)² + (1−(−1))²)/2 = (4+4)/2 = 4
		{name: "signs", y: []float64{-1, 1}, p: []float64{1, -1}, want: 4},
		// single: (3 − 1.5)² = 2.25
		{name: "single", y: []float64{3}, p: []float64{1.5}, want: 2.25},
		// NaN and Inf propagate
		{name: "nan", y: []float64{1, 2}, p: []float64{nan, 2}, want: nan},
		{name: "inf", y: []float64{1, 2}, p: []float64{math.Inf(1), 2}, want: math.Inf(1)},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "nil", err: ErrUndefined},
		{name: "shape", y: []float64{1, 2}, p: []float64{1}, err: ErrShape},
	})
}

func TestAccuracy(t *testing.T) {
	runSingle(t, "Accuracy", Accuracy, []case1{
		// signs agree at 0, 1; disagree at 2, 3: 2/4
		{name: "basic", y: []float64{1, -1, 1, -1}, p: []float64{0.5, -0.5, -0.2, 0.3}, want: 0.5},
		// zero counts as negative: (0>0)==(0>0) yes; (0>0)==(1>0) no: 1/2
		{name: "zero", y: []float64{0, 1}, p: []float64{0, 0}, want: 0.5},
		// all three agree: 3/3
		{name: "all", y: []float64{2, -3, 0}, p: []float64{0.1, -7, -1}, want: 1},
		// 0/2
		{name: "none", y: []float64{1, -1}, p: []float64{-1, 1}, want: 0},
		// NaN > 0 is false, so NaN counts as negative: agrees with y=-1 only: 1/2
		{name: "nan", y: []float64{-1, 1}, p: []float64{nan, nan}, want: 0.5},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1}, p: []float64{1, 2}, err: ErrShape},
	})
}

func TestAUC(t *testing.T) {
	runSingle(t, "AUC", AUC, []case1{
		// positives {0.9, 0.8} above negatives {0.1, 0.3}: 4/4
		{name: "perfect", y: []float64{1, 0, 1, 0}, p: []float64{0.9, 0.1, 0.8, 0.3}, want: 1},
		// positives {0.1, 0.3} below negatives {0.9, 0.8}: 0/4
		{name: "reversed", y: []float64{0, 1, 0, 1}, p: []float64{0.9, 0.1, 0.8, 0.3}, want: 0},
		// pos {0.8, 0.4}, neg {0.6, 0.2}: 0.8>0.6, 0.8>0.2, 0.4<0.6, 0.4>0.2 → 3/4
		{name: "partial", y: []float64{1, 1, 0, 0}, p: []float64{0.8, 0.4, 0.6, 0.2}, want: 0.75},
		// a single tied pair: 1/2
		{name: "tie", y: []float64{1, 0}, p: []float64{0.5, 0.5}, want: 0.5},
		// pos {2, 1}, neg {1, 0, 2}:
		// 2: vs 1 → 1, vs 0 → 1, vs 2 → ½  = 2.5
		// 1: vs 1 → ½, vs 0 → 1, vs 2 → 0  = 1.5
		// (2.5+1.5)/(2·3) = 4/6
		{name: "ties", y: []float64{1, 1, 0, 0, 0}, p: []float64{2, 1, 1, 0, 2}, want: 4.0 / 6},
		// labels ±1; pos {0.2, 0.4}, neg {0.1, 0.3}: 1 + 0 + 1 + 1 → 3/4
		{name: "pm1", y: []float64{-1, 1, -1, 1}, p: []float64{0.1, 0.2, 0.3, 0.4}, want: 0.75},
		// real labels: y>0 at 0.5, 3 (p 0.2, 0.4); y≤0 at -2, 0 (p 0.1, 0.3) → 3/4
		{name: "real labels", y: []float64{-2, 0.5, 0, 3}, p: []float64{0.1, 0.2, 0.3, 0.4}, want: 0.75},
		// all predictions tied: every pair ½ → ½
		{name: "constant p", y: []float64{1, 0, 0, 1, 1}, p: []float64{3, 3, 3, 3, 3}, want: 0.5},
		// ±Inf are ordinary extremes: 1/1
		{name: "inf", y: []float64{1, 0}, p: []float64{math.Inf(1), math.Inf(-1)}, want: 1},
		{name: "only positive", y: []float64{1, 2}, p: []float64{0, 1}, err: ErrUndefined},
		{name: "only negative", y: []float64{0, -1}, p: []float64{0, 1}, err: ErrUndefined},
		{name: "single", y: []float64{1}, p: []float64{0}, err: ErrUndefined},
		{name: "nan p", y: []float64{1, 0}, p: []float64{nan, 0}, err: ErrUndefined},
		{name: "nan y", y: []float64{1, nan}, p: []float64{1, 0}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, 0}, p: []float64{1}, err: ErrShape},
	})
}

func TestCIndex(t *testing.T) {
	runSingle(t, "CIndex", CIndex, []case1{
		// all 3 pairs concordant
		{name: "perfect", y: []float64{1, 2, 3}, p: []float64{1, 2, 3}, want: 1},
		// all 3 pairs discordant
		{name: "reversed", y: []float64{1, 2, 3}, p: []float64{3, 2, 1}, want: 0},
		// pairs (0,1): p tie ½; (0,2): 1<2 → 1; (1,2): 1<2 → 1 → 2.5/3
		{name: "p ties", y: []float64{1, 2, 3}, p: []float64{1, 1, 2}, want: 2.5 / 3},
		// label tie (0,1) excluded; (0,2): 4>2 → 0; (0,3): 4>3 → 0;
		// (1,2): 1<2 → 1; (1,3): 1<3 → 1; (2,3): 2<3 → 1 → 3/5
		{name: "y ties", y: []float64{1, 1, 2, 3}, p: []float64{4, 1, 2, 3}, want: 0.6},
		// labels {0,0,1,1,2}, p {1,2,2,1,2}; the 8 pairs with different labels:
		// (0,2) 1<2 → 1; (0,3) 1=1 → ½; (0,4) 1<2 → 1; (1,2) 2=2 → ½;
		// (1,3) 2>1 → 0; (1,4) 2=2 → ½; (2,4) 2=2 → ½; (3,4) 1<2 → 1
		// sum 5 → 5/8
		{name: "both ties", y: []float64{0, 0, 1, 1, 2}, p: []float64{1, 2, 2, 1, 2}, want: 0.625},
		// unsorted input, y=(3,1,2), p=(0.3,0.2,0.1):
		// (1,2): y 1<2, p 0.2>0.1 → 0; (1,0): 1<3, 0.2<0.3 → 1; (2,0): 2<3, 0.1<0.3 → 1 → 2/3
		{name: "unsorted", y: []float64{3, 1, 2}, p: []float64{0.3, 0.2, 0.1}, want: 2.0 / 3},
		// binary labels equal AUC: same as AUC "ties" case → 4/6
		{name: "binary", y: []float64{1, 1, 0, 0, 0}, p: []float64{2, 1, 1, 0, 2}, want: 4.0 / 6},
		{name: "constant y", y: []float64{2, 2, 2}, p: []float64{1, 2, 3}, err: ErrUndefined},
		{name: "single", y: []float64{2}, p: []float64{1}, err: ErrUndefined},
		{name: "nan p", y: []float64{1, 2}, p: []float64{0, nan}, err: ErrUndefined},
		{name: "nan y", y: []float64{nan, 2}, p: []float64{0, 1}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, 2, 3}, p: []float64{1, 2}, err: ErrShape},
	})
}

func TestSpearman(t *testing.T) {
	runSingle(t, "Spearman", Spearman, []case1{
		{name: "perfect", y: []float64{1, 2, 3, 4}, p: []float64{10, 20, 30, 40}, want: 1},
		{name: "reversed", y: []float64{1, 2, 3, 4}, p: []float64{40, 30, 20, 10}, want: -1},
		// monotone but nonlinear: ranks identical → 1
		{name: "monotone", y: []float64{1, 2, 3}, p: []float64{1, 100, 1000}, want: 1},
		// ranks (1,2,3) vs (1,3,2), mean 2: deviations (−1,0,1), (−1,1,0)
		// cov 1, variances 2 and 2 → 1/2
		{name: "swap", y: []float64{1, 2, 3}, p: []float64{1, 3, 2}, want: 0.5},
		// p ranks (1.5,1.5,3,4), y ranks (1,2,3,4), mean 2.5:
		// dy (−1.5,−.5,.5,1.5), dp (−1,−1,.5,1.5)
		// cov 1.5+.5+.25+2.25 = 4.5; Σdy² = 5; Σdp² = 4.5
		// ρ = 4.5/√(5·4.5) = √0.9
		{name: "ties", y: []float64{1, 2, 3, 4}, p: []float64{1, 1, 2, 3}, want: math.Sqrt(0.9)},
		// label ties, symmetric to "ties": √0.9
		{name: "y ties", y: []float64{5, 5, 6, 7}, p: []float64{0, 1, 2, 3}, want: math.Sqrt(0.9)},
		{name: "constant p", y: []float64{1, 2, 3}, p: []float64{4, 4, 4}, err: ErrUndefined},
		{name: "constant y", y: []float64{1, 1, 1}, p: []float64{1, 2, 3}, err: ErrUndefined},
		{name: "single", y: []float64{1}, p: []float64{2}, err: ErrUndefined},
		{name: "nan", y: []float64{1, 2}, p: []float64{nan, 1}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, 2}, p: []float64{1, 2, 3}, err: ErrShape},
	})
}

func TestDisagreement(t *testing.T) {
	cases := []struct {
		name string
		y, p []float64
		q    []int
		want float64
		err  error
	}{
		// query 7: cindex 1 → 0; query 3: cindex 0 → 1; mean (0+1)/2
		{
			name: "two queries",
			y:    []float64{1, 2, 3, 1, 2}, p: []float64{1, 2, 3, 2, 1},
			q: []int{7, 7, 7, 3, 3}, want: 0.5,
		},
		// as above, rows interleaved, plus query -5 with a single row (skipped)
		// and query 9 with tied labels (skipped): (0+1)/2
		{
			name: "skipped queries",
			y:    []float64{1, 1, 2, 2, 3, 4, 4, 4},
			p:    []float64{1, 2, 2, 1, 3, 0, 5, 6},
			q:    []int{7, 3, 7, 3, 7, -5, 9, 9},
			want: 0.5,
		},
		// one query, cindex 2.5/3 (see CIndex "p ties") → 1 − 5/6 = 1/6
		{name: "one query", y: []float64{1, 2, 3}, p: []float64{1, 1, 2}, q: []int{0, 0, 0}, want: 1.0 / 6},
		// query 1: (0,1) pair tie → cindex ½ → ½; query 2: reversed → 1; query 3: 1 → 0
		// mean (½ + 1 + 0)/3 = ½
		{
			name: "three queries",
			y:    []float64{0, 1, 0, 1, 0, 1}, p: []float64{4, 4, 2, 1, 0, 9},
			q: []int{1, 1, 2, 2, 3, 3}, want: 0.5,
		},
		{name: "singletons", y: []float64{1, 2, 3}, p: []float64{1, 2, 3}, q: []int{1, 2, 3}, err: ErrUndefined},
		{name: "tied labels", y: []float64{1, 1, 2, 2}, p: []float64{1, 2, 3, 4}, q: []int{1, 1, 2, 2}, err: ErrUndefined},
		{name: "nan", y: []float64{1, 2}, p: []float64{nan, 2}, q: []int{1, 1}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, q: []int{}, err: ErrUndefined},
		{name: "q shape", y: []float64{1, 2}, p: []float64{1, 2}, q: []int{1}, err: ErrShape},
		{name: "q nil", y: []float64{1, 2}, p: []float64{1, 2}, err: ErrShape},
		{name: "p shape", y: []float64{1, 2}, p: []float64{1}, q: []int{1, 1}, err: ErrShape},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Disagreement(c.y, c.p, c.q)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want wrapping %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !near(got, c.want) {
				t.Errorf("got %.17g, want %.17g", got, c.want)
			}
		})
	}
}

func TestNaNErrorNamesIndex(t *testing.T) {
	y := []float64{1, 0, 1, 0}
	p := []float64{1, 2, nan, 3}
	for name, f := range map[string]func(y, p []float64) (float64, error){
		"AUC": AUC, "CIndex": CIndex, "Spearman": Spearman,
		"Disagreement": func(y, p []float64) (float64, error) { return Disagreement(y, p, make([]int, len(y))) },
	} {
		_, err := f(y, p)
		if !errors.Is(err, ErrUndefined) || !strings.Contains(err.Error(), "index 2") {
			t.Errorf("%s: err = %v, want ErrUndefined naming index 2", name, err)
		}
	}
}

func TestByName(t *testing.T) {
	want := []struct {
		name                                       string
		higher, pairwise, queries, ordinal, binary bool
	}{
		{"mse", false, false, false, false, false},
		{"rmse", false, false, false, false, false},
		{"mae", false, false, false, false, false},
		{"r2", true, false, false, false, false},
		{"auc", true, true, false, true, true},
		{"cindex", true, true, false, true, false},
		{"cindex-row", true, false, true, true, false},
		{"disagreement", false, false, true, true, false},
		{"accuracy", true, false, false, false, true},
		{"balanced-accuracy", true, false, false, false, true},
		{"f1", true, false, false, false, true},
		{"spearman", true, false, false, true, false},
		{"multiclass-accuracy", true, false, false, false, false},
	}
	names := Names()
	if len(names) != len(want) {
		t.Fatalf("Names() = %v, want %d names", names, len(want))
	}
	for i, w := range want {
		if names[i] != w.name {
			t.Errorf("Names()[%d] = %q, want %q", i, names[i], w.name)
		}
		m, err := ByName(w.name)
		if err != nil {
			t.Fatalf("ByName(%q): %v", w.name, err)
		}
		if m.Name != w.name || m.HigherIsBetter != w.higher || m.Pairwise != w.pairwise || m.NeedsQueries != w.queries || m.Ordinal != w.ordinal || m.Binary != w.binary {
			t.Errorf("ByName(%q) = %+v, want flags higher=%t pairwise=%t queries=%t ordinal=%t binary=%t",
				w.name, m, w.higher, w.pairwise, w.queries, w.ordinal, w.binary)
		}
		if m.String() != w.name {
			t.Errorf("String() = %q, want %q", m.String(), w.name)
		}
	}
	if m, err := ByName(" AUC "); err != nil || m.Name != "auc" {
		t.Errorf(`ByName(" AUC ") = %v, %v; want auc`, m, err)
	}

	// Names returns a fresh slice.
	names[0] = "changed"
	if Names()[0] != "mse" {
		t.Error("Names shares its backing array")
	}

	_, err := ByName("rmsle")
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("ByName(rmsle) err = %v, want ErrUnknown", err)
	}
	msg := err.Error()
	for _, s := range append([]string{`"rmsle"`}, Names()...) {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not mention %s", msg, s)
		}
	}
}

func TestBetter(t *testing.T) {
	auc, _ := ByName("auc")
	mse, _ := ByName("mse")
	cases := []struct {
		m    Measure
		a, b float64
		want bool
	}{
		{auc, 0.9, 0.8, true},
		{auc, 0.8, 0.9, false},
		{auc, 0.8, 0.8, false},
		{mse, 0.1, 0.2, true},
		{mse, 0.2, 0.1, false},
		{mse, 0.2, 0.2, false},
		{auc, nan, 0.5, false},
		{mse, nan, 0.5, false},
		{auc, 0.5, nan, true},
		{mse, math.Inf(1), nan, true},
		{auc, nan, nan, false},
	}
	for _, c := range cases {
		if got := c.m.Better(c.a, c.b); got != c.want {
			t.Errorf("%s.Better(%v, %v) = %t, want %t", c.m.Name, c.a, c.b, got, c.want)
		}
	}
}

func TestScore(t *testing.T) {
	// Column 0: y (1,0,1,0), p (0.9,0.1,0.8,0.3).
	// Column 1: y (1,1,0,0), p (0.8,0.4,0.6,0.2).
	Y := mat.NewDense(4, 2, []float64{
		1, 1,
		0, 1,
		1, 0,
		0, 0,
	})
	P := mat.NewDense(4, 2, []float64{
		0.9, 0.8,
		0.1, 0.4,
		0.8, 0.6,
		0.3, 0.2,
	})
	q := []int{1, 1, 2, 2}
	cases := []struct {
		name string
		want float64
	}{
		// col 0: (.01+.01+.04+.09)/4 = .0375; col 1: (.04+.36+.36+.04)/4 = .2
		// mean (.0375+.2)/2 = .11875
		{"mse", 0.11875},
		// the root per output, then the mean: (√.0375 + √.2)/2
		{"rmse", (math.Sqrt(0.0375) + math.Sqrt(0.2)) / 2},
		// col 0: (.1+.1+.2+.3)/4 = .175; col 1: (.2+.6+.6+.2)/4 = .4
		// mean (.175+.4)/2 = .2875
		{"mae", 0.2875},
		// both columns: ȳ = ½, Σ(y−ȳ)² = 4·¼ = 1; Σ(y−p)² = 4·mse:
		// col 0: 1 − .15 = .85; col 1: 1 − .8 = .2; mean .525
		{"r2", 0.525},
		// col 0: 1 (AUC "perfect"); col 1: 3/4 (AUC "partial"); mean 0.875
		{"auc", 0.875},
		// binary labels: same as auc
		{"cindex", 0.875},
		// all predictions are positive; labels positive in rows 0, 2 (col 0)
		// and rows 0, 1 (col 1): 2/4 in each column → ½
		{"accuracy", 0.5},
		// all predictions positive: recall 1 of the positives, 0 of the
		// negatives in each column → ½
		{"balanced-accuracy", 0.5},
		// each column: TP 2, FP 2, FN 0 → 2·2/(2·2+2+0) = 2/3
		{"f1", 2.0 / 3},
		// col 0: y ranks (3.5,1.5,3.5,1.5), p ranks (4,1,3,2), mean 2.5:
		// dy (1,−1,1,−1), dp (1.5,−1.5,.5,−.5): cov 1.5+1.5+.5+.5 = 4,
		// Σdy² = 4, Σdp² = 5 → 4/√20 = 2/√5
		// col 1: y ranks (3.5,3.5,1.5,1.5), p ranks (4,2,3,1): dy (1,1,−1,−1),
		// dp (1.5,−.5,.5,−1.5): cov 1.5−.5−.5+1.5 = 2 → 2/√20 = 1/√5
		// mean (3/√5)/2
		{"spearman", 1.5 / math.Sqrt(5)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ByName(c.name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Score(Y, P, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got, c.want) {
				t.Errorf("got %.17g, want %.17g", got, c.want)
			}
			// q is ignored by measures that do not need it.
			if got2, err := m.Score(Y, P, q); err != nil || got2 != got {
				t.Errorf("with q: %v, %v; want %v", got2, err, got)
			}
		})
	}

	dis, _ := ByName("disagreement")
	// queries {rows 0,3} and {rows 1,2}:
	// col 0: (y 1,0; p .9,.3) → 0; (y 0,1; p .1,.8) → 0 → 0
	// col 1: (y 1,0; p .8,.2) → 0; (y 1,0; p .4,.6) → 1 → ½
	// mean ¼
	if got, err := dis.Score(Y, P, []int{5, 6, 6, 5}); err != nil || !near(got, 0.25) {
		t.Errorf("disagreement Score = %v, %v; want 0.25", got, err)
	}
	if _, err := dis.Score(Y, P, nil); !errors.Is(err, ErrNoQueries) {
		t.Errorf("disagreement without q: err = %v, want ErrNoQueries", err)
	}
	if _, err := dis.Score(Y, P, []int{1, 2}); !errors.Is(err, ErrShape) {
		t.Errorf("disagreement short q: err = %v, want ErrShape", err)
	}
	// q = (1,1,2,2): column 1 has tied labels in both queries → undefined.
	if _, err := dis.Score(Y, P, q); !errors.Is(err, ErrUndefined) || !strings.Contains(err.Error(), "output 1") {
		t.Errorf("disagreement undefined output: err = %v, want ErrUndefined naming output 1", err)
	}
}

func TestScoreErrors(t *testing.T) {
	auc, _ := ByName("auc")
	// Column 2 has a single class.
	Y := mat.NewDense(3, 3, []float64{
		1, 0, 1,
		0, 1, 1,
		1, 0, 1,
	})
	P := mat.NewDense(3, 3, []float64{
		1, 2, 3,
		4, 5, 6,
		7, 8, 9,
	})
	_, err := auc.Score(Y, P, nil)
	if !errors.Is(err, ErrUndefined) || !strings.Contains(err.Error(), "output 2:") {
		t.Errorf("err = %v, want ErrUndefined naming output 2", err)
	}

	mse, _ := ByName("mse")
	if _, err := mse.Score(Y, mat.NewDense(3, 2, nil), nil); !errors.Is(err, ErrShape) {
		t.Errorf("column mismatch: err = %v, want ErrShape", err)
	}
	if _, err := mse.Score(Y, mat.NewDense(2, 3, nil), nil); !errors.Is(err, ErrShape) {
		t.Errorf("row mismatch: err = %v, want ErrShape", err)
	}
	if _, err := mse.Score(nil, P, nil); !errors.Is(err, ErrShape) {
		t.Errorf("nil Y: err = %v, want ErrShape", err)
	}
	if _, err := mse.Score(&mat.Dense{}, &mat.Dense{}, nil); !errors.Is(err, ErrUndefined) {
		t.Errorf("empty: err = %v, want ErrUndefined", err)
	}
	if _, err := (Measure{}).Score(Y, P, nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("zero Measure: err = %v, want ErrUnknown", err)
	}
	// A single column equals the plain function: MSE (1,2,3) vs (1,3,5) = 5/3.
	got, err := mse.Score(mat.NewDense(3, 1, []float64{1, 2, 3}), mat.NewDense(3, 1, []float64{1, 3, 5}), nil)
	if err != nil || !near(got, 5.0/3) {
		t.Errorf("single column: %v, %v; want 5/3", got, err)
	}
}

func TestQueryDisagreements(t *testing.T) {
	y := []float64{1, 2, 3, 5, 5, 1, 2}
	p := []float64{1, 3, 2, 0, 1, 2, 1}
	q := []int{7, 7, 7, 9, 9, 4, 4}
	got := QueryDisagreements(y, p, q)
	// query 7: pairs (1,2) ok, (1,3) ok, (2,3) discordant → 1/3; query 9 has no pair of different labels; query 4 discordant → 1
	want := []float64{1.0 / 3, 1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("query %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestScoreOneColumnInPlace: Score reads a one-column matrix's data in place
// (no copy) when its rows are adjacent. For every single-output measure, on
// labels and predictions with ties and query groups, that gives the value
// of the same column read through a strided view (copied), and leaves both
// matrices as they were.
func TestScoreOneColumnInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 7))
	const n = 40
	y, p, q := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range y {
		y[i] = float64(rng.IntN(3))     // ties in the labels
		p[i] = float64(rng.IntN(8)) / 4 // and in the predictions
		q[i] = i % 4
	}
	y[0], y[1] = 1, 0 // both classes present
	for _, name := range Names() {
		m, _ := ByName(name)
		if m.Multiclass {
			continue
		}
		t.Run(name, func(t *testing.T) {
			Y, P := mat.NewDense(n, 1, slices.Clone(y)), mat.NewDense(n, 1, slices.Clone(p))
			// the same columns as column 1 of n×2 matrices: stride 2, copied
			wy, wp := mat.NewDense(n, 2, nil), mat.NewDense(n, 2, nil)
			wy.SetCol(1, y)
			wp.SetCol(1, p)
			sy, sp := wy.Slice(0, n, 1, 2).(*mat.Dense), wp.Slice(0, n, 1, 2).(*mat.Dense)
			if contiguous(sy) != nil || contiguous(Y) == nil {
				t.Fatal("contiguous: the view is not strided, or the matrix not contiguous")
			}
			got, err := m.Score(Y, P, q)
			want, err2 := m.Score(sy, sp, q)
			if err != nil || err2 != nil || got != want {
				t.Errorf("in place %v (%v), copied %v (%v)", got, err, want, err2)
			}
			if !slices.Equal(Y.RawMatrix().Data, y) || !slices.Equal(P.RawMatrix().Data, p) {
				t.Error("Score changed its inputs")
			}
		})
	}
}
