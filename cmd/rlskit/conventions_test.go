package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"

	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/summary"
)

// TestExitCodes: a command line that cannot run as given exits with 2 (and
// points at --help), a failure while working with 1, success with 0.
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 20, 11)
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b,y\n1,2,3\n4,x,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string
	}{
		{"ok", []string{"fit", "--data", data, "--label", "y", "--quiet"}, 0, ""},
		{"unknown command", []string{"fitt"}, 2, `unknown command "fitt"`},
		{"unknown flag", []string{"fit", "--dta", data}, 2, "unknown flag: --dta"},
		{"flag without value", []string{"fit", "--data"}, 2, "needs an argument"},
		{"flag value of the wrong type", []string{"fit", "--data", data, "--gamma", "wide"}, 2, "--gamma"},
		{"positional argument", []string{"fit", data}, 2, "rlskit fit takes no arguments, got \"" + data + "\": files are given by flags — did you mean --data " + data + "?"},
		{"positional word", []string{"fit", "--data", data, "--label", "y", "loo"}, 2, "rlskit fit takes no arguments, got \"loo\"\n"},
		{"predict positional file", []string{"predict", "--model", "m.json", data}, 2, "did you mean --data " + data + "?"},
		{"missing --data", []string{"fit", "--label", "y"}, 2, "--data is required"},
		{"unknown kernel", []string{"fit", "--data", data, "--label", "y", "--kernel", "rbf"}, 2, "rbf"},
		{"negative lambda", []string{"fit", "--data", data, "--label", "y", "--lambda", "-1", "--cv", "none"}, 2, "-1"},
		{"flags that do not go together", []string{"fit", "--data", data, "--label", "y", "--cost", "unit"}, 2, "--cost"},
		{"--threads 0", []string{"fit", "--data", data, "--label", "y", "--threads", "0"}, 2, "--threads 0"},
		{"predict without --model", []string{"predict", "--data", data}, 2, "--model and --data are required"},
		{"predict unknown measure", []string{"predict", "--model", "m.json", "--data", data, "--measure", "r2x"}, 2, "--measure"},
		{"pairwise predict without --model", []string{"predict", "--pairs", "p.txt"}, 2, "--model is required"},
		{"missing file", []string{"fit", "--data", filepath.Join(dir, "none.csv"), "--label", "y"}, 1, "none.csv"},
		{"bad data", []string{"fit", "--data", bad, "--label", "y"}, 1, "bad.csv:3: column 2"},
		{"missing model", []string{"predict", "--model", filepath.Join(dir, "none.json"), "--data", data}, 1, "none.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			root := newRoot(strings.NewReader(""), &out, &errb)
			root.SetArgs(tc.args)
			code := execute(root, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.says) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.says)
			}
			if hint := strings.Contains(errb.String(), "--help' for usage"); hint != (tc.code == 2) {
				t.Errorf("exit %d: --help hint shown = %v; stderr %q", code, hint, errb.String())
			}
		})
	}
}

// TestCompletion: the flags that take one of a few words complete them.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"fit", "--kernel", ""}, []string{"linear", "gaussian", "polynomial", "precomputed"}},
		{[]string{"fit", "--learner", ""}, []string{"rls", "globalrank", "queryrank", "prefrank", "greedy", "kronrls", "twostep"}},
		{[]string{"fit", "--measure", ""}, []string{"mse", "auc", "cindex", "disagreement"}},
		{[]string{"fit", "--cv", ""}, []string{"loo", "kfold:10", "lqo", "lpo", "none"}},
		{[]string{"fit", "--fold-score", ""}, []string{"pooled", "mean"}},
		{[]string{"predict", "--format", ""}, []string{"svmlight", "csv", "npy", "npz", "parquet"}},
		{[]string{"predict", "--measure", ""}, []string{"mse", "auc"}},
	} {
		out, _, err := run(t, "", append([]string{cobra.ShellCompRequestCmd}, tc.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		got := strings.Fields(out)
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("completing %v: %q missing from %q", tc.args, w, out)
			}
		}
	}
}

// TestExamples: every command of ours has an Example section, and every
// flag its examples use exists on that command.
func TestExamples(t *testing.T) {
	root := newRoot(strings.NewReader(""), io.Discard, io.Discard)
	cmds := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("%d commands", len(cmds))
	}
	for _, c := range cmds {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no Example", c.CommandPath())
			continue
		}
		ex := strings.ReplaceAll(c.Example, "\\\n", " ")
		for _, line := range strings.Split(ex, "\n") {
			fields := strings.Fields(line)
			start := -1
			for i, f := range fields {
				if f == "rlskit" {
					start = i
					break
				}
			}
			if start < 0 || start+1 >= len(fields) {
				continue
			}
			target := root
			if sub, _, err := root.Find(fields[start+1 : start+2]); err == nil {
				target = sub
			}
			for _, f := range fields[start+1:] {
				if f == "#" || f == "|" || f == ">" {
					break
				}
				if name, ok := strings.CutPrefix(f, "--"); ok {
					name, _, _ = strings.Cut(name, "=")
					if target.Flags().Lookup(name) == nil && target.InheritedFlags().Lookup(name) == nil {
						t.Errorf("%s example %q: %s has no flag --%s", c.CommandPath(), strings.TrimSpace(line), target.CommandPath(), name)
					}
				}
			}
		}
	}
}

// TestHelpDefaults: --bias states its default once.
func TestHelpDefaults(t *testing.T) {
	out, _, err := run(t, "", "fit", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "--bias ") || strings.Contains(line, "--pretty ") {
			if n := strings.Count(line, "default"); n != 1 {
				t.Errorf("%d defaults in %q", n, line)
			}
		}
	}
}

