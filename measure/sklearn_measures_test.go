package measure

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The measures scikit-learn users select by (issue 24): rmse, mae, r2,
// balanced-accuracy and f1, each against hand-computed cases and an
// independent brute-force formula.

func TestRMSE(t *testing.T) {
	runSingle(t, "RMSE", RMSE, []case1{
		// mse (0² + 1² + 2²)/3 = 5/3 → √(5/3)
		{name: "basic", y: []float64{1, 2, 3}, p: []float64{1, 3, 5}, want: math.Sqrt(5.0 / 3)},
		// (3² + 4² + 0 + 0)/4 = 25/4 → 5/2
		{name: "pythagoras", y: []float64{0, 0, 0, 0}, p: []float64{3, 4, 0, 0}, want: 2.5},
		{name: "zero", y: []float64{0.5, -2}, p: []float64{0.5, -2}, want: 0},
		// single: |3 − 1.5| = 1.5
		{name: "single", y: []float64{3}, p: []float64{1.5}, want: 1.5},
		{name: "nan", y: []float64{1, 2}, p: []float64{nan, 2}, want: nan},
		{name: "inf", y: []float64{1, 2}, p: []float64{math.Inf(-1), 2}, want: math.Inf(1)},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, 2}, p: []float64{1}, err: ErrShape},
	})
}

func TestMAE(t *testing.T) {
	runSingle(t, "MAE", MAE, []case1{
		// (0 + 1 + 2)/3 = 1
		{name: "basic", y: []float64{1, 2, 3}, p: []float64{1, 3, 5}, want: 1},
		// (|−1−1| + |1−(−1)|)/2 = (2+2)/2 = 2
		{name: "signs", y: []float64{-1, 1}, p: []float64{1, -1}, want: 2},
		// (.5 + 0 + 3)/3 = 3.5/3
		{name: "mixed", y: []float64{0.5, -2, 4}, p: []float64{1, -2, 1}, want: 3.5 / 3},
		{name: "zero", y: []float64{0.5, -2}, p: []float64{0.5, -2}, want: 0},
		{name: "nan", y: []float64{nan, 2}, p: []float64{1, 2}, want: nan},
		{name: "inf", y: []float64{1, 2}, p: []float64{math.Inf(-1), 2}, want: math.Inf(1)},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1}, p: []float64{1, 2}, err: ErrShape},
	})
}

func TestR2(t *testing.T) {
	runSingle(t, "R2", R2, []case1{
		{name: "perfect", y: []float64{1, 2, 3}, p: []float64{1, 2, 3}, want: 1},
		// predicting ȳ = 2 everywhere: SSE = SST → 0
		{name: "mean", y: []float64{1, 2, 3}, p: []float64{2, 2, 2}, want: 0},
		// ȳ = 2.5, SST = 2.25+.25+.25+2.25 = 5; SSE = 0+1+0+1 = 2 → 1 − 2/5
		{name: "basic", y: []float64{1, 2, 3, 4}, p: []float64{1, 3, 3, 5}, want: 0.6},
		// SST = 1+0+1 = 2; SSE = 4+0+4 = 8 → 1 − 8/2 = −3
		{name: "negative", y: []float64{1, 2, 3}, p: []float64{3, 2, 1}, want: -3},
		// the "basic" case shifted by 10⁸ (all exact in float64): 0.6
		{name: "offset", y: []float64{1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 4}, p: []float64{1e8 + 1, 1e8 + 3, 1e8 + 3, 1e8 + 5}, want: 0.6},
		// y = (10¹⁶, 10¹⁶, 10¹⁶+2), all exact: ȳ = 10¹⁶ + 2/3,
		// Σ(y − ȳ)² = 2·(2/3)² + (4/3)² = 8/3; p = 10¹⁶: Σ(y − p)² = 4
		// → 1 − 4/(8/3) = −1/2. The computed mean rounds to 10¹⁶ (the sum
		// 3·10¹⁶ + 2 is a tie, rounded to even), so the uncorrected sum of
		// squares would be 4 and R² 0 (as scikit-learn computes it); the
		// correction −(Σd)²/m = −4/3 restores 8/3 exactly.
		{name: "offset rounding", y: []float64{1e16, 1e16, 1e16 + 2}, p: []float64{1e16, 1e16, 1e16}, want: -0.5},
		// NaN propagates, from a prediction or a label
		{name: "nan p", y: []float64{1, 2}, p: []float64{nan, 2}, want: nan},
		{name: "nan y", y: []float64{1, nan}, p: []float64{1, 2}, want: nan},
		{name: "inf p", y: []float64{1, 2}, p: []float64{math.Inf(1), 2}, want: math.Inf(-1)},
		// constant labels: scikit-learn gives 1 (exact predictions) or 0;
		// here both are undefined
		{name: "constant exact", y: []float64{2, 2, 2}, p: []float64{2, 2, 2}, err: ErrUndefined},
		{name: "constant", y: []float64{2, 2, 2}, p: []float64{1, 2, 3}, err: ErrUndefined},
		// equal labels whose computed mean is not them: 0.1+0.1+0.1 rounds
		// to 0.30000000000000004, /3 to 0.10000000000000002, so Σ(y − ȳ)²
		// computed is 3·(1.4e-17)² ≠ 0 — still constant, still undefined
		{name: "constant rounding", y: []float64{0.1, 0.1, 0.1}, p: []float64{0, 0.1, 0.2}, err: ErrUndefined},
		{name: "single", y: []float64{1}, p: []float64{1}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, 2, 3}, p: []float64{1, 2}, err: ErrShape},
	})
	_, err := R2([]float64{4, 4}, []float64{1, 2})
	if !strings.Contains(err.Error(), "constant labels") {
		t.Errorf("constant labels: error %q does not say why", err)
	}
}

