package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	hint := ""
	if cmd.Flags().Lookup("data") != nil {
		if _, err := os.Stat(args[0]); err == nil || strings.ContainsAny(args[0], "./") {
			hint = fmt.Sprintf(": files are given by flags — did you mean --data %s?", args[0])
		}
	}
	return usage(fmt.Errorf("%s takes no arguments, got %q%s", cmd.CommandPath(), args[0], hint))
}

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

// outputFlags are, per command, the file flags it writes; every other file
// flag (markFiles) is an input.
var outputFlags = map[string]map[string]bool{
	"fit":     {"model": true, "cv-predictions": true, "report": true, "curves": true},
	"predict": {"out": true},
}

// inputFiles returns the values of the input file flags of cmd: the flags
// marked as files (markFiles) that are not outputs, read off the command's
// flag definitions so that a new input flag joins the output-collision
// check (dataset.Outputs.CheckInputs) without being listed anywhere.
func inputFiles(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if _, file := fl.Annotations[cobra.BashCompFilenameExt]; file && !outputFlags[cmd.Name()][fl.Name] && fl.Value.String() != "" {
			out = append(out, fl.Value.String())
		}
	})
	return out
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