// TestPretty: --pretty prints the table, --pretty=false and the default for
// a pipe print JSON.
func TestPretty(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 12)
	args := []string{"fit", "--data", data, "--label", "y", "--quiet"}
	out, _, err := run(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	o := decodeFit(t, out)
	table, _, err := run(t, "", append(args, "--pretty")...)
	if err != nil {
		t.Fatal(err)
	}
	if json.Valid([]byte(table)) {
		t.Fatalf("--pretty printed JSON:\n%s", table)
	}
	for _, want := range []string{"learner", "rls", "cv.best.value", "cv.curve", "31 entries", "n_train", "30"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if !strings.Contains(table, summary.Scalar(o.CV.Best.Value)) {
		t.Errorf("table lacks the best value %v:\n%s", o.CV.Best.Value, table)
	}
	out, _, err = run(t, "", append(args, "--pretty=false")...)
	if err != nil || !json.Valid([]byte(out)) {
		t.Errorf("--pretty=false: %v\n%s", err, out)
	}
}

// TestTerminal: /dev/null is no terminal; a pseudo-terminal is, and a fit
// writing to one prints the table by default.
func TestTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("%s counts as a terminal", os.DevNull)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if !isTerminal(tty) {
		t.Fatal("a pseudo-terminal does not count as a terminal")
	}
	read := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptmx)
		read <- string(b)
	}()
	dir := t.TempDir()
	data := writeCSV(t, dir, 25, 13)
	root := newRoot(strings.NewReader(""), tty, io.Discard)
	root.SetArgs([]string{"fit", "--data", data, "--label", "y", "--quiet"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var got string
	select {
	case got = <-read:
	case <-time.After(10 * time.Second):
		t.Fatal("no output on the pseudo-terminal")
	}
	if !strings.Contains(got, "cv.best.value") || strings.Contains(got, "{") {
		t.Errorf("on a terminal fit printed:\n%s", got)
	}
}

// TestProgressPhases: with stderr not a terminal, each phase of a fit —
// kernel matrix, eigendecomposition (with its size), cross-validation over
// λ, named as points of the grid — gets exactly one line with an ETA.
func TestProgressPhases(t *testing.T) {
	defer func(a, l time.Duration) { progressAfter, progressLong = a, l }(progressAfter, progressLong)
	progressAfter, progressLong = 0, 0
	dir := t.TempDir()
	data := writeCSV(t, dir, 40, 14)
	_, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma", "0.5",
		"--lambda-grid", "2^-5..2^5", "--cv", "kfold:4")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kernel matrix, 40×40", "eigendecomposition, m = 40", "cross-validating, point 11/11 (11 λ)"} {
		n := 0
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, want) {
				n++
				if !strings.Contains(line, "ETA") || !strings.HasPrefix(line, "rlskit: [") {
					t.Errorf("line %q: no ETA or elapsed time", line)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d lines name %q, want 1; stderr:\n%s", n, want, stderr)
		}
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("carriage return written to a non-terminal:\n%q", stderr)
	}
}

// TestProgressTerminal: on a terminal the line is rewritten in place.
func TestProgressTerminal(t *testing.T) {
	defer func(a, l time.Duration) { progressAfter, progressLong = a, l }(progressAfter, progressLong)
	progressAfter, progressLong = 0, 0
	var b bytes.Buffer
	l := progress.NewLine(&b, true, false)
	l.After, l.Long, l.Prefix = 0, 0, "rlskit: "
	p := &progressLine{l}
	p.observe(progress.Event{Stage: "eigendecomposition", Size: "m = 3000", Estimate: 8 * time.Second})
	for i := 1; i <= 3; i++ {
		p.observe(progress.Event{Stage: "cross-validating λ", Done: int64(i), Total: 3})
	}
	p.done()
	s := b.String()
	// the loop's ETA is known from its third step (two steps after the first)
	if strings.Count(s, "\r") != 2 || strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") ||
		!strings.Contains(s, "of about 8.0 s") || !strings.Contains(s, "cross-validating λ 3/3, ETA") {
		t.Errorf("terminal progress %q", s)
	}
}

// TestCVPredictionsHeader: every --cv-predictions file starts with a header
// line naming its columns.
func TestCVPredictionsHeader(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 24, 15)
	for _, tc := range []struct {
		name   string
		args   []string
		header string
		rows   int
	}{
		{"one output", []string{"--label", "y"}, "y", 24},
		{"two outputs", []string{"--label", "y,cls"}, "y\tcls", 24},
		{"one-vs-all", []string{"--label", "cls", "--one-vs-all"}, "cls=-1\tcls=1", 24},
		{"leave-pair-out", []string{"--label", "cls", "--cv", "lpo", "--measure", "auc"}, "i\tj\tpred_i\tpred_j", -1},
		{"leave-pair-out, two outputs", []string{"--label", "cls,y", "--cv", "lpo", "--measure", "cindex"}, "output\ti\tj\tpred_i\tpred_j", -1},
		{"greedy", []string{"--label", "y", "--learner", "greedy", "--select", "2"}, "y", 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".tsv")
			args := append([]string{"fit", "--data", data, "--quiet", "--cv-predictions", path}, tc.args...)
			if _, _, err := run(t, "", args...); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(readFileT(t, path)), "\n")
			if lines[0] != tc.header {
				t.Errorf("header %q, want %q", lines[0], tc.header)
			}
			if tc.rows > 0 && len(lines) != tc.rows+1 {
				t.Errorf("%d lines, want the header and %d rows", len(lines), tc.rows)
			}
			cols := len(strings.Split(tc.header, "\t"))
			for i, l := range lines[1:] {
				if n := len(strings.Split(l, "\t")); n != cols {
					t.Fatalf("line %d has %d columns, the header %d: %q", i+2, n, cols, l)
				}
			}
		})
	}
}