func TestBalancedAccuracy(t *testing.T) {
	runSingle(t, "BalancedAccuracy", BalancedAccuracy, []case1{
		// positives (rows 0-2) predicted +,−,+: recall 2/3; the negative
		// (row 3) predicted −: recall 1 → (2/3 + 1)/2 = 5/6
		{name: "basic", y: []float64{1, 1, 1, -1}, p: []float64{0.5, -0.2, 0.3, -1}, want: 5.0 / 6},
		// all predicted positive: recalls 1 and 0 → ½ (accuracy ¾)
		{name: "imbalanced", y: []float64{1, 1, 1, -1}, p: []float64{1, 1, 1, 1}, want: 0.5},
		// 0/1 labels; p = 0 is negative, as in Accuracy:
		// rows 0, 2 negative, predicted 0, −1 → recall 2/2;
		// rows 1, 3, 4 positive, predicted 0, 2, 3 → recall 2/3
		// → (1 + 2/3)/2 = 5/6 (p = 0 taken as positive would give ¾)
		{name: "zero", y: []float64{0, 1, 0, 1, 1}, p: []float64{0, 0, -1, 2, 3}, want: 5.0 / 6},
		// real-valued labels: y > 0 at rows 1, 3 (p −1, 4 → 1/2);
		// y ≤ 0 at rows 0, 2 (p −3, −0.5 → 2/2) → ¾
		{name: "real labels", y: []float64{-2, 0.5, 0, 3}, p: []float64{-3, -1, -0.5, 4}, want: 0.75},
		{name: "perfect", y: []float64{1, -1, -1}, p: []float64{2, -2, -1}, want: 1},
		{name: "reversed", y: []float64{1, -1, -1}, p: []float64{-2, 2, 1}, want: 0},
		// NaN > 0 is false: negative; positive recall 0/1, negative 1/1 → ½
		{name: "nan", y: []float64{1, -1}, p: []float64{nan, nan}, want: 0.5},
		{name: "only positive", y: []float64{1, 2}, p: []float64{1, -1}, err: ErrUndefined},
		{name: "only negative", y: []float64{0, -1}, p: []float64{1, -1}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1, -1}, p: []float64{1}, err: ErrShape},
	})
}

