package plan

import (
	"errors"
	"strings"
	"testing"
)

// TestRankerIntervalRefused: --interval for a ranker (globalrank,
// queryrank, prefrank), with either method and its scheme, is refused when
// the flags are planned — before any data are read (the files named do not
// exist) — with ErrRankInterval, naming the flag, its value and the learner;
// rls with the same flags is planned.
func TestRankerIntervalRefused(t *testing.T) {
	for _, c := range []struct {
		learner string
		extra   []string
	}{
		{"globalrank", nil},
		{"queryrank", []string{"--qid", "q"}},
		{"prefrank", []string{"--preferences", "/absent/prefs.txt"}},
	} {
		for _, iv := range [][]string{{"--interval", "cv+", "--cv", "kfold:5"}, {"--interval", "jackknife+", "--cv", "loo"}} {
			args := append(append([]string{"--data", "/absent/data.csv", "--learner", c.learner}, c.extra...), iv...)
			_, err := newPlan(t, args...)
			want := "--interval " + iv[1] + ": prediction intervals are for a regression learner (rls), not --learner " + c.learner
			if !errors.Is(err, ErrRankInterval) || !strings.Contains(err.Error(), want) {
				t.Errorf("%v: %v, want ErrRankInterval naming %q", args, err, want)
			}
		}
	}
	if _, err := newPlan(t, "--data", "/absent/data.csv", "--learner", "rls", "--interval", "cv+", "--cv", "kfold:5"); err != nil {
		t.Errorf("rls --interval cv+: %v", err)
	}
}
