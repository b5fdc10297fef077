package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/plan"
)

// TestRankIntervalCLI: fit --learner globalrank|queryrank --interval cv+ is
// refused before the data are read (the --data file does not exist) with
// plan.ErrRankInterval, whose message names the flag and says why (a
// ranker's scores have no fixed level).
func TestRankIntervalCLI(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "absent.csv")
	for _, args := range [][]string{
		{"fit", "--learner", "globalrank", "--data", absent, "--interval", "cv+", "--cv", "kfold:5"},
		{"fit", "--learner", "queryrank", "--qid", "q", "--data", absent, "--interval", "cv+", "--cv", "kfold:5"},
	} {
		_, _, err := run(t, "", args...)
		if !errors.Is(err, plan.ErrRankInterval) || !strings.Contains(err.Error(), "--interval cv+") || !strings.Contains(err.Error(), "no fixed level") {
			t.Errorf("%v: %v, want plan.ErrRankInterval naming --interval cv+ and the reason", args, err)
		}
	}
}
