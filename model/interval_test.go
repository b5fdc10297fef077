package model

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// handInterval is a linear predictor of one feature with a CV+ interval
// of two hold-out models over four training rows, built by hand.
func handInterval() *Predictor {
	return &Predictor{Learner: "rls", Kernel: kernel.Spec{Name: "linear", Bias: 1}, Lambda: 1, Width: 1, Outputs: []string{"y"},
		W: mat.NewDense(1, 1, []float64{2}), B: []float64{0.5},
		Interval: &Interval{Method: CVPlus, W: []*mat.Dense{mat.NewDense(1, 1, []float64{1}), mat.NewDense(1, 1, []float64{3})},
			B: [][]float64{{0}, {1}}, Fold: []int{0, 1, 1, 0}, Residuals: mat.NewDense(4, 1, []float64{0.5, 1, 0.25, 2})}}
}

// TestIntervalByHand: the CV+ interval of a hand-built model at x = 1 —
// μ_0 = 1, μ_1 = 4; μ − R = {0.5, 3, 3.75, −1}, μ + R = {1.5, 5, 4.25, 3};
// n = 4, coverage 0.6: ⌈0.6·5⌉ = 3, ⌊0.4·5⌋ = 2 — is [0.5, 4.25]; at
// coverage 0.9 (⌈4.5⌉ = 5 > 4) it is the whole line; and a hostile file's
// interval is refused naming what is wrong.
func TestIntervalByHand(t *testing.T) {
	p := handInterval()
	x := mat.NewDense(1, 1, []float64{1})
	pred, lo, hi, err := p.PredictInterval(x, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	if pred.At(0, 0) != 2.5 || lo.At(0, 0) != 0.5 || hi.At(0, 0) != 4.25 {
		t.Errorf("got %v [%v, %v], want 2.5 [0.5, 4.25]", pred.At(0, 0), lo.At(0, 0), hi.At(0, 0))
	}
	_, lo, hi, _ = p.PredictInterval(x, 0.9)
	if !math.IsInf(lo.At(0, 0), -1) || !math.IsInf(hi.At(0, 0), 1) {
		t.Errorf("coverage 0.9 of n = 4: [%v, %v], want the whole line", lo.At(0, 0), hi.At(0, 0))
	}
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	base := buf.String()
	if _, err := Load(strings.NewReader(base)); err != nil {
		t.Fatalf("the untouched model: %v", err)
	}
	for _, c := range []struct{ name, old, new, want string }{
		{"version 4", `"version":5`, `"version":4`, "intervals came with version 5"},
		{"unknown method", `"method":"cv+"`, `"method":"cqr"`, `method "cqr"`},
		{"fold out of range", `"fold":[0,1,1,0]`, `"fold":[0,1,2,0]`, "fold of training row 2 is 2"},
		{"model unused", `"fold":[0,1,1,0]`, `"fold":[0,0,0,0]`, "model 1 leaves no training row out"},
		{"negative residual", `[0.25]`, `[-0.25]`, "negative"},
		{"residual rows", `"residuals":[[0.5],`, `"residuals":[`, "residuals: 3 rows, want 4"},
		{"weights of another size", `{"weights":[[1]]`, `{"weights":[[1],[2]]`, "model 0: weights: 2 rows, want 1"},
		{"no intercept", `,"intercept":[1]}`, `}`, "needs weights and an intercept"},
		{"coefficients in a linear model", `{"weights":[[1]]`, `{"coefficients":[[1]],"weights":[[1]]`, "no coefficients"},
		{"huge weight", `{"weights":[[1]]`, `{"weights":[[1e308]]`, "beyond float64"},
	} {
		if !strings.Contains(base, c.old) {
			t.Fatalf("%s: %q not in %s", c.name, c.old, base)
		}
		_, err := Load(strings.NewReader(strings.Replace(base, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	var f map[string]any
	_ = json.Unmarshal([]byte(base), &f)
	f["interval"].(map[string]any)["models"] = []any{}
	b, _ := json.Marshal(f)
	if _, err := Load(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "0 models") {
		t.Errorf("no models: err %v", err)
	}
}

// TestSelectKth: the k-th smallest of random arrays — with many ties, sorted,
// reversed, constant, and an organ-pipe order — equals sorting's, for
// every k, lengths 1 to 64 and 1000.
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 5, 8, 13, 64, 1000} {
		for kind := 0; kind < 6; kind++ {
			v := make([]float64, n)
			for i := range v {
				switch kind {
				case 0:
					v[i] = rng.NormFloat64()
				case 1:
					v[i] = float64(rng.IntN(3))
				case 2:
					v[i] = float64(i)
				case 3:
					v[i] = float64(n - i)
				case 4:
					v[i] = 7
				case 5:
					v[i] = float64(min(i, n-i))
				}
			}
			want := slices.Clone(v)
			slices.Sort(want)
			for k := 0; k < n; k += max(1, n/50) {
				w := slices.Clone(v)
				if got := selectKth(w, k); got != want[k] {
					t.Fatalf("n=%d kind %d k=%d: %v, want %v", n, kind, k, got, want[k])
				}
			}
		}
	}
}
