package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlskit/rlskit/measure"
)

// Exit status: 0 on success, 2 for a command line that cannot run as given
// (usageError), 1 for every other failure.
const (
	exitRuntime = 1
	exitUsage   = 2
)

// usageError marks a command line that cannot run as given: an unknown
// command or flag, a flag value out of its domain, flags that do not go
// together, a required flag missing. It exits with status 2, as the shell's
// builtins and Go's flag package do; failures met while working (a file that
// cannot be read, bad data, a numerical failure) exit with status 1.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usage marks err (when not nil) as a usage error.
func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitCode is the process exit status for err.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var u usageError
	if errors.As(err, &u) {
		return exitUsage
	}
	return exitRuntime
}

// noArgs is cobra.NoArgs returning a usage error.
func noArgs(cmd *cobra.Command, args []string) error { return usage(cobra.NoArgs(cmd, args)) }

// completeValues registers shell completion of the values of the named
// flags (cobra's `rlskit completion bash|zsh|fish|powershell` scripts use it).
func completeValues(cmd *cobra.Command, values map[string][]string) {
	for name, vals := range values {
		if cmd.Flags().Lookup(name) == nil {
			panic("completeValues: no flag --" + name)
		}
		vals := vals
		_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// markFiles makes the named flags complete file names.
func markFiles(cmd *cobra.Command, names ...string) {
	for _, n := range names {
		if err := cmd.MarkFlagFilename(n); err != nil {
			panic(err)
		}
	}
}

// measureValues completes --measure.
func measureValues() []string { return measure.Names() }

// prettyChoice decides whether fit prints the table summary: --pretty when
// given, else whether standard output is a terminal.
func prettyChoice(changed bool, pretty bool, stdout io.Writer) bool {
	if changed {
		return pretty
	}
	return isTerminal(stdout)
}

// writeTable prints a summary for people: the JSON summary's fields, one
// per line, nested fields dotted (cv.best.value), long lists summarized by
// their length — the curve is in the JSON (--pretty=false) and the report.
func writeTable(w io.Writer, summary any) error {
	raw, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	flatten(tw, "", v)
	return tw.Flush()
}

// flatten writes the rows of v under the key prefix.
func flatten(w io.Writer, prefix string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return fieldRank(keys[i]) < fieldRank(keys[j]) || fieldRank(keys[i]) == fieldRank(keys[j]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(w, key, x[k])
		}
	case []any:
		scalars := true
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				scalars = false
			}
		}
		switch {
		case len(x) == 0:
			fmt.Fprintf(w, "%s\t(none)\n", prefix)
		case scalars && len(x) <= 12:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = scalar(e)
			}
			fmt.Fprintf(w, "%s\t%s\n", prefix, strings.Join(parts, ", "))
		case len(x) <= 3:
			for i, e := range x {
				flatten(w, fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		default:
			fmt.Fprintf(w, "%s\t%d entries (in the JSON: --pretty=false)\n", prefix, len(x))
		}
	default:
		fmt.Fprintf(w, "%s\t%s\n", prefix, scalar(x))
	}
}

// fieldRank orders the summary's leading fields as a reader wants them.
func fieldRank(k string) int {
	for i, f := range []string{"learner", "kernel", "form", "lambda", "n_train", "n_features", "outputs", "strategy", "measure", "best"} {
		if k == f {
			return i
		}
	}
	return 100
}

func scalar(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case string:
		return x
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
