package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --quiet silences progress and notices, not warnings, in fit; predict
// takes it too (it used to be a usage error) and prints nothing on stderr.
func TestQuiet(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 30, 6)
	m := filepath.Join(dir, "m.json")
	_, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--model", m, "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "rlskit: warning: the chosen lambda is the lower end of its grid") {
		t.Errorf("fit --quiet hid the grid-edge warning: %q", stderr)
	}
	stdout, stderr, err := run(t, "", "predict", "--model", m, "--data", data, "--quiet")
	if err != nil || stderr != "" || strings.Count(stdout, "\n") != 30 {
		t.Errorf("predict --quiet: %v, stderr %q, %d lines", err, stderr, strings.Count(stdout, "\n"))
	}
}
