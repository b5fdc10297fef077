package mmc

import (
	"testing"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/progress"
)

// TestProgressEachStart: the learner's observer hears one step per start,
// in order, each after that start's search — the points where a front end
// (the C ABI's Ctrl-C) can stop a clustering — in the dual and the factor
// forms.
func TestProgressEachStart(t *testing.T) {
	const m, c, restarts = 30, 2, 4
	x := randData(m, 2, c, 5)
	for _, form := range []learn.Form{learn.Dual, learn.Linear} {
		var steps []progress.Event
		obs := func(e progress.Event) {
			if e.Stage == "clustering starts" {
				steps = append(steps, e)
			}
		}
		k := kernel.Spec{Name: "gaussian", Gamma: 0.5}
		if form == learn.Linear {
			k = kernel.Spec{Name: "linear"}
		}
		kern, err := kernel.New(k)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Fit(x, learn.Options{Kernel: kern, Form: form, Observe: obs}, Options{Clusters: c, Restarts: restarts, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Solve(1); err != nil {
			t.Fatal(err)
		}
		if len(steps) != restarts {
			t.Fatalf("form %v: %d start steps, want %d", form, len(steps), restarts)
		}
		for i, e := range steps {
			if e.Done != int64(i+1) || e.Total != restarts {
				t.Fatalf("form %v: step %d is %d/%d", form, i, e.Done, e.Total)
			}
		}
	}
}
