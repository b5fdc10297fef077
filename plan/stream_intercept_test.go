package plan

import (
	"strings"
	"testing"
)

// TestStreamIntercept: --stream --intercept is a streaming plan whose
// options carry the intercept, with the bias feature 0 unless given (then
// as given); without --intercept the options have none; the rankers still
// refuse it, naming the flag and why.
func TestStreamIntercept(t *testing.T) {
	for _, c := range []struct {
		args      []string
		intercept bool
		bias      float64
	}{
		{[]string{"--data", "s.svm", "--stream", "--intercept"}, true, 0},
		{[]string{"--data", "s.svm", "--stream", "--intercept", "--bias", "2", "--cv", "kfold:5"}, true, 2},
		{[]string{"--data", "s.svm", "--stream", "--intercept", "--kernel", "gaussian", "--basis", "20"}, true, 0},
		{[]string{"--data", "s.svm", "--stream"}, false, 1},
	} {
		p, err := newPlan(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		opt, err := p.StreamOptions()
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if opt.Intercept != c.intercept || p.flags.Bias != c.bias {
			t.Errorf("%v: intercept %v, bias %g; want %v, %g", c.args, opt.Intercept, p.flags.Bias, c.intercept, c.bias)
		}
	}
	for _, le := range []string{"globalrank", "queryrank"} {
		_, err := newPlan(t, "--data", "s.svm", "--stream", "--intercept", "--learner", le)
		if err == nil || !strings.Contains(err.Error(), "--intercept") || !strings.Contains(err.Error(), "pairwise loss") {
			t.Errorf("--stream --intercept --learner %s: %v", le, err)
		}
	}
}
