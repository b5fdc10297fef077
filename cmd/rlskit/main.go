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
	os.Exit(execute(newRoot(os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

// execute runs the command line and returns the exit status: 0, 1 for a
// failure while working, 2 for a usage error (which also points at --help).
func execute(root *cobra.Command, stderr io.Writer) int {
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "rlskit:", err)
	code := exitCode(err)
	if code == exitUsage && cmd != nil {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
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
cross-validation, including sparse hold-outs that remove held-out basis vectors.

Exit status: 0 on success, 1 when the work fails (a file that cannot be read,
bad data, a numerical failure), 2 for a usage error (an unknown command or
flag, a bad flag value, flags that do not go together).`,
		Example: `  rlskit demo
  rlskit fit --data train.csv --label y --kernel gaussian --gamma-grid 2^-12..2^-2 --cv loo --model m.json --report r.html
  rlskit predict --model m.json --data test.csv --measure mse
  rlskit completion bash > /etc/bash_completion.d/rlskit`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage(fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath()))
			}
			return nil
		},
		RunE:          func(cmd *cobra.Command, args []string) error { return cmd.Help() },
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.SetVersionTemplate("rlskit {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	// an O(m³) step in pure Go says so once (fit and predict --quiet silence it)
	linalg.SetNotice(stderr)
	var threads int
	root.PersistentFlags().IntVar(&threads, "threads", 0, "BLAS threads of the loaded library (default: the library's own, or RLSKIT_THREADS)")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("threads") {
			if threads < 1 {
				return usage(fmt.Errorf("--threads %d: must be ≥ 1", threads))
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
		Use:     "version",
		Short:   "Print the version and the numerical backend",
		Example: "  rlskit version\n  RLSKIT_LAPACK=gonum rlskit version   # the pure-Go fallback",
		Args:    noArgs,
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