func TestF1(t *testing.T) {
	runSingle(t, "F1", F1, []case1{
		// TP 2 (rows 0, 1), FN 1 (row 2), FP 1 (row 3): P = R = 2/3 →
		// 2·(4/9)/(4/3) = 2/3; counts 2·2/(2·2 + 1 + 1) = 4/6
		{name: "basic", y: []float64{1, 1, 1, -1, -1}, p: []float64{1, 1, -1, 1, -1}, want: 2.0 / 3},
		// TP 2, FP 2: P = ½, R = 1 → 2·½/(3/2) = 2/3
		{name: "all positive", y: []float64{1, 1, -1, -1}, p: []float64{1, 1, 1, 1}, want: 2.0 / 3},
		{name: "perfect", y: []float64{1, -1, -1, -1}, p: []float64{0.1, -1, 0, -3}, want: 1},
		// nothing predicted positive, a positive label: P = 0/0, R = 0 → 0
		{name: "none predicted", y: []float64{1, -1}, p: []float64{-1, -1}, want: 0},
		// no positive label, one predicted: R = 0/0, P = 0 → 0
		{name: "no positive label", y: []float64{-1, -1}, p: []float64{1, -1}, want: 0},
		// 0/1 labels, p = 0 negative: TP 1 (row 2), FN 1 (row 1), FP 0
		// → 2/(2 + 0 + 1) = 2/3
		{name: "zero", y: []float64{0, 1, 1}, p: []float64{0, 0, 3}, want: 2.0 / 3},
		// NaN prediction is negative: TP 1, FN 1 → 2/3
		{name: "nan", y: []float64{1, 1, -1}, p: []float64{nan, 1, -1}, want: 2.0 / 3},
		// no positive label and none predicted: 0/0
		{name: "no positives", y: []float64{-1, 0}, p: []float64{-1, 0}, err: ErrUndefined},
		{name: "empty", y: []float64{}, p: []float64{}, err: ErrUndefined},
		{name: "shape", y: []float64{1}, p: []float64{1, 2}, err: ErrShape},
	})
}

// bruteR2 is R² written from its definition, one pass per sum, the mean
// taken naively: 1 − Σ(y−p)²/Σ(y−ȳ)²; ok false when the labels are all
// equal.
func bruteR2(y, p []float64) (float64, bool) {
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var num, den float64
	for i := range y {
		num += (y[i] - p[i]) * (y[i] - p[i])
		den += (y[i] - mean) * (y[i] - mean)
	}
	for _, v := range y {
		if v != y[0] {
			return 1 - num/den, true
		}
	}
	return 0, false
}

