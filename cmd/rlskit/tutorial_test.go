package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tutorial's conventions, which tutorialSteps enforces:
//
//   - a ```sh block holds exactly one line starting with "rlskit " (the command,
//     run by bash as the reader would paste it: quotes, globs, pipes and
//     redirections mean what they mean in a shell); its other lines may only be
//     blank or # comments;
//   - the next fenced block is a ```text block: an excerpt of the output, every
//     non-blank line of which must occur in the command's stdout+stderr;
//   - a ```text block anywhere else is an error; other fences (```bash, …) are
//     prose and not run;
//   - paths start with docs/data/ (read) or out/ (written): the commands run
//     from a temporary directory holding docs/data (a link to the repository's)
//     and an empty out/, as after the tutorial's "mkdir -p out".
const (
	tutorialPath   = "../../docs/tutorial.md"
	tutorialMinRun = 10
)

// tutorialStep is one command of the tutorial with its expected output lines.
type tutorialStep struct {
	line   int    // 1-based line of the command in the tutorial
	cmd    string // the command line, starting with "rlskit "
	expect []string
}

// tutorialSteps parses the tutorial's sh/text block pairs.
func tutorialSteps(src string) ([]tutorialStep, error) {
	type block struct {
		lang  string
		start int // 1-based line of the opening fence
		lines []string
	}
	var blocks []block
	var cur *block
	for n, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimRight(line, " \t\r")
		if cur == nil {
			if lang, ok := strings.CutPrefix(trimmed, "```"); ok {
				cur = &block{lang: strings.TrimSpace(lang), start: n + 1}
			}
			continue
		}
		if trimmed == "```" {
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		cur.lines = append(cur.lines, trimmed)
	}
	if cur != nil {
		return nil, fmt.Errorf("line %d: ```%s block is not closed", cur.start, cur.lang)
	}

	var steps []tutorialStep
	for b := 0; b < len(blocks); b++ {
		bl := blocks[b]
		switch bl.lang {
		case "text":
			return nil, fmt.Errorf("line %d: ```text block without a ```sh command before it", bl.start)
		case "sh":
		default:
			continue
		}
		step := tutorialStep{}
		for k, l := range bl.lines {
			switch {
			case strings.HasPrefix(l, "rlskit "):
				if step.cmd != "" {
					return nil, fmt.Errorf("line %d: ```sh block with more than one rlskit command", bl.start+1+k)
				}
				step.cmd, step.line = l, bl.start+1+k
			case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#"):
			default:
				return nil, fmt.Errorf("line %d: ```sh block line %q is not an rlskit command (the test would not run it)", bl.start+1+k, l)
			}
		}
		if step.cmd == "" {
			return nil, fmt.Errorf("line %d: ```sh block without an rlskit command", bl.start)
		}
		if b+1 >= len(blocks) || blocks[b+1].lang != "text" {
			return nil, fmt.Errorf("line %d: command without a ```text block of expected output after it", step.line)
		}
		b++
		for _, l := range blocks[b].lines {
			if strings.TrimSpace(l) != "" {
				step.expect = append(step.expect, l)
			}
		}
		if len(step.expect) == 0 {
			return nil, fmt.Errorf("line %d: empty ```text block", blocks[b].start)
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// tutorialBash is how a tutorial command runs: bash with errors, unset
// variables and failing pipelines fatal, and failglob, so that an unquoted
// pattern which matches nothing fails as it does in zsh instead of reaching
// rlskit verbatim (one which matches is expanded, as by the reader's shell).
var tutorialBash = []string{"-euo", "pipefail", "-O", "failglob", "-c"}

// tutorialBinary builds cmd/rlskit into dir and returns dir, for PATH.
func tutorialBinary(t *testing.T, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the tutorial test builds rlskit with the go command: %v", err)
	}
	build := exec.Command(goTool, "build", "-o", filepath.Join(dir, "rlskit"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// tutorialWorkdir makes the directory the commands run in: docs/data links to
// the repository's data, out/ is empty.
func tutorialWorkdir(t *testing.T, root string) string {
	t.Helper()
	work := t.TempDir()
	data, err := filepath.Abs(filepath.Join(root, "docs", "data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, filepath.Join(work, "docs", "data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(work, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	return work
}

// tutorialRun runs one command line with bash in work, with bin first on PATH.
func tutorialRun(work, bin, cmd string) (string, error) {
	c := exec.Command("bash", append(tutorialBash, cmd)...)
	c.Dir = work
	c.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	err := c.Run()
	return out.String(), err
}

// TestTutorial runs every command of docs/tutorial.md in order (later commands
// use the files earlier ones write) with bash and a built rlskit, and checks
// its output excerpt.
func TestTutorial(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("the tutorial test runs its commands with bash: %v", err)
	}
	src, err := os.ReadFile(tutorialPath)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := tutorialSteps(string(src))
	if err != nil {
		t.Fatalf("%s: %v", tutorialPath, err)
	}
	if len(steps) < tutorialMinRun {
		t.Fatalf("%s: found %d commands, want at least %d (is the parser still finding them?)", tutorialPath, len(steps), tutorialMinRun)
	}
	bin := tutorialBinary(t, t.TempDir())
	work := tutorialWorkdir(t, filepath.Join("..", ".."))
	for _, s := range steps {
		got, err := tutorialRun(work, bin, s.cmd)
		if err != nil {
			t.Errorf("tutorial line %d: %s\nfailed in bash: %v\noutput: %s", s.line, s.cmd, err, tutorialClip(got, 4000))
			continue
		}
		for _, want := range s.expect {
			if !strings.Contains(got, want) {
				t.Errorf("tutorial line %d: %s\noutput lacks %q\noutput:\n%s", s.line, s.cmd, want, tutorialClip(got, 4000))
			}
		}
	}
}

// tutorialClip shortens s to about n bytes for an error message.
func tutorialClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + " … " + s[len(s)-n/2:]
}

// The parser rejects what would make the tutorial test check less than it seems to.
func TestTutorialParser(t *testing.T) {
	const good = "text\n```sh\n# comment\nrlskit version\n```\n\n```text\nrlskit\n```\n```bash\nmkdir -p out\n```\n"
	steps, err := tutorialSteps(good)
	if err != nil || len(steps) != 1 || steps[0].cmd != "rlskit version" || steps[0].line != 4 ||
		len(steps[0].expect) != 1 || steps[0].expect[0] != "rlskit" {
		t.Fatalf("good tutorial: %+v, %v", steps, err)
	}
	for name, doc := range map[string]string{
		"unclosed":       "```sh\nrlskit version\n```\n```text\nrlskit\n",
		"no text":        "```sh\nrlskit version\n```\n",
		"text not next":  "```sh\nrlskit version\n```\n```bash\nls\n```\n```text\nrlskit\n```\n",
		"empty text":     "```sh\nrlskit version\n```\n```text\n\n```\n",
		"stray text":     "```text\nrlskit\n```\n",
		"two commands":   "```sh\nrlskit version\nrlskit version\n```\n```text\nrlskit\n```\n",
		"no command":     "```sh\n# nothing\n```\n```text\nrlskit\n```\n",
		"other command":  "```sh\nrlskit version\nls out\n```\n```text\nrlskit\n```\n",
		"typo":           "```sh\nrlskt version\n```\n```text\nrlskit\n```\n",
		"text after sh2": "```sh\nrlskit version\n```\n```text\nx\n```\n```text\ny\n```\n",
	} {
		if steps, err := tutorialSteps(doc); err == nil {
			t.Errorf("%s: no error, steps %+v", name, steps)
		}
	}
	// Shell syntax is the shell's: the line is kept whole for bash.
	const shell = "```sh\nrlskit fit --data 'shards/part-*.svm.gz' --label \"a b\" | head -c 100\n```\n```text\nx\n```\n"
	if steps, err := tutorialSteps(shell); err != nil || len(steps) != 1 ||
		steps[0].cmd != `rlskit fit --data 'shards/part-*.svm.gz' --label "a b" | head -c 100` {
		t.Errorf("shell syntax: %+v, %v", steps, err)
	}
}

// The commands run as pasted into bash: an unquoted pattern the shell expands
// fails (rlskit takes no positional arguments), one that matches nothing fails
// (failglob), the quoted pattern reaches rlskit, and a failing command in a
// pipeline is a failure.
func TestTutorialBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatalf("the tutorial test runs its commands with bash: %v", err)
	}
	bin := t.TempDir()
	// A stand-in rlskit that prints its arguments one per line.
	if err := os.WriteFile(filepath.Join(bin, "rlskit"), []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	for _, f := range []string{"part-1.svm", "part-2.svm"} {
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := tutorialRun(work, bin, "rlskit fit --data 'part-*.svm'")
	if err != nil || out != "arg:fit\narg:--data\narg:part-*.svm\n" {
		t.Errorf("quoted pattern: %q, %v", out, err)
	}
	out, err = tutorialRun(work, bin, "rlskit fit --data part-*.svm")
	if err != nil || out != "arg:fit\narg:--data\narg:part-1.svm\narg:part-2.svm\n" {
		t.Errorf("unquoted pattern is expanded by the shell: %q, %v", out, err)
	}
	if out, err := tutorialRun(work, bin, "rlskit fit --data nothing-*.svm"); err == nil {
		t.Errorf("unquoted pattern matching nothing ran: %q", out)
	}
	if out, err := tutorialRun(work, bin, "false | rlskit version"); err == nil {
		t.Errorf("failing pipeline ran: %q", out)
	}
}
