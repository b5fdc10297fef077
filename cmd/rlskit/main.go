// Command rlskit fits regularized least-squares models (kernel ridge regression)
// and selects their parameters by exact, nearly free cross-validation.
//
//	rlskit fit --data train.csv --label y --kernel gaussian --lambda-grid 2^-10..2^10 --cv loo --model m.json
//	rlskit predict --model m.json --data test.csv --measure mse
//	rlskit demo
//
// fit prints one JSON object to stdout; progress goes to stderr.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlskit/rlskit/internal/linalg"
)

// version overrides the version read from the build information when set
// with -ldflags "-X main.version=…".
var version = ""

// buildVersion is the module version of a `go install …@version` build, else
// the VCS revision (with "+dirty" for a modified tree), else "devel".
func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return "devel-" + rev + dirty
	}
	return "devel"
}

func main() {
	if err := newRoot(os.Stdin, os.Stdout, os.Stderr).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "rlskit:", err)
		os.Exit(1)
	}
}

// env carries the streams a command uses, so tests can run commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "rlskit",
		Short: "Regularized least squares with exact, nearly free cross-validation",
		Long: `rlskit fits kernel ridge regression (RLS) and RankRLS (learning to rank from
scores, queries or preference graphs) in dual, linear and sparse forms. One
factorization of the kernel matrix gives the whole regularization path and exact
leave-one-out, k-fold, leave-group-out, leave-query-out and leave-pair-out
cross-validation, including sparse hold-outs that remove held-out basis vectors.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetVersionTemplate("rlskit {{.Version}}\n")
	// an O(m³) step in pure Go says so once (fit and predict --quiet silence it)
	linalg.SetNotice(stderr)
	var threads int
	root.PersistentFlags().IntVar(&threads, "threads", 0, "BLAS threads of the loaded library (default: the library's own, or RLSKIT_THREADS)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("threads") {
			if threads < 1 {
				return fmt.Errorf("--threads %d: must be ≥ 1", threads)
			}
			linalg.SetThreads(threads)
		}
		if q := cmd.Flags().Lookup("quiet"); q != nil && q.Value.String() == "true" {
			linalg.SetNotice(nil)
		}
		return nil
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version and the numerical backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := linalg.Info()
			_, err := fmt.Fprintf(e.stdout, "rlskit %s\nbackend %s\n", buildVersion(), info)
			if err == nil && len(info.Tried) > 0 {
				_, err = fmt.Fprintf(e.stdout, "tried: %s\n", strings.Join(info.Tried, "; "))
			}
			return err
		},
	})
	root.AddCommand(newFit(e), newPredict(e), newDemo(e))
	return root
}
