package mmc

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/factor"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestInteractiveReproducesRLScore is issue 25's acceptance for the
// interactive classifier: on a seeded example (two Gaussian blobs, m = 120,
// working sets drawn by NumPy) the labels after every step — claims of n
// rows, claims of a whole working set, cyclic descents on working sets —
// are RLScore's InteractiveRlsClassifier's.
func TestInteractiveReproducesRLScore(t *testing.T) {
	py, dir := rlscorePython(t)
	// RLScore's descent stops when a class's size has changed by its limit
	// (default the working set's size), but after a sweep's first move it
	// counts every later row of the sweep as moved, so that default stops
	// it early; with a limit it cannot reach, both descents run to
	// convergence and are compared on that.
	const gamma, lambda, noLimit = 0.5, 0.5, 1 << 30
	cfg := map[string]any{"seed": 5, "m": 120, "gamma": gamma, "lambda": lambda, "steps": [][]any{
		{"claim", 30, 1}, {"ws", 60}, {"all", 1}, {"descend", noLimit}, {"ws", 50}, {"claim", 10, 0}, {"descend", noLimit},
		{"ws", 120}, {"descend", noLimit}, {"ws", 40}, {"claim", 15, 1}, {"all", 0}, {"ws", 120}, {"descend", noLimit}}}
	arg, _ := json.Marshal(cfg)
	cmd := exec.Command(py, "testdata/rlscore_interactive.py", string(arg))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("RLScore: %v", err)
	}
	var res struct {
		X     [][]float64 `json:"x"`
		Steps []struct {
			Op     string `json:"op"`
			Rows   []int  `json:"rows"`
			N      int    `json:"n"`
			Class  int    `json:"class"`
			Labels []int  `json:"labels"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(len(res.X), 2, nil)
	for i, r := range res.X {
		x.SetRow(i, r)
	}
	d, err := factor.Build(x, kernel.Gaussian{Gamma: gamma}, factor.Request{Form: factor.Dual})
	if err != nil {
		t.Fatal(err)
	}
	in, err := NewInteractive(d.Factor, lambda, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	for s, st := range res.Steps {
		switch st.Op {
		case "ws":
			err = in.SetWorkingSet(st.Rows)
		case "claim":
			_, err = in.ClaimN(st.N, st.Class)
		case "all":
			err = in.ClaimAll(st.Class)
		case "descend":
			in.Descend(noLimit)
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", s, st.Op, err)
		}
		diff := 0
		for i, v := range st.Labels {
			if in.Labels()[i] != v {
				diff++
			}
		}
		if diff > 0 {
			t.Fatalf("step %d (%s): %d labels differ from RLScore's\n got %v\nwant %v", s, st.Op, diff, in.Labels(), st.Labels)
		}
	}
}

// TestInteractiveStepsEqualRetraining: every claim takes the rows whose
// two-class objective after the move, computed by retraining, is lowest;
// every descent ends where no single move of a working-set row lowers the
// retrained objective (or at the balance limit); and J is the retrained
// objective after every step.
func TestInteractiveStepsEqualRetraining(t *testing.T) {
	const m, c, lambda = 21, 3, 0.6
	x := randData(m, 2, c, 17)
	k := kernel.Gaussian{Gamma: 0.4}
	d, err := factor.Build(x, k, factor.Request{Form: factor.Dual})
	if err != nil {
		t.Fatal(err)
	}
	kk := effectiveKernel(t, x, k, nil)
	in, err := NewInteractive(d.Factor, lambda, RandomLabels(m, c, 3, 0), c)
	if err != nil {
		t.Fatal(err)
	}
	classFit := func(labels []int, b int) float64 { // m − y_bᵀRy_b by a fresh solve
		return naiveObjective(t, kk, lambda, labels, c) - otherClasses(t, kk, lambda, labels, c, b)
	}
	check := func(step string) {
		j := naiveObjective(t, kk, lambda, in.Labels(), c)
		if math.Abs(in.Objective()-j) > 1e-10*float64(m*c)*math.Max(1, j) {
			t.Fatalf("%s: J = %v, retrained %v", step, in.Objective(), j)
		}
	}
	if err := in.SetWorkingSet([]int{0, 2, 3, 5, 8, 9, 11, 14, 15, 18, 20}); err != nil {
		t.Fatal(err)
	}
	before := append([]int(nil), in.Labels()...)
	moved, err := in.ClaimN(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	// the retrained score of every candidate, lowest first (ties to the
	// lower row): the rows moved are the first three
	type sc struct {
		v   float64
		row int
	}
	var scores []sc
	for _, i := range []int{0, 2, 3, 5, 8, 9, 11, 14, 15, 18, 20} {
		a := before[i]
		if a == 1 {
			continue
		}
		lab := append([]int(nil), before...)
		lab[i] = 1
		scores = append(scores, sc{classFit(lab, a) + classFit(lab, 1), i})
	}
	sort.Slice(scores, func(x, y int) bool {
		return scores[x].v < scores[y].v || scores[x].v == scores[y].v && scores[x].row < scores[y].row
	})
	for k, r := range moved {
		if scores[k].row != r && math.Abs(scores[k].v-scores[slices.IndexFunc(scores, func(s sc) bool { return s.row == r })].v) > 1e-9 {
			t.Fatalf("claimed rows %v; by retraining the lowest scores are %v", moved, scores)
		}
	}
	check("claim")
	in.Descend(0)
	check("descend")
	localOptimum(t, kk, lambda, in.Labels(), []int{0, 2, 3, 5, 8, 9, 11, 14, 15, 18, 20}, c)
	if err := in.ClaimAll(2); err != nil {
		t.Fatal(err)
	}
	check("claim all")
	if err := in.SetWorkingSet([]int{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}); err != nil {
		t.Fatal(err)
	}
	counts := func() []int {
		n := make([]int, c)
		for _, v := range in.Labels() {
			n[v]++
		}
		return n
	}
	if in, err = NewInteractive(d.Factor, lambda, RandomLabels(m, c, 8, 1), c); err != nil { // a random start: far to go
		t.Fatal(err)
	}
	c0 := counts()
	nmoved := in.Descend(2)
	c1 := counts()
	t.Logf("descent with limit 2: %d moved, counts %v → %v", nmoved, c0, c1)
	hit := false
	for b := range c0 {
		if d := c1[b] - c0[b]; d > 2 || d < -2 {
			t.Fatalf("descent with limit 2 changed class %d by %d", b, d)
		} else if d == 2 || d == -2 {
			hit = true
		}
	}
	if !hit {
		t.Fatalf("descent with limit 2 stopped before any class changed by 2: %v → %v", c0, c1)
	}
	if free := in.Descend(0); free == 0 {
		t.Fatal("the descent with limit 2 had converged anyway: this test does not test the limit")
	}
	all := make([]int, m)
	for i := range all {
		all[i] = i
	}
	localOptimum(t, kk, lambda, in.Labels(), all, c)
	// an unbalanced labelling, whose classes' objectives differ: the claim
	// ranks rows from different classes by the two classes' objectives after
	// the move, not by the move's change alone
	unbalanced := make([]int, m)
	for i := range unbalanced {
		switch {
		case i >= 18:
			unbalanced[i] = 1
		case i >= 15:
			unbalanced[i] = 2
		}
	}
	if in, err = NewInteractive(d.Factor, lambda, unbalanced, c); err != nil {
		t.Fatal(err)
	}
	got, err := in.ClaimN(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ranked []sc
	for i, a := range unbalanced {
		if a == 1 {
			continue
		}
		lab := append([]int(nil), unbalanced...)
		lab[i] = 1
		ranked = append(ranked, sc{classFit(lab, a) + classFit(lab, 1), i})
	}
	sort.Slice(ranked, func(x, y int) bool { return ranked[x].v < ranked[y].v })
	for k, r := range got {
		if ranked[k].row != r {
			t.Fatalf("claimed rows %v; by retraining the lowest scores are %v", got, ranked[:6])
		}
	}
	check("descend with a limit")
	if err := in.SetWorkingSet([]int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := in.ClaimAll(2); err != nil {
		t.Fatal(err)
	}
	if _, err := in.ClaimN(1, 2); err == nil {
		t.Fatal("claiming into the class of the whole working set did not fail")
	}
	for _, bad := range [][]int{nil, {0, 0}, {-1}, {m}} {
		if err := in.SetWorkingSet(bad); err == nil {
			t.Fatalf("working set %v accepted", bad)
		}
	}
}

// localOptimum fails unless no single move of a row of ws lowers the
// retrained J by more than its rounding.
func localOptimum(t *testing.T, kk *mat.Dense, lambda float64, lab, ws []int, c int) {
	t.Helper()
	j := naiveObjective(t, kk, lambda, lab, c)
	for _, i := range ws {
		for b := 0; b < c; b++ {
			if b == lab[i] {
				continue
			}
			l2 := append([]int(nil), lab...)
			l2[i] = b
			if nj := naiveObjective(t, kk, lambda, l2, c); nj < j-1e-9 {
				t.Fatalf("after descent, moving row %d to %d lowers J from %v to %v", i, b, j, nj)
			}
		}
	}
}

// otherClasses is Σ_{c ≠ b} (m − y_cᵀRy_c) by a fresh solve.
func otherClasses(t *testing.T, k *mat.Dense, lambda float64, labels []int, c, b int) float64 {
	m, _ := k.Dims()
	a := mat.DenseCopyOf(k)
	for i := 0; i < m; i++ {
		a.Set(i, i, a.At(i, i)+lambda)
	}
	s := 0.0
	for cl := 0; cl < c; cl++ {
		if cl == b {
			continue
		}
		y := mat.NewVecDense(m, nil)
		for i, l := range labels {
			y.SetVec(i, -1)
			if l == cl {
				y.SetVec(i, 1)
			}
		}
		var z mat.VecDense
		if err := z.SolveVec(a, y); err != nil {
			t.Fatal(err)
		}
		s += lambda * mat.Dot(y, &z)
	}
	return s
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestDescendTakesAnyImprovement: with R = I except R_01 = R_10 = ε, rows
// 0 and 1 in different classes gain −2ε each by joining the other's class
// and every other move gains 0; the descent takes the first such move,
// however small ε, and no zero-gain move.
func TestDescendTakesAnyImprovement(t *testing.T) {
	const m, eps = 6, 1e-9
	r := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		r.Set(i, i, 1)
	}
	r.Set(0, 1, eps)
	r.Set(1, 0, eps)
	in := &Interactive{st: newState(nil, nil, r, []int{0, 1, 0, 1, 0, 1}, 2), ws: []int{0, 1, 2, 3, 4, 5}}
	if moved := in.Descend(0); moved != 1 {
		t.Fatalf("descent moved %d rows, want 1: labels %v", moved, in.Labels())
	}
	if got := in.Labels(); got[0] != 1 || got[1] != 1 || got[2] != 0 || got[3] != 1 {
		t.Fatalf("labels %v, want row 0 moved into class 1 and nothing else", got)
	}
	fit := in.st.classFitness() // m − y_cᵀRy_c by hand: y_0 = (−1,−1,1,−1,1,−1), y_1 = −y_0
	if want := float64(m) - (float64(m) + 2*eps); math.Abs(fit[0]-want) > 1e-15 || math.Abs(fit[1]-want) > 1e-15 {
		t.Fatalf("class fitness %v, want %v each", fit, want)
	}
}

// TestInteractiveLazyEqualsStored: on the low-rank forms (sparse, linear)
// the interactive classifier keeps W = UᵀY and computes each gain in O(r);
// through the same steps it gives the labels, moves and J of the classifier
// that stores R = U diag(g) Uᵀ.
func TestInteractiveLazyEqualsStored(t *testing.T) {
	const m, c, lambda = 40, 3, 0.5
	x := randData(m, 3, c, 29)
	steps := []learn.Step{{Op: "claim", N: 12, Class: 1}, {Op: "claim", N: 9, Class: 2}, {Op: "ws", Rows: []int{1, 3, 5, 7, 9, 11, 13, 17, 19, 23, 29, 31}},
		{Op: "descend"}, {Op: "all", Class: 0}, {Op: "ws", Rows: RandomLabels(m, m, 3, 0)}, {Op: "descend", Limit: 4}, {Op: "descend"}}
	for _, req := range []factor.Request{{Form: factor.Sparse, Basis: []int{0, 4, 8, 12, 16, 20, 24, 28, 32, 36}}, {Form: factor.Linear}} {
		var k kernel.Kernel = kernel.Gaussian{Gamma: 0.3}
		if req.Form == factor.Linear {
			k = kernel.Linear{Bias: 1}
		}
		d, err := factor.Build(x, k, req)
		if err != nil {
			t.Fatal(err)
		}
		lazy, err := NewInteractive(d.Factor, lambda, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if !lazy.st.lazy {
			t.Fatalf("form %v: the interactive classifier stores R", req.Form)
		}
		stored := newInteractive(nil, nil, FactorR(d.Factor, Gains(d.E, lambda)), make([]int, m), c)
		for k, s := range steps {
			n1, err1 := lazy.Apply(s)
			n2, err2 := stored.Apply(s)
			if err1 != nil || err2 != nil {
				t.Fatalf("form %v step %d: %v, %v", req.Form, k, err1, err2)
			}
			j1, j2 := lazy.Objective(), stored.Objective()
			if n1 != n2 || math.Abs(j1-j2) > 1e-10*float64(m*c)*math.Max(1, j2) {
				t.Fatalf("form %v step %d: moved %d, J %v; stored R: moved %d, J %v", req.Form, k, n1, j1, n2, j2)
			}
			for i := range lazy.Labels() {
				if lazy.Labels()[i] != stored.Labels()[i] {
					t.Fatalf("form %v step %d: labels %v, stored R %v", req.Form, k, lazy.Labels(), stored.Labels())
				}
			}
		}
	}
}
