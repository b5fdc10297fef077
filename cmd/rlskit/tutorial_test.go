package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tutorial's conventions, which tutorialSteps enforces:
//
//   - a ```sh block holds exactly one line starting with "rlskit " (the command,
//     run without a shell: arguments split on spaces, so no quotes, pipes or
//     redirections); its other lines may only be blank or # comments;
//   - the next fenced block is a ```text block: an excerpt of the output, every
//     non-blank line of which must occur in the command's stdout+stderr;
//   - a ```text block anywhere else is an error; other fences (```bash, …) are
//     prose and not run;
//   - paths start with docs/ (read, relative to the repository root) or out/
//     (written: the test redirects them to a temporary directory).
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
		if strings.ContainsAny(step.cmd, "'\"\\|<>;&$`*") {
			return nil, fmt.Errorf("line %d: %q needs a shell; tutorial commands are split on spaces", step.line, step.cmd)
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

// tutorialArgs splits a command into rlskit's arguments, resolving docs/ paths
// against root and sending out/ paths to outDir.
func tutorialArgs(cmd, root, outDir string) []string {
	fields := strings.Fields(cmd)[1:]
	args := make([]string, len(fields))
	for i, a := range fields {
		prefix, value := "", a
		if strings.HasPrefix(a, "--") {
			if k := strings.IndexByte(a, '='); k >= 0 {
				prefix, value = a[:k+1], a[k+1:]
			}
		}
		switch {
		case strings.HasPrefix(value, "out/"):
			value = filepath.Join(outDir, filepath.FromSlash(strings.TrimPrefix(value, "out/")))
		case strings.HasPrefix(value, "docs/"):
			value = filepath.Join(root, filepath.FromSlash(value))
		}
		args[i] = prefix + value
	}
	return args
}

// TestTutorial runs every command of docs/tutorial.md in order (later commands
// use the files earlier ones write) and checks its output excerpt.
func TestTutorial(t *testing.T) {
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
	outDir := t.TempDir()
	for _, s := range steps {
		args := tutorialArgs(s.cmd, filepath.Join("..", ".."), outDir)
		stdout, stderr, err := run(t, "", args...)
		if err != nil {
			t.Errorf("tutorial line %d: %s\nfailed: %v\nstderr: %s", s.line, s.cmd, err, stderr)
			continue
		}
		got := stdout + stderr
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
		"needs a shell":  "```sh\nrlskit fit --data x.csv | head\n```\n```text\nrlskit\n```\n",
		"quoted":         "```sh\nrlskit fit --label \"a b\"\n```\n```text\nrlskit\n```\n",
		"text after sh2": "```sh\nrlskit version\n```\n```text\nx\n```\n```text\ny\n```\n",
	} {
		if steps, err := tutorialSteps(doc); err == nil {
			t.Errorf("%s: no error, steps %+v", name, steps)
		}
	}
	args := tutorialArgs("rlskit fit --data docs/data/a.csv --model out/m.json --cv-predictions=out/sub/cv.tsv --label y", "R", "O")
	want := []string{"fit", "--data", filepath.Join("R", "docs", "data", "a.csv"), "--model", filepath.Join("O", "m.json"),
		"--cv-predictions=" + filepath.Join("O", "sub", "cv.tsv"), "--label", "y"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q, want %q", args, want)
	}
}
