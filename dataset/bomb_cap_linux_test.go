package dataset

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

// Regression (issue 20, item 1): compression bombs. Files of 1–2 MB expanding
// to 1.5 GiB — one svmlight or CSV line, a CSV field quoted over many lines,
// short rows by the hundred million, a .npy.gz whose header declares 1.5 GiB,
// a .parquet.gz, a plain .npz — ended in the Go runtime's "fatal error: out
// of memory" (exit status 2, a goroutine dump) under `ulimit -v 2500000`.
// Each is read here by a child process whose address space is capped at what
// it has mapped plus bomb.Room (as ulimit -v caps it), and must end in a clean
// error naming the limit: exit status 1, no runtime crash.

// bombFile is a bomb and how to read it.
type bombFile struct {
	name   string
	data   func() []byte
	format string // ReadFile's format; "npy" reads with ReadNpyFiles
	label  string // the CSV, npz or Parquet label
	env    string // the variable of the bound that stops it (by default)
}

var (
	textBombs = []bombFile{
		{"line.svm.gz", func() []byte { return bomb.Gzip("1 1:", "0", bomb.Size, "\n") }, "svmlight", "", EnvMaxLine},
		{"line.csv.gz", func() []byte { return bomb.Gzip("a,y\n", "0", bomb.Size, ",1\n") }, "csv", "y", EnvMaxLine},
		{"quoted.csv.gz", func() []byte { return bomb.Gzip("a,y\n\"", "0\n", bomb.Size, "\",1\n") }, "csv", "y", EnvMaxLine},
	}
	rowBombs = []bombFile{
		{"rows.svm.gz", func() []byte { return bomb.Gzip("", "0 1:0\n", bomb.Size, "") }, "svmlight", "", EnvMaxDecompressed},
		{"labels.svm.gz", func() []byte { return bomb.Gzip("", "0\n", bomb.Size, "") }, "svmlight", "", EnvMaxDecompressed},
		{"rows.csv.gz", func() []byte { return bomb.Gzip("a,y\n", "0,0\n", bomb.Size, "") }, "csv", "y", EnvMaxDecompressed},
	}
	binaryBombs = []bombFile{
		{"big.npy.gz", func() []byte {
			return bomb.Gzip(string(npyBytes("<f8", false, []int{bomb.Size / 8, 1}, []float64{})), "\x00", bomb.Size, "")
		}, "npy", "", EnvMaxDecompressed},
		{"big.parquet.gz", func() []byte { return bomb.Gzip("PAR1", "\x00", bomb.Size, "") }, "parquet", "y", EnvMaxDecompressed},
		{"big.npz", func() []byte { return bomb.Npz(bomb.Size) }, "npz", "y", EnvMaxDecompressed},
	}
)

// capAddressSpace caps the process's address space at what it has mapped
// plus room (bomb.CapAddressSpace), skipping where that is not possible.
func capAddressSpace(t testing.TB, room uint64) {
	if err := bomb.CapAddressSpace(room); err != nil {
		t.Skip(err)
	}
}

// capFuzzWorker caps the address space of a fuzzing worker process
// (go test -fuzz runs the inputs in workers) at what it has mapped plus
// fuzzRoom; the coordinator and ordinary test runs are left alone.
func capFuzzWorker(f *testing.F) {
	if fl := flag.Lookup("test.fuzzworker"); fl != nil && fl.Value.String() == "true" {
		capAddressSpace(f, fuzzRoom)
	}
}

// TestBombReaderChild is no test of its own: it is the capped child process
// of the bomb tests, reading the file RLSKIT_BOMB_FILE names. It exits 0
// after a read, 1 after an error, and a runtime crash exits 2.
func TestBombReaderChild(t *testing.T) {
	path := os.Getenv("RLSKIT_BOMB_FILE")
	if path == "" {
		t.Skip("the child process of the bomb tests")
	}
	capAddressSpace(t, bomb.Room)
	var err error
	switch format, label := os.Getenv("RLSKIT_BOMB_FORMAT"), os.Getenv("RLSKIT_BOMB_LABEL"); format {
	case "npy":
		_, err = ReadNpyFiles(path, "")
	default:
		var labels []string
		if label != "" {
			labels = []string{label}
		}
		_, err = ReadFile(path, format, CSVOptions{Labels: labels}, SVMLightOptions{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// childEnv returns the environment without the limit variables, plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "RLSKIT_MAX_") && !strings.HasPrefix(e, "RLSKIT_BOMB_") {
			env = append(env, e)
		}
	}
	return append(env, extra...)
}

// readBombsCapped reads each bomb in a capped child and asserts a clean
// error naming the limit that stopped it.
func readBombsCapped(t *testing.T, bombs []bombFile) {
	if testing.Short() {
		t.Skip("capped child processes: not in -short")
	}
	dir := t.TempDir()
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			path := filepath.Join(dir, b.name)
			if err := os.WriteFile(path, b.data(), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBombReaderChild$", "-test.count=1")
			cmd.Env = childEnv("RLSKIT_BOMB_FILE="+path, "RLSKIT_BOMB_FORMAT="+b.format, "RLSKIT_BOMB_LABEL="+b.label)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			msg := stderr.String()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 || strings.Contains(msg, "fatal error") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("%s: want a clean error (exit status 1), got %v after %v:\n%.600s", b.name, err, time.Since(start), msg)
			}
			if !strings.Contains(msg, "error: "+path) || !strings.Contains(msg, "exceeds the limit of") || !strings.Contains(msg, "set "+b.env+" to raise it") {
				t.Fatalf("%s: the error does not name the file, the limit and the variable raising it:\n%.600s", b.name, msg)
			}
			t.Logf("%v: %.300s", time.Since(start).Round(time.Millisecond), msg)
		})
	}
}

func TestBombTextLines(t *testing.T)  { readBombsCapped(t, textBombs) }
func TestBombTextRows(t *testing.T)   { readBombsCapped(t, rowBombs) }
func TestBombBinaryData(t *testing.T) { readBombsCapped(t, binaryBombs) }
