//go:build unix

package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Regression (reliability issue C): writing to a copy of /dev/full exited 0
// (the device was replaced by a regular file). The device is written in place
// and ENOSPC is reported; the other outputs are left as they were.
func TestOutputsDeviceFull(t *testing.T) {
	fi, err := os.Stat("/dev/full")
	if err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no device number")
	}
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, int(st.Rdev)); err != nil {
		t.Skipf("cannot create a device node (needs root): %v", err)
	}
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("old"), 0o644)
	var o Outputs
	o.Add("--model", other, writeString("new"))
	o.Add("--out", full, writeString("predictions\n"))
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	err = o.Commit()
	if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "--out "+full+": ") {
		t.Fatalf("err = %v, want ENOSPC for --out", err)
	}
	if fi, err := os.Stat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device was replaced: %v %v", fi.Mode(), err)
	}
	if readT(t, other) != "old" {
		t.Error("--model was replaced although --out failed")
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"full", "other.txt"}) {
		t.Errorf("directory holds %v", names)
	}
	if err := WriteFileAtomic(full, writeString("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("WriteFileAtomic: %v", err)
	}
}

// A named pipe is written in place, for the reader at its other end.
func TestOutputsFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteFileAtomic(fifo, writeString("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("read %q", s)
	}
	if fi, _ := os.Lstat(fifo); fi.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

// Regression (reliability issue C): an unwritable directory or device is
// reported by Check, before any work.
func TestOutputsCheckPermissions(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write anywhere")
	}
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o555)
	var o Outputs
	o.Add("--out", filepath.Join(ro, "x.txt"), writeString("x"))
	if err := o.Check(); !errors.Is(err, ErrOutputPath) || !strings.Contains(err.Error(), "--out") {
		t.Errorf("read-only directory: %v", err)
	}
	var o2 Outputs
	o2.Add("--out", os.DevNull, writeString("x")) // a user may write /dev/null in place
	if err := o2.Check(); err != nil {
		t.Error(err)
	}
	if err := o2.Commit(); err != nil {
		t.Error(err)
	}
}

const signalHelperEnv = "RLSKIT_OUTPUTS_SIGNAL_HELPER"

// SIGINT or SIGTERM during Commit: the temporary files are removed, the old
// outputs are intact, and the program exits with 130 or 143. The test runs
// itself as a subprocess whose second output is slow to write.
func TestCommitSignal(t *testing.T) {
	if dir := os.Getenv(signalHelperEnv); dir != "" {
		signalHelper(dir)
		return
	}
	for _, c := range []struct {
		sig  os.Signal
		code int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
			os.WriteFile(a, []byte("old a"), 0o644)
			os.WriteFile(b, []byte("old b"), 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestCommitSignal$")
			cmd.Env = append(os.Environ(), signalHelperEnv+"="+dir)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ready := filepath.Join(dir, "ready")
			deadline := time.Now().Add(30 * time.Second)
			for {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the helper never got to the slow write: %s", out.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			var temps []string
			for _, n := range dirNames(t, dir) {
				if strings.Contains(n, ".tmp") {
					temps = append(temps, n)
				}
			}
			if len(temps) != 2 {
				t.Fatalf("before the signal the directory holds %v, want two temporary files", dirNames(t, dir))
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code {
				t.Fatalf("helper ended with %v, want exit status %d; output:\n%s", err, c.code, out.String())
			}
			if readT(t, a) != "old a" || readT(t, b) != "old b" {
				t.Error("an old output was replaced")
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"a.txt", "b.txt", "ready"}) {
				t.Errorf("after the signal the directory holds %v", names)
			}
		})
	}
}

// signalHelper commits two outputs, the second of which announces itself and
// then blocks until the parent's signal ends the process.
func signalHelper(dir string) {
	var o Outputs
	o.Add("--a", filepath.Join(dir, "a.txt"), writeString("new a"))
	o.Add("--b", filepath.Join(dir, "b.txt"), func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial output\n", 10000))
		w.(*bufio.Writer).Flush()
		os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
		time.Sleep(time.Minute)
		return nil
	})
	err := o.Commit()
	fmt.Println("Commit returned without a signal:", err)
	os.Exit(3)
}
