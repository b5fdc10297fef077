package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlskit/rlskit/internal/bomb"
)

// Regression (issue 20, item 1): compression bombs through the command line.
// A .svm.gz or .csv.gz of 1.5 MB whose one line expands to 1.5 GiB, a
// .npy.gz whose header declares 1.5 GiB, a .parquet.gz of 1.5 GiB and a plain
// .npz of 1.5 MB declaring 1.5 GiB ended `rlskit fit`, `fit --stream` and
// `predict` in the Go runtime's "fatal error: out of memory" (exit status 2,
// a goroutine dump) under `ulimit -v 2500000`. Each command runs here in a
// child process (this test binary, re-executed) whose address space is
// capped at what it has mapped plus bomb.Room, and must exit with status 1
// and a message naming the file — and, where the bound stopped it, the limit
// and the variable that raises it.

// TestBombCLIChild is no test of its own: it is the capped child process of
// the bomb tests (RLSKIT_BOMB_CHILD=1), running rlskit with the arguments
// after the test flags' "--" and exiting with its status.
func TestBombCLIChild(t *testing.T) {
	if os.Getenv("RLSKIT_BOMB_CHILD") != "1" {
		t.Skip("the child process of the bomb tests")
	}
	if err := bomb.CapAddressSpace(bomb.Room); err != nil {
		t.Skip(err)
	}
	root := newRoot(os.Stdin, os.Stdout, os.Stderr)
	root.SetArgs(flag.Args())
	os.Exit(execute(root, os.Stderr))
}

// bombCase is a bomb file and the commands run on it: fit, fit --stream and
// predict, those run tells; env names, for each, the variable of the reading
// bound that stops it by default ("" for none: it refuses the file
// otherwise).
type bombCase struct {
	name   string
	data   func() []byte
	fit    []string // fit's arguments besides --data ("y.npy" is the labels file)
	stream []string // fit --stream's
	model  string   // "svm" or "csv": the model predict uses
	run    [3]bool
	env    [3]string
}

// runBombs writes the bomb, fits the small model predict uses and runs the
// commands on the bomb in capped children.
func runBombs(t *testing.T, c bombCase) {
	if testing.Short() {
		t.Skip("capped child processes: not in -short")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, c.name)
	if err := os.WriteFile(path, c.data(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "train.svm"), []byte("1 1:1 2:0.5\n-1 1:0.2 2:1\n1 1:0.9\n-1 2:0.3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "train.csv"), []byte("a,y\n1,1\n2,0\n3,1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "y.npy"), bomb.Npy(1, 2, 3), 0o644)
	model := filepath.Join(dir, c.model+".json")
	fitArgs := []string{"fit", "--data", filepath.Join(dir, "train."+c.model), "--lambda", "1", "--cv", "none", "--model", model, "--quiet"}
	if c.model == "csv" {
		fitArgs = append(fitArgs, "--label", "y")
	}
	if _, _, err := run(t, "", fitArgs...); err != nil {
		t.Fatal(err)
	}
	base := []string{"--data", path, "--lambda", "1", "--cv", "none", "--quiet"}
	for k, args := range [][]string{
		append(append([]string{"fit"}, base...), c.fit...),
		append(append([]string{"fit", "--stream"}, base...), c.stream...),
		{"predict", "--model", model, "--data", path, "--out", filepath.Join(dir, "pred.txt")},
	} {
		if !c.run[k] {
			continue
		}
		for i, a := range args {
			if a == "y.npy" {
				args[i] = filepath.Join(dir, a)
			}
		}
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^TestBombCLIChild$", "-test.count=1", "--"}, args...)...)
			for _, e := range os.Environ() {
				if !strings.HasPrefix(e, "RLSKIT_MAX_") && !strings.HasPrefix(e, "RLSKIT_BOMB_") {
					cmd.Env = append(cmd.Env, e)
				}
			}
			cmd.Env = append(cmd.Env, "RLSKIT_BOMB_CHILD=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			msg := stderr.String()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Contains(msg, "fatal error") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("rlskit %s: want a clean error (exit status 1), got %v after %v:\n%.600s", strings.Join(args, " "), err, time.Since(start), msg)
			}
			if !strings.HasPrefix(msg, "rlskit: "+path) {
				t.Errorf("the message does not name the file: %.400s", msg)
			}
			if c.env[k] != "" && (!strings.Contains(msg, "exceeds the limit of") || !strings.Contains(msg, "set "+c.env[k]+" to raise it")) {
				t.Errorf("the message does not name the limit and %s: %.400s", c.env[k], msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refusing the bomb took %v", d)
			}
			t.Logf("%v: %.300s", time.Since(start).Round(time.Millisecond), msg)
		})
	}
}

var (
	bombAll  = [3]bool{true, true, true}
	bombLine = "RLSKIT_MAX_LINE"
	bombMem  = "RLSKIT_MAX_DECOMPRESSED"
)

func TestBombCLISVMLightLine(t *testing.T) {
	runBombs(t, bombCase{name: "line.svm.gz", data: func() []byte { return bomb.Gzip("1 1:", "0", bomb.Size, "\n") },
		model: "svm", run: bombAll, env: [3]string{bombLine, bombLine, bombLine}})
}

func TestBombCLICSVLine(t *testing.T) {
	runBombs(t, bombCase{name: "line.csv.gz", data: func() []byte { return bomb.Gzip("a,y\n", "0", bomb.Size, ",1\n") },
		fit: []string{"--label", "y"}, stream: []string{"--label", "y"}, model: "csv", run: bombAll, env: [3]string{bombLine, bombLine, bombLine}})
}

// Short rows: fit holds them all and runs out of the budget; fit --stream and
// predict read them a chunk at a time (the budget is per chunk) and would
// only take long, so they are not run on them.
func TestBombCLISVMLightRows(t *testing.T) {
	runBombs(t, bombCase{name: "rows.svm.gz", data: func() []byte { return bomb.Gzip("", "0 1:0\n", bomb.Size, "") },
		model: "svm", run: [3]bool{true}, env: [3]string{bombMem}})
}

// fit --stream refuses the binary formats before reading them (issue 20,
// item 12): a clean error all the same.
func TestBombCLINpyGzip(t *testing.T) {
	runBombs(t, bombCase{name: "big.npy.gz",
		data: func() []byte {
			return bomb.Gzip(string(bomb.NpyHead(fmt.Sprintf("(%d, 1)", bomb.Size/8))), "\x00", bomb.Size, "")
		},
		fit: []string{"--labels", "y.npy"}, model: "svm", run: bombAll, env: [3]string{bombMem, "", bombMem}})
}

func TestBombCLIParquetGzip(t *testing.T) {
	runBombs(t, bombCase{name: "big.parquet.gz", data: func() []byte { return bomb.Gzip("PAR1", "\x00", bomb.Size, "") },
		fit: []string{"--label", "y"}, model: "svm", run: bombAll, env: [3]string{bombMem, "", bombMem}})
}

func TestBombCLINpz(t *testing.T) {
	runBombs(t, bombCase{name: "big.npz", data: func() []byte { return bomb.Npz(bomb.Size) },
		fit: []string{"--label", "y"}, model: "svm", run: bombAll, env: [3]string{bombMem, "", bombMem}})
}
