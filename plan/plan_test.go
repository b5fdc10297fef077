package plan

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/selection"
)

// parse defines the flags of a fit on a standard library flag set, parses
// args and returns the flags and the set of flags given.
func parse(t *testing.T, args []string) (*Flags, func(string) bool) {
	t.Helper()
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := &Flags{}
	Define(fs, f)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	return f, func(name string) bool { return given[name] }
}

func newPlan(t *testing.T, args ...string) (*Plan, error) {
	t.Helper()
	f, changed := parse(t, args)
	return New(f, changed)
}

// TestNew: good flag combinations resolve to their plan, bad ones are
// refused naming what is wrong.
func TestNew(t *testing.T) {
	rows := []struct {
		name string
		args []string
		want string            // error substring; "" for a good plan
		ok   func(*Plan) error // checks a good plan
	}{
		{"defaults", []string{"--data", "d.csv"}, "", func(p *Plan) error {
			switch {
			case p.Learner.Name != learn.RLS || p.CVSpec != "loo" || p.Measure.Name != "mse" || len(p.Lambdas) != 31:
				return errors.New("not rls, loo, mse on the default grid")
			case p.Kernels[0] != (kernel.Spec{Name: "linear", Bias: 1}) || p.Sparse || p.Pairwise != nil:
				return errors.New("not the linear kernel with bias 1, dense")
			}
			return nil
		}},
		{"ranker bias 0", []string{"--data", "d.csv", "--learner", "globalrank"}, "", func(p *Plan) error {
			if p.Kernels[0].Bias != 0 || p.Measure.Name != "cindex" {
				return errors.New("globalrank: want bias 0 and cindex")
			}
			return nil
		}},
		{"bias given", []string{"--data", "d.csv", "--learner", "globalrank", "--bias", "2"}, "", func(p *Plan) error {
			if p.Kernels[0].Bias != 2 {
				return errors.New("--bias 2 not kept")
			}
			return nil
		}},
		{"queryrank measure", []string{"--data", "d.csv", "--learner", "queryrank", "--query-normalize"}, "", func(p *Plan) error {
			if p.Measure.Name != "disagreement" {
				return errors.New("queryrank: want disagreement")
			}
			return nil
		}},
		{"lpo auc", []string{"--data", "d.csv", "--cv", "lpo"}, "", func(p *Plan) error {
			if p.Measure.Name != "auc" || p.CVKind != "lpo" {
				return errors.New("lpo: want auc")
			}
			return nil
		}},
		{"kernel grid", []string{"--data", "d.csv", "--kernel", "polynomial", "--gamma-grid", "1,2", "--degree-grid", "2,3", "--coef0-grid", "0,1,2"}, "", func(p *Plan) error {
			if len(p.Kernels) != 12 {
				return errors.New("want 2·2·3 kernel settings")
			}
			return nil
		}},
		{"kfold", []string{"--data", "d.csv", "--cv", "kfold:5", "--fold-score", "mean", "--lambda", "2"}, "", func(p *Plan) error {
			if p.CVKind != "kfold" || p.KFoldK != 5 || !slices.Equal(p.Lambdas, []float64{2}) {
				return errors.New("want kfold:5 at λ 2")
			}
			return nil
		}},
		{"folds file", []string{"--data", "d.csv", "--folds", "f.txt"}, "", func(p *Plan) error {
			if p.CVSpec != "folds" {
				return errors.New("--folds: want the folds scheme")
			}
			return nil
		}},
		{"sparse remove", []string{"--data", "d.csv", "--basis", "10", "--cv", "kfold:3"}, "", func(p *Plan) error {
			if !p.Sparse || p.Policy != learn.Remove || p.flags.BasisHoldOut != "remove" {
				return errors.New("sparse k-fold: want the basis removed from hold-outs")
			}
			return nil
		}},
		{"sparse loo keeps", []string{"--data", "d.csv", "--basis", "10"}, "", func(p *Plan) error {
			if p.flags.BasisHoldOut != "keep" {
				return errors.New("sparse loo: want keep")
			}
			return nil
		}},
		{"one-vs-all", []string{"--data", "d.csv", "--one-vs-all"}, "", func(p *Plan) error {
			if p.Measure.Name != "multiclass-accuracy" {
				return errors.New("want multiclass-accuracy")
			}
			return nil
		}},
		{"cg", []string{"--data", "d.csv", "--solver", "cg", "--lambda", "1", "--cv", "none", "--tol", "1e-8"}, "", nil},
		{"greedy", []string{"--data", "d.csv", "--learner", "greedy", "--select", "3", "--outer-folds", "4"}, "", nil},
		{"prefrank", []string{"--data", "d.csv", "--learner", "prefrank", "--preferences", "p.txt", "--cost", "unit"}, "", nil},
		{"stream", []string{"--data", "d/*.svm", "--stream", "--cv", "kfold:10"}, "", nil},
		{"stream basis keep", []string{"--data", "d/*.svm", "--stream", "--kernel", "gaussian", "--basis", "50", "--cv", "kfold:3"}, "", func(p *Plan) error {
			if p.flags.BasisHoldOut != "keep" {
				return errors.New("--stream: the basis is kept")
			}
			return nil
		}},
		{"kronrls", []string{"--learner", "kronrls", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--cv", "both:3", "--kernel", "gaussian", "--col-kernel", "linear"}, "", func(p *Plan) error {
			pp := p.Pairwise
			switch {
			case pp == nil || p.Learner.Name != learn.KronRLS || pp.Setting != pairwise.Both || pp.RowK != 3 || pp.ColK != 3:
				return errors.New("want a Kronecker plan of setting both, 3 folds each")
			case pp.RowKernels[0].Name != "gaussian" || pp.ColKernels[0].Name != "linear" || pp.ColLambdas != nil || pp.Measure.Name != "mse" || pp.Tol != 1e-10:
				return errors.New("kernels, λ grids, measure or tolerance")
			}
			return nil
		}},
		{"kronrank defaults", []string{"--learner", "kronrank", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt"}, "", func(p *Plan) error {
			pp := p.Pairwise
			if pp == nil || p.Learner.Name != learn.KronRank || pp.Setting != pairwise.Rows || pp.CVGiven || pp.RowK != 0 || pp.Measure.Name != "cindex-row" {
				return errors.New("want conditional ranking cross-validated by new rows, one at a time, scored by cindex-row")
			}
			return nil
		}},
		{"kronrank rows:4 mse", []string{"--learner", "kronrank", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--cv", "rows:4", "--measure", "mse"}, "", func(p *Plan) error {
			if pp := p.Pairwise; pp.Setting != pairwise.Rows || pp.RowK != 4 || pp.Measure.Name != "mse" {
				return errors.New("want rows:4 scored by mse")
			}
			return nil
		}},
		{"twostep", []string{"--learner", "twostep", "--rows", "r.csv", "--cols", "same", "--pairs", "p.txt", "--cv", "vertices", "--col-lambda-grid", "1,2"}, "", func(p *Plan) error {
			pp := p.Pairwise
			if !pp.Homogeneous || pp.Symmetry != pairwise.Symmetric || pp.Setting != pairwise.Vertices || len(pp.ColLambdas) != 2 || !pp.CVGiven {
				return errors.New("want a homogeneous two-step plan, vertices, two column λ")
			}
			return nil
		}},
		{"kronrls cg", []string{"--learner", "kronrls", "--rows", "r", "--cols", "c", "--pairs", "p", "--solver", "cg", "--validation-pairs", "v", "--patience", "5"}, "", func(p *Plan) error {
			if !p.Pairwise.ForceCG || p.Pairwise.Patience != 5 {
				return errors.New("want forced CG, patience 5")
			}
			return nil
		}},

		{"no data", []string{"--label", "y"}, "--data is required", nil},
		{"unknown learner", []string{"--data", "d.csv", "--learner", "svm"}, "unknown learner", nil},
		{"pairs flag elsewhere", []string{"--data", "d.csv", "--rows", "r.csv"}, "--rows applies to --learner kronrank, kronrls, kronsvm and twostep, not rls", nil},
		{"param of another learner", []string{"--data", "d.csv", "--cost", "unit"}, "--cost goes with --learner prefrank, not rls", nil},
		{"query-normalize", []string{"--data", "d.csv", "--learner", "globalrank", "--query-normalize"}, "--query-normalize goes with --learner queryrank, not globalrank", nil},
		{"select elsewhere", []string{"--data", "d.csv", "--select", "3"}, "--select goes with --learner greedy", nil},
		{"outer-folds rls", []string{"--data", "d.csv", "--outer-folds", "3"}, "", func(p *Plan) error {
			if p.flags.OuterFolds != 3 || p.flags.OuterFoldsFile != "" {
				return fmt.Errorf("outer folds %d, file %q", p.flags.OuterFolds, p.flags.OuterFoldsFile)
			}
			return nil
		}},
		{"outer-folds file", []string{"--data", "d.csv", "--learner", "queryrank", "--outer-folds", "outer.txt", "--cv", "lqo"}, "", func(p *Plan) error {
			if p.flags.OuterFolds != 0 || p.flags.OuterFoldsFile != "outer.txt" {
				return fmt.Errorf("outer folds %d, file %q", p.flags.OuterFolds, p.flags.OuterFoldsFile)
			}
			return nil
		}},
		{"outer-folds 1", []string{"--data", "d.csv", "--outer-folds", "1"}, "--outer-folds 1: want at least 2", nil},
		{"outer-folds per output", []string{"--data", "d.csv", "--outer-folds", "3", "--lambda-per-output"}, "not --lambda-per-output", nil},
		{"outer-folds lpo", []string{"--data", "d.csv", "--outer-folds", "3", "--cv", "lpo", "--measure", "auc"}, "--outer-folds 3: the inner cross-validation of a nested CV is leave-one-out or folds", nil},
		{"outer-folds repeated", []string{"--data", "d.csv", "--outer-folds", "3", "--cv", "repeated-kfold:5x2"}, "not --cv repeated-kfold:5x2", nil},
		{"outer-folds stream", []string{"--data", "d/*.svm", "--stream", "--cv", "kfold:3", "--outer-folds", "3"}, "not --stream", nil},
		{"outer-folds cg", []string{"--data", "d.csv", "--solver", "cg", "--lambda", "1", "--cv", "none", "--outer-folds", "3"}, "--outer-folds 3", nil},
		{"outer-folds pairs", []string{"--learner", "twostep", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--cv", "both:3", "--outer-folds", "3"}, "", func(p *Plan) error {
			if p.flags.OuterFolds != 3 {
				return fmt.Errorf("outer folds %d", p.flags.OuterFolds)
			}
			return nil
		}},
		{"outer-folds pairs setting", []string{"--learner", "kronrls", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--outer-folds", "3"}, "--outer-folds 3: nested cross-validation of --learner kronrls holds out objects: --cv rows, cols or both", nil},
		{"outer-folds pairs file", []string{"--learner", "kronrls", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--cv", "rows", "--outer-folds", "o.txt"}, "--outer-folds o.txt: --learner kronrls takes K", nil},
		{"outer-folds pairs standardize", []string{"--learner", "kronrls", "--rows", "r.csv", "--cols", "c.csv", "--pairs", "p.txt", "--cv", "rows", "--outer-folds", "3", "--standardize"}, "without --standardize", nil},
		{"outer-folds pairs same", []string{"--learner", "kronrls", "--rows", "r.csv", "--cols", "same", "--pairs", "p.txt", "--cv", "vertices", "--outer-folds", "3"}, "--outer-folds 3", nil},
		{"greedy outer file", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--outer-folds", "o.txt"}, "--learner greedy takes K", nil},
		{"greedy without select", []string{"--data", "d.csv", "--learner", "greedy"}, "needs --select K", nil},
		{"greedy select 0", []string{"--data", "d.csv", "--learner", "greedy", "--select", "0"}, "--select 0", nil},
		{"greedy kernel", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--kernel", "gaussian"}, "selects features of the linear kernel", nil},
		{"greedy lpo", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--cv", "lpo"}, "not lpo", nil},
		{"greedy repeated", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--cv", "repeated-kfold:5x2"}, "--cv repeated-kfold:5x2 repeats k-fold", nil},
		{"greedy stratified", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--cv", "stratified-kfold:5"}, "", nil},
		{"fold mean stratified", []string{"--data", "d.csv", "--cv", "stratified-kfold:5", "--fold-score", "mean"}, "", nil},
		{"fold mean repeated", []string{"--data", "d.csv", "--cv", "repeated-kfold:5x2", "--fold-score", "mean"}, "", nil},
		{"fold mean group", []string{"--data", "d.csv", "--cv", "group-kfold:5", "--fold-score", "mean"}, "", nil},
		{"fold mean loo", []string{"--data", "d.csv", "--cv", "loo", "--fold-score", "mean"}, "its stratified, repeated or group form", nil},
		{"greedy basis", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--basis", "3"}, "the --basis flags do not apply", nil},
		{"greedy outer 1", []string{"--data", "d.csv", "--learner", "greedy", "--select", "2", "--outer-folds", "1"}, "--outer-folds 1: want at least 2", nil},
		{"prefrank without graph", []string{"--data", "d.csv", "--learner", "prefrank"}, "give --preferences FILE", nil},
		{"graph elsewhere", []string{"--data", "d.csv", "--preferences", "p.txt"}, "not --learner rls", nil},
		{"bad cost", []string{"--data", "d.csv", "--learner", "prefrank", "--preferences", "p", "--cost", "bad"}, "--cost", nil},
		{"unknown kernel", []string{"--data", "d.csv", "--kernel", "rbf"}, "unknown kernel", nil},
		{"parameter of another kernel", []string{"--data", "d.csv", "--gamma", "2"}, "--gamma does not apply to the linear kernel", nil},
		{"bad gamma", []string{"--data", "d.csv", "--kernel", "gaussian", "--gamma", "0"}, "gamma", nil},
		{"bad degree grid", []string{"--data", "d.csv", "--kernel", "polynomial", "--degree-grid", "2,a"}, "is not an integer ≥ 1", nil},
		{"lambda and grid", []string{"--data", "d.csv", "--lambda", "1", "--lambda-grid", "1,2"}, "--lambda and --lambda-grid: give one of them", nil},
		{"lambda 0", []string{"--data", "d.csv", "--lambda", "0"}, "--lambda", nil},
		{"bad lambda grid", []string{"--data", "d.csv", "--lambda-grid", "1,x"}, "--lambda-grid", nil},
		{"folds and cv", []string{"--data", "d.csv", "--folds", "f", "--cv", "loo"}, "give one of them", nil},
		{"cv folds without file", []string{"--data", "d.csv", "--cv", "folds"}, "give --folds", nil},
		{"bad cv", []string{"--data", "d.csv", "--cv", "bootstrap"}, "bootstrap", nil},
		{"kfold:1", []string{"--data", "d.csv", "--cv", "kfold:1"}, "kfold:1", nil},
		{"none with a grid", []string{"--data", "d.csv", "--cv", "none"}, "a grid needs cross-validation", nil},
		{"bad measure", []string{"--data", "d.csv", "--measure", "rmsle"}, "unknown measure", nil},
		{"lpo mse", []string{"--data", "d.csv", "--cv", "lpo", "--measure", "mse"}, "--cv lpo needs a pairwise measure", nil},
		{"cv predictions without cv", []string{"--data", "d.csv", "--cv", "none", "--lambda", "1", "--cv-predictions", "x"}, "--cv-predictions needs cross-validation", nil},
		{"negative basis", []string{"--data", "d.csv", "--basis", "-1"}, "--basis -1: must be positive", nil},
		{"per-group with N", []string{"--data", "d.csv", "--basis-select", "per-group", "--basis", "2"}, "picks one row per group", nil},
		{"basis-select alone", []string{"--data", "d.csv", "--basis-select", "greedy"}, "--basis-select needs --basis N", nil},
		{"holdout without basis", []string{"--data", "d.csv", "--basis-holdout", "remove"}, "applies to sparse models", nil},
		{"skip with kfold", []string{"--data", "d.csv", "--basis", "2", "--cv", "kfold:2", "--basis-holdout", "skip"}, "leave-one-out design", nil},
		{"ranker removes basis", []string{"--data", "d.csv", "--learner", "prefrank", "--preferences", "p", "--basis", "2", "--basis-holdout", "remove"}, "keeps its basis in hold-outs", nil},
		{"basis design 4", []string{"--data", "d.csv", "--basis-design", "4"}, "want 1, 2 or 3", nil},
		{"basis design alone", []string{"--data", "d.csv", "--basis-design", "1"}, "--basis-design goes with", nil},
		{"report without cv", []string{"--data", "d.csv", "--report", "r.html", "--cv", "none", "--lambda", "1"}, "--report shows a cross-validation", nil},
		{"permutations without cv", []string{"--data", "d.csv", "--permutations", "3", "--cv", "none", "--lambda", "1"}, "--permutations needs cross-validation", nil},
		{"max-iter direct", []string{"--data", "d.csv", "--max-iter", "3"}, "--max-iter and --tol apply to --solver cg", nil},
		{"cg gaussian", []string{"--data", "d.csv", "--solver", "cg", "--kernel", "gaussian"}, "--solver cg trains the linear kernel", nil},
		{"cg prefrank", []string{"--data", "d.csv", "--solver", "cg", "--learner", "prefrank", "--preferences", "p"}, "--solver cg does not train --learner prefrank", nil},
		{"cg grid", []string{"--data", "d.csv", "--solver", "cg"}, "give --lambda L and --cv none", nil},
		{"bad solver", []string{"--data", "d.csv", "--solver", "lsqr"}, `--solver "lsqr"`, nil},
		{"basis and rows", []string{"--data", "d.csv", "--basis", "2", "--basis-rows", "b"}, "--basis and --basis-rows: give one of them", nil},
		{"fold mean loo", []string{"--data", "d.csv", "--fold-score", "mean"}, "--fold-score mean averages over folds", nil},
		{"one-vs-all ranker", []string{"--data", "d.csv", "--one-vs-all", "--learner", "globalrank"}, "--one-vs-all trains one regression output per class", nil},
		{"capability", []string{"--data", "d.csv", "--learner", "prefrank", "--preferences", "p", "--permutations", "2"}, "--learner prefrank", nil},
		{"standardize precomputed", []string{"--data", "d.csv", "--kernel", "precomputed", "--standardize"}, "--standardize with a precomputed kernel", nil},
		{"empty output", []string{"--data", "d.csv", "--model="}, `--model "": give a value`, nil},
		{"stream prefrank", []string{"--data", "d", "--stream", "--learner", "prefrank", "--preferences", "p"}, "--stream trains a learner whose loss streams (--learner rls, globalrank or queryrank), not prefrank", nil},
		{"stream stdin", []string{"--data", "-", "--stream"}, "not standard input", nil},
		{"stream gaussian", []string{"--data", "d", "--stream", "--kernel", "gaussian"}, "streams over a fixed basis", nil},
		{"stream lpo", []string{"--data", "d", "--stream", "--cv", "lpo", "--measure", "auc"}, "--stream cross-validates by none, loo", nil},
		{"stream report", []string{"--data", "d", "--stream", "--report", "r.html"}, "--stream does not take --permutations, --report", nil},
		{"stream basis-select", []string{"--data", "d", "--stream", "--basis", "2", "--basis-select", "greedy"}, "no --basis-select or --basis-design", nil},
		{"stream remove", []string{"--data", "d", "--stream", "--basis", "2", "--basis-holdout", "remove"}, "--basis-holdout keep", nil},
		{"stream greedy-lambda", []string{"--data", "d", "--stream", "--greedy-lambda", "2"}, "--greedy-lambda applies to --basis-select greedy", nil},
		{"stream labels", []string{"--data", "d", "--stream", "--labels", "y.npy"}, "--labels y.npy applies to .npy data", nil},
		{"pairs with data", []string{"--learner", "kronrls", "--data", "d.csv"}, "reads --rows, --cols and --pairs, not --data", nil},
		{"pairs with label", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--label", "y"}, "--label does not apply to --learner kronrls", nil},
		{"pairs without cols", []string{"--learner", "twostep", "--rows", "r", "--pairs", "p"}, "--cols FILE is required", nil},
		{"symmetry of two sets", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--symmetry", "symmetric"}, "--symmetry applies to homogeneous networks", nil},
		{"homogeneous col kernel", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "same", "--col-kernel", "gaussian"}, "has one kernel", nil},
		{"col kernel", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--col-kernel", "rbf"}, "--col-kernel", nil},
		{"col lambda of kronrls", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--col-lambda", "2"}, "--col-lambda applies to --learner twostep; kronrls has one λ", nil},
		{"col lambda", []string{"--learner", "twostep", "--rows", "r", "--pairs", "p", "--cols", "c", "--col-lambda", "-2"}, "--col-lambda", nil},
		{"pairs K", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--cv", "pairs:3"}, "setting pairs leaves each pair out alone", nil},
		{"rows of a network", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "same", "--cv", "rows"}, "cross-validated by pairs or vertices", nil},
		{"vertices of two sets", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--cv", "vertices"}, "leave-vertex-out for homogeneous networks", nil},
		{"col folds with rows", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--cv", "rows", "--col-folds", "f"}, "--col-folds goes with --cv cols or both, not rows", nil},
		{"pairs multiclass", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--measure", "multiclass-accuracy"}, "pairs have one label", nil},
		{"twostep cg", []string{"--learner", "twostep", "--rows", "r", "--pairs", "p", "--cols", "c", "--solver", "cg"}, "--solver cg trains --learner kronrls, not twostep", nil},
		{"twostep validation", []string{"--learner", "twostep", "--rows", "r", "--pairs", "p", "--cols", "c", "--validation-pairs", "v"}, "--learner kronrls on incomplete data", nil},
		{"patience alone", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--patience", "3"}, "--patience goes with --validation-pairs", nil},
		{"pairs tol", []string{"--learner", "kronrls", "--rows", "r", "--pairs", "p", "--cols", "c", "--tol", "0"}, "--tol 0: must be > 0", nil},
		{"kronrank cv pairs", []string{"--learner", "kronrank", "--rows", "r", "--pairs", "p", "--cols", "c", "--cv", "pairs"}, "--cv pairs: --learner kronrank cross-validates new row objects only", nil},
		{"kronrank cv both", []string{"--learner", "kronrank", "--rows", "r", "--pairs", "p", "--cols", "c", "--cv", "both:3"}, "--cv both:3: --learner kronrank cross-validates new row objects only", nil},
		{"kronrank homogeneous", []string{"--learner", "kronrank", "--rows", "r", "--pairs", "p", "--cols", "same"}, "--cols same: --learner kronrank ranks the column objects inside each row", nil},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			p, err := newPlan(t, r.args...)
			if r.want != "" {
				if err == nil || !strings.Contains(err.Error(), r.want) {
					t.Fatalf("%v: err = %v, want it to say %q", r.args, err, r.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %v", r.args, err)
			}
			if r.ok != nil {
				if err := r.ok(p); err != nil {
					t.Errorf("%v: %v", r.args, err)
				}
			}
		})
	}
}

// TestNewCapability: the checks against declared capabilities keep their
// error kinds (errors.Is).
func TestNewCapability(t *testing.T) {
	_, err := newPlan(t, "--data", "d", "--stream", "--learner", "prefrank", "--preferences", "p")
	if !errors.Is(err, learn.ErrCapability) {
		t.Errorf("--stream of prefrank: %v does not wrap learn.ErrCapability", err)
	}
	_, err = newPlan(t, "--data", "d", "--cv", "bootstrap")
	if !errors.Is(err, selection.ErrScheme) {
		t.Errorf("--cv bootstrap: %v does not wrap selection.ErrScheme", err)
	}
}

// TestCheckIncomplete: incomplete data go to the Kronecker conjugate
// gradients at one point, never to two-step RLS.
func TestCheckIncomplete(t *testing.T) {
	p, err := newPlan(t, "--learner", "kronrls", "--rows", "r", "--cols", "c", "--pairs", "p.txt", "--lambda", "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Pairwise.CheckIncomplete(5, 5, 3, 4); err != nil || p.Pairwise.Setting != "" {
		t.Errorf("kronrls at one λ: %v, setting %q", err, p.Pairwise.Setting)
	}
	p, _ = newPlan(t, "--learner", "kronrls", "--rows", "r", "--cols", "c", "--pairs", "p.txt")
	if err := p.Pairwise.CheckIncomplete(5, 5, 3, 4); err == nil || !strings.Contains(err.Error(), "fits one model") {
		t.Errorf("kronrls on a grid: %v", err)
	}
	p, _ = newPlan(t, "--learner", "twostep", "--rows", "r", "--cols", "c", "--pairs", "p.txt", "--lambda", "1", "--col-lambda", "1")
	if err := p.Pairwise.CheckIncomplete(5, 5, 3, 4); err == nil || !strings.Contains(err.Error(), "--learner twostep needs complete data") ||
		!strings.Contains(err.Error(), "use --learner kronrls") {
		t.Errorf("twostep: %v", err)
	}
}

// TestDefine: the standard library's flag set and pflag's get the same
// flags, defaults and help, and parse the same command line to the same
// Flags.
func TestDefine(t *testing.T) {
	std := flag.NewFlagSet("fit", flag.ContinueOnError)
	pf := pflag.NewFlagSet("fit", pflag.ContinueOnError)
	fs, fp := &Flags{}, &Flags{}
	Define(std, fs)
	Define(pf, fp)
	type def struct{ value, usage string }
	a, b := map[string]def{}, map[string]def{}
	std.VisitAll(func(fl *flag.Flag) { a[fl.Name] = def{fl.DefValue, fl.Usage} })
	pf.VisitAll(func(fl *pflag.Flag) { b[fl.Name] = def{fl.DefValue, fl.Usage} })
	if len(a) < 60 || !reflect.DeepEqual(a, b) {
		t.Fatalf("flag sets differ (%d and %d flags):\n%v\n%v", len(a), len(b), a, b)
	}
	if a["bias"].value != "1 for rls and greedy, 0 for the rankers" || a["seed"].value != "1" || a["cost"].value != "magnitude" {
		t.Errorf("defaults: bias %q, seed %q, cost %q", a["bias"].value, a["seed"].value, a["cost"].value)
	}
	for _, name := range FileFlags {
		if _, ok := a[name]; !ok {
			t.Errorf("FileFlags names --%s, which Define does not define", name)
		}
	}
	for name := range Completions() {
		if _, ok := a[name]; !ok {
			t.Errorf("Completions names --%s, which Define does not define", name)
		}
	}
	args := []string{"--data", "d.csv", "--learner", "queryrank", "--gamma", "0.5", "--degree", "3", "--seed", "7",
		"--lambda-grid", "1,2", "--standardize", "--query-normalize", "--zero-based", "true", "--col-lambda", "2", "--tol", "1e-3"}
	if err := std.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := pf.Parse(args); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fs, fp) {
		t.Errorf("parsed flags differ:\n%+v\n%+v", *fs, *fp)
	}
	if fs.Seed != 7 || !fs.QueryNormalize || fs.In.ZeroBased != "true" || fs.Tol != 1e-3 {
		t.Errorf("parsed: %+v", *fs)
	}
}

// TestStream: the stream options and source of a plan of --stream, as fit
// --stream and rlskit-beam pass them to package stream.
func TestStream(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(dir, "basis.txt")
	if err := os.WriteFile(rows, []byte("3\n0\n7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := newPlan(t, "--data", "shards/part-*.csv.gz", "--stream", "--learner", "queryrank", "--kernel", "gaussian", "--gamma", "0.25",
		"--basis-rows", rows, "--cv", "kfold:4", "--seed", "9", "--lambda-grid", "1,2", "--standardize", "--query-normalize",
		"--label", "y1, y2", "--qid", "q", "--delimiter", ";")
	if err != nil {
		t.Fatal(err)
	}
	opt, err := p.StreamOptions()
	if err != nil {
		t.Fatal(err)
	}
	want := p.Learner
	if opt.Learner != want.Name || opt.Loss != want.Loss || opt.Loss != learn.QueryPairs || opt.Kernel != (kernel.Spec{Name: "gaussian", Gamma: 0.25}) ||
		opt.CV != "kfold:4" || opt.Seed != 9 || !slices.Equal(opt.Lambdas, []float64{1, 2}) || opt.Measure.Name != "disagreement" ||
		!opt.Standardize || !opt.QueryNormalize || !slices.Equal(opt.BasisRows, []int{3, 0, 7}) || opt.BasisN != 0 {
		t.Errorf("options %+v", opt)
	}
	src, err := p.StreamSource([]string{"shards/part-*.csv.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if src.Format != "csv" || !slices.Equal(src.CSV.Labels, []string{"y1", "y2"}) || src.CSV.Qid != "q" || src.CSV.Comma != ';' ||
		src.SVM.Base != dataset.OneBased {
		t.Errorf("source %+v", src)
	}

	p, err = newPlan(t, "--data", "s.svm", "--stream", "--zero-based", "true", "--learner", "globalrank")
	if err != nil {
		t.Fatal(err)
	}
	if src, err = p.StreamSource([]string{"s.svm"}); err != nil || src.Format != "svmlight" || src.SVM.Base != dataset.ZeroBased {
		t.Errorf("svmlight source %+v, %v", src, err)
	}
	if opt, err = p.StreamOptions(); err != nil || opt.Kernel.Bias != 0 || opt.Measure.Name != "cindex" || opt.CV != "loo" {
		t.Errorf("globalrank options %+v, %v", opt, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "s.svm", "--stream", "--label", "y"}, "--label and --qid apply to CSV data"},
		{[]string{"--data", "d.csv", "--stream"}, "d.csv: no labels"},
		{[]string{"--data", "d.npy", "--stream", "--format", "npy"}, `--format "npy": want svmlight or csv`},
		{[]string{"--data", "s.svm", "--stream", "--zero-based", "maybe"}, `--zero-based "maybe"`},
	} {
		p, err := newPlan(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if _, err := p.StreamSource([]string{p.flags.Data}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	p, err = newPlan(t, "--data", "d.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.StreamOptions(); err == nil {
		t.Error("StreamOptions of a plan without --stream")
	}
}

// TestInputFlags: --zero-based and --delimiter.
func TestInputFlags(t *testing.T) {
	for _, c := range []struct {
		in    InputFlags
		model bool
		base  dataset.IndexBase
		comma rune
		err   string
	}{
		{InputFlags{ZeroBased: "auto", Delimiter: "auto"}, false, dataset.AutoBase, 0, ""},
		{InputFlags{ZeroBased: "true", Delimiter: "tab"}, false, dataset.ZeroBased, '\t', ""},
		{InputFlags{ZeroBased: "false", Delimiter: ";"}, false, dataset.OneBased, ';', ""},
		{InputFlags{ZeroBased: ""}, true, dataset.ZeroBased, 0, ""},
		{InputFlags{ZeroBased: ""}, false, dataset.OneBased, 0, ""},
		{InputFlags{ZeroBased: "yes"}, false, 0, 0, `--zero-based "yes"`},
		{InputFlags{Delimiter: `"`}, false, dataset.OneBased, 0, `--delimiter "\""`},
	} {
		model := c.model
		b, err := c.in.Base(&model)
		if err == nil {
			var r rune
			r, err = c.in.Comma()
			if err == nil && (b != c.base || r != c.comma) {
				t.Errorf("%+v: base %v comma %q, want %v %q", c.in, b, r, c.base, c.comma)
			}
		}
		if (err != nil) != (c.err != "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c.in, err, c.err)
		}
	}
}