// bruteBalanced collects each class's predictions and averages the two
// recalls; ok false when a class is empty.
func bruteBalanced(y, p []float64) (float64, bool) {
	var pos, neg []float64
	for i := range y {
		if y[i] > 0 {
			pos = append(pos, p[i])
		} else {
			neg = append(neg, p[i])
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return 0, false
	}
	hitPos, hitNeg := 0.0, 0.0
	for _, v := range pos {
		if v > 0 {
			hitPos++
		}
	}
	for _, v := range neg {
		if !(v > 0) {
			hitNeg++
		}
	}
	return (hitPos/float64(len(pos)) + hitNeg/float64(len(neg))) / 2, true
}

// bruteF1 computes precision and recall as ratios and takes their harmonic
// mean; when one of them is 0/0 the other is 0 (the positives predicted are
// the positives found), and F1 is 0 unless both are 0/0 (ok false).
func bruteF1(y, p []float64) (float64, bool) {
	var predicted, actual, both float64
	for i := range y {
		if p[i] > 0 {
			predicted++
		}
		if y[i] > 0 {
			actual++
		}
		if p[i] > 0 && y[i] > 0 {
			both++
		}
	}
	switch {
	case predicted == 0 && actual == 0:
		return 0, false
	case predicted == 0 || actual == 0 || both == 0:
		return 0, true
	}
	prec, rec := both/predicted, both/actual
	return 2 * prec * rec / (prec + rec), true
}

// relNear compares within 1e-12 relative to max(1, |want|).
func relNear(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

// TestNewMeasuresBrute compares the five measures with the brute-force
// formulas above on random inputs: continuous values for rmse, mae and r2
// (offset labels, some constant), integers in {−1, 0, 1, 2} with ties at 0
// for the binary measures, and checks that balanced accuracy equals the AUC
// of the binary predictions [p > 0] and the accuracy when the classes have
// equal sizes.
func TestNewMeasuresBrute(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 3))
	var defined [3]int
	for trial := range 2000 {
		m := 1 + rnd.IntN(40)
		y, p := make([]float64, m), make([]float64, m)
		offset := float64(rnd.IntN(3)) * 1e3
		constant := rnd.IntN(10) == 0
		for i := range y {
			y[i] = offset + rnd.NormFloat64()
			if constant {
				y[i] = offset
			}
			p[i] = offset + rnd.NormFloat64()
		}
		var mse, mae float64
		for i := range y {
			mse += (y[i] - p[i]) * (y[i] - p[i]) / float64(m)
			mae += math.Abs(y[i]-p[i]) / float64(m)
		}
		if got, err := RMSE(y, p); err != nil || !relNear(got, math.Sqrt(mse)) {
			t.Fatalf("trial %d: RMSE %v (%v), brute %v", trial, got, err, math.Sqrt(mse))
		}
		if got, err := MAE(y, p); err != nil || !relNear(got, mae) {
			t.Fatalf("trial %d: MAE %v (%v), brute %v", trial, got, err, mae)
		}
		got, err := R2(y, p)
		want, ok := bruteR2(y, p)
		if !ok {
			if !errors.Is(err, ErrUndefined) {
				t.Fatalf("trial %d: R2 of constant labels = %v, %v; want ErrUndefined", trial, got, err)
			}
		} else {
			defined[0]++
			// The naive mean's error, relative to the spread, grows with the
			// offset: allow 1e-9 relative to the spread's scale.
			if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("trial %d: R2 %.17g (%v), brute %.17g\ny=%v\np=%v", trial, got, err, want, y, p)
			}
		}

		yb, pb := randInts(rnd, m, -1, 4), randInts(rnd, m, -1, 4)
		ba, errBA := BalancedAccuracy(yb, pb)
		wantBA, okBA := bruteBalanced(yb, pb)
		if !okBA {
			if !errors.Is(errBA, ErrUndefined) {
				t.Fatalf("trial %d: BalancedAccuracy %v, %v; want ErrUndefined\ny=%v\np=%v", trial, ba, errBA, yb, pb)
			}
		} else {
			defined[1]++
			if errBA != nil || !near(ba, wantBA) {
				t.Fatalf("trial %d: BalancedAccuracy %v (%v), brute %v\ny=%v\np=%v", trial, ba, errBA, wantBA, yb, pb)
			}
			sign := make([]float64, m)
			for i, v := range pb {
				if v > 0 {
					sign[i] = 1
				}
			}
			if auc, err := AUC(yb, sign); err != nil || !near(auc, ba) {
				t.Fatalf("trial %d: BalancedAccuracy %v, AUC of [p > 0] %v (%v)", trial, ba, auc, err)
			}
		}
		f1, errF1 := F1(yb, pb)
		wantF1, okF1 := bruteF1(yb, pb)
		if !okF1 {
			if !errors.Is(errF1, ErrUndefined) {
				t.Fatalf("trial %d: F1 %v, %v; want ErrUndefined\ny=%v\np=%v", trial, f1, errF1, yb, pb)
			}
		} else {
			defined[2]++
			if errF1 != nil || !near(f1, wantF1) {
				t.Fatalf("trial %d: F1 %v (%v), brute %v\ny=%v\np=%v", trial, f1, errF1, wantF1, yb, pb)
			}
		}

		// Equal class sizes: balanced accuracy is the accuracy.
		half := 1 + rnd.IntN(20)
		ye := make([]float64, 2*half)
		for i := range half {
			ye[i] = 1
		}
		rnd.Shuffle(len(ye), func(a, b int) { ye[a], ye[b] = ye[b], ye[a] })
		pe := randInts(rnd, 2*half, -1, 3)
		acc, _ := Accuracy(ye, pe)
		if ba, err := BalancedAccuracy(ye, pe); err != nil || !near(ba, acc) {
			t.Fatalf("trial %d: balanced classes: BalancedAccuracy %v (%v), Accuracy %v", trial, ba, err, acc)
		}
	}
	for k, name := range []string{"R2", "BalancedAccuracy", "F1"} {
		if defined[k] < 1000 {
			t.Errorf("%s defined in only %d trials", name, defined[k])
		}
	}
}

// TestR2ChoosesAsMSE: on one output R² = 1 − MSE/var(y), var the population
// variance, so both order predictions alike.
func TestR2ChoosesAsMSE(t *testing.T) {
	rnd := rand.New(rand.NewPCG(24, 5))
	for trial := range 200 {
		m := 2 + rnd.IntN(30)
		y, p := make([]float64, m), make([]float64, m)
		for i := range y {
			y[i], p[i] = 5+3*rnd.NormFloat64(), rnd.NormFloat64()
		}
		var mean, v float64
		for _, yi := range y {
			mean += yi / float64(m)
		}
		for _, yi := range y {
			v += (yi - mean) * (yi - mean) / float64(m)
		}
		mse, _ := MSE(y, p)
		r2, err := R2(y, p)
		if err != nil || !relNear(r2, 1-mse/v) {
			t.Fatalf("trial %d: R2 %v (%v), 1 − mse/var %v", trial, r2, err, 1-mse/v)
		}
	}
}
