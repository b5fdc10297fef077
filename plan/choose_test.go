package plan

import (
	"strings"
	"testing"
)

// TestChoose: --choose 1se goes with folds, and with loo for mse or mae;
// elsewhere it is refused naming the flag and its value (and what would
// do), as is an unknown rule. --lambda-per-output goes with rls by loo or
// folds and is refused for rankers, leave-pair-out, a measure of all
// outputs together, one-vs-all, the 1se rule and --stream.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // error substring; "" for a good plan
	}{
		{[]string{"--choose", "1se", "--cv", "kfold:5"}, ""},
		{[]string{"--choose", "1se", "--cv", "repeated-kfold:5x2"}, ""},
		{[]string{"--choose", "1se"}, ""}, // loo with mse
		{[]string{"--choose", "1se", "--measure", "mae"}, ""},
		{[]string{"--choose", "best", "--cv", "lpo", "--measure", "auc"}, ""},
		{[]string{"--choose", "1se", "--measure", "r2"}, "--choose 1se with --cv loo --measure r2"},
		{[]string{"--choose", "1se", "--cv", "lpo", "--measure", "auc"}, "--choose 1se with --cv lpo --measure auc"},
		{[]string{"--choose", "1se", "--cv", "none", "--lambda", "1"}, "--choose 1se with --cv none"},
		{[]string{"--choose", "1se", "--stream", "--cv", "kfold:5"}, "--choose 1se with --stream"},
		{[]string{"--choose", "2se"}, `--choose "2se": want best or 1se`},
		{[]string{"--lambda-per-output", "--cv", "kfold:5"}, ""},
		{[]string{"--lambda-per-output"}, ""},
		{[]string{"--lambda-per-output", "--learner", "globalrank"}, "not --learner globalrank"},
		{[]string{"--lambda-per-output", "--cv", "lpo", "--measure", "auc"}, "--lambda-per-output with --cv lpo"},
		{[]string{"--lambda-per-output", "--measure", "multiclass-accuracy"}, "--lambda-per-output with --measure multiclass-accuracy"},
		{[]string{"--lambda-per-output", "--one-vs-all"}, "--lambda-per-output with --one-vs-all"},
		{[]string{"--lambda-per-output", "--choose", "1se", "--cv", "kfold:5"}, "--lambda-per-output with --choose 1se"},
		{[]string{"--lambda-per-output", "--stream", "--cv", "kfold:5"}, "--lambda-per-output works on the in-memory"},
		{[]string{"--lambda-per-output", "--interval", "jackknife+"}, "--lambda-per-output with --interval jackknife+"},
		{[]string{"--choose", "1se", "--cv", "kfold:5", "--interval", "cv+"}, ""}, // the interval of the rule's λ
		{[]string{"--choose", "1se", "--interval", "jackknife+", "--kernel", "linear"}, ""},
	} {
		_, err := newPlan(t, append([]string{"--data", "d.csv"}, c.args...)...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
