package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestROCTLPOCLI: fit --roc tlpo --cv lpo adds roc to the JSON: its lpo_auc
// is the search's LPO AUC at the chosen λ (cv.best.value, computed by the
// selection's own leave-pair-out over the positive–negative pairs), the
// wins count every one of the m(m−1)/2 pairs once, auc is the wins'
// Mann–Whitney statistic and the points are the wins' ROC curve, both
// recomputed here; the intervals hold their AUCs; refusals name the flag.
func TestROCTLPOCLI(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(25, 6))
	var b strings.Builder
	b.WriteString("x1,x2,y,z\n")
	const m = 30
	for i := 0; i < m; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		y := -1
		if x1+0.7*rng.NormFloat64() > 0 {
			y = 1
		}
		fmt.Fprintf(&b, "%.4f,%.4f,%d,%.4f\n", x1, x2, y, rng.NormFloat64())
	}
	data := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, learner := range []string{"rls", "globalrank"} {
		stdout, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--learner", learner, "--kernel", "gaussian", "--gamma", "0.5",
			"--cv", "lpo", "--measure", "auc", "--lambda-grid", "10^-2..10^1", "--roc", "tlpo", "--quiet",
			"--report", filepath.Join(dir, learner+".html"))
		if err != nil {
			t.Fatalf("%s: %v\n%s", learner, err, stderr)
		}
		var out struct {
			Y   []float64
			CV  struct{ Best struct{ Value float64 } }
			ROC struct {
				Method      string
				AUC         float64
				AUCInterval [2]float64 `json:"auc_interval"`
				LPOAUC      float64    `json:"lpo_auc"`
				LPOInterval [2]float64 `json:"lpo_auc_interval"`
				Level       float64
				Pairs       int
				Positives   int
				Negatives   int
				Points      [][2]float64
				Wins        []float64
			}
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatal(err)
		}
		r := out.ROC
		if r.Method != "tlpo" || r.Level != 0.95 || r.Pairs != m*(m-1)/2 || r.Positives+r.Negatives != m || len(r.Wins) != m {
			t.Fatalf("%s: roc %+v", learner, r)
		}
		if r.LPOAUC != out.CV.Best.Value {
			t.Errorf("%s: lpo_auc %v, the search's LPO AUC at the chosen λ %v", learner, r.LPOAUC, out.CV.Best.Value)
		}
		labels := make([]float64, m)
		for i, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
			fmt.Sscanf(strings.Split(line, ",")[2], "%g", &labels[i])
		}
		total, good, n := 0.0, 0.0, 0.0
		for i, w := range r.Wins {
			total += w
			for j, v := range r.Wins {
				if labels[i] > 0 && labels[j] <= 0 {
					n++
					if w > v {
						good++
					} else if w == v {
						good += 0.5
					}
				}
			}
		}
		if total != float64(r.Pairs) {
			t.Errorf("%s: the wins add up to %v, not the %d pairs", learner, total, r.Pairs)
		}
		if math.Abs(good/n-r.AUC) > 1e-15 {
			t.Errorf("%s: auc %v, the wins' Mann–Whitney %v", learner, r.AUC, good/n)
		}
		// The curve: per distinct score s (decreasing), the shares of
		// negatives and positives scoring ≥ s.
		k := 1
		if r.Points[0] != [2]float64{0, 0} {
			t.Errorf("%s: curve starts at %v", learner, r.Points[0])
		}
		for s := float64(m); s >= 0; s -= 0.5 {
			var fp, tp, at float64
			for i, w := range r.Wins {
				if w == s {
					at++
				}
				if w >= s {
					if labels[i] > 0 {
						tp++
					} else {
						fp++
					}
				}
			}
			if at == 0 {
				continue
			}
			if k >= len(r.Points) || r.Points[k] != [2]float64{fp / float64(r.Negatives), tp / float64(r.Positives)} {
				t.Fatalf("%s: vertex %d of %v, want (%v, %v)", learner, k, r.Points, fp/float64(r.Negatives), tp/float64(r.Positives))
			}
			k++
		}
		if k != len(r.Points) {
			t.Errorf("%s: %d vertices, want %d", learner, len(r.Points), k)
		}
		html := readFileT(t, filepath.Join(dir, learner+".html"))
		if want := fmt.Sprintf("AUC of the tournament scores = %.4f", r.AUC); !strings.Contains(html, `id="roc-tlpo"`) || !strings.Contains(html, want) {
			t.Errorf("%s: the report has no tournament ROC panel with %q", learner, want)
		}
		for _, iv := range []struct {
			v  float64
			iv [2]float64
		}{{r.AUC, r.AUCInterval}, {r.LPOAUC, r.LPOInterval}} {
			if !(0 <= iv.iv[0] && iv.iv[0] < iv.v && iv.v <= iv.iv[1] && iv.iv[1] <= 1) {
				t.Errorf("%s: interval %v around %v", learner, iv.iv, iv.v)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--roc", "tlpo", "--label", "z"}, "--roc tlpo needs a binary label"},
		{[]string{"--roc", "tlpo", "--label", "y", "--learner", "greedy", "--select", "1"}, "--roc tlpo needs exact leave-pair-out predictions of a label: --learner greedy"},
		{[]string{"--roc", "tlpo", "--label", "y", "--one-vs-all"}, "--roc tlpo analyses one binary label"},
		{[]string{"--roc", "tlpo", "--label", "y", "--learner", "queryrank", "--qid", "z"}, "--roc tlpo compares every pair of rows across the data set: --learner queryrank"},
		{[]string{"--roc", "roc", "--label", "y"}, "--roc roc: want tlpo"},
	} {
		_, stderr, err := run(t, "", append([]string{"fit", "--data", data, "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, stderr %q, want %q", c.args, err, stderr, c.want)
		}
	}
}
