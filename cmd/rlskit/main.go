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

	"github.com/spf13/cobra"

	"rlskit/internal/linalg"
)

// version is the rlskit release; set with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

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
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version and the numerical backend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(e.stdout, "rlskit %s (backend %s)\n", version, linalg.Backend)
			return err
		},
	})
	root.AddCommand(newFit(e), newPredict(e), newDemo(e))
	return root
}
