//go:build unix

package rlsbeam

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/stream"
)

// slowPass makes the slow:// file system slow: reads of at most 512 bytes,
// 20 ms apart.
var slowPass atomic.Bool

func init() {
	filesystem.Register("slow", func(context.Context) filesystem.Interface { return slowFS{} })
}

// slowFS is the local file system under the scheme slow://, slow to read
// while slowPass is set.
type slowFS struct{}

func (slowFS) Close() error { return nil }

func (slowFS) List(_ context.Context, glob string) ([]string, error) {
	m, err := filepath.Glob(strings.TrimPrefix(glob, "slow://"))
	for i := range m {
		m[i] = "slow://" + m[i]
	}
	return m, err
}

func (slowFS) OpenRead(_ context.Context, name string) (io.ReadCloser, error) {
	f, err := os.Open(strings.TrimPrefix(name, "slow://"))
	if err != nil {
		return nil, err
	}
	return slowFile{f}, nil
}

func (slowFS) OpenWrite(context.Context, string) (io.WriteCloser, error) {
	return nil, errors.New("slow://: read only")
}

func (slowFS) Size(_ context.Context, name string) (int64, error) {
	st, err := os.Stat(strings.TrimPrefix(name, "slow://"))
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

type slowFile struct{ f *os.File }

func (s slowFile) Read(p []byte) (int, error) {
	if slowPass.Load() {
		time.Sleep(20 * time.Millisecond)
		p = p[:min(len(p), 512)]
	}
	return s.f.Read(p)
}

func (s slowFile) Close() error { return s.f.Close() }

// beamSignalChild is the child process of TestPrismReliabSignal: a k-fold
// + cindex fit on Prism under stream.NotifyContext, its shards read slowly
// from the second pass on; it exits with 128 + the signal's number.
func beamSignalChild(dir string) {
	cindex, _ := measure.ByName("cindex")
	opt := stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:3", Seed: 1,
		Lambdas: []float64{0.1, 10}, Measure: cindex}
	ctx, stop := stream.NotifyContext(context.Background())
	cfg := Config{ChunkRows: 8, Progress: func(e progress.Event) {
		if strings.HasPrefix(e.Stage, "pass 2 ") {
			slowPass.Store(true)
		}
		fmt.Fprintln(os.Stderr, "child:", e.Stage)
	}}
	_, err := Fit(ctx, opt, Source{Patterns: []string{"slow://" + filepath.Join(dir, "part-*")}, Format: "svmlight"}, cfg)
	sig := stop()
	fmt.Fprintln(os.Stderr, "child: done:", err)
	if s, ok := sig.(syscall.Signal); ok {
		if !errors.Is(err, stream.ErrInterrupted) {
			os.Exit(3)
		}
		os.Exit(128 + int(s))
	}
	os.Exit(0)
}

// TestPrismReliabSignal is issue 20 item 5 for rlskit-beam, which left
// /tmp/rlskit-beam-* on SIGINT or SIGTERM: a child process fitting under
// stream.NotifyContext with its own TMPDIR is signalled in its second
// pass; it exits with 128 + the signal and ErrInterrupted, and no
// rlskit-beam-* or rlskit-predictions-* is left in its TMPDIR.
func TestPrismReliabSignal(t *testing.T) {
	if dir := os.Getenv("RLSKIT_BEAM_SIGNAL_CHILD"); dir != "" {
		beamSignalChild(dir)
		return
	}
	dir := shards(t, 600, 3, false)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPrismReliabSignal$")
			cmd.Env = append(os.Environ(), "RLSKIT_BEAM_SIGNAL_CHILD="+dir, "TMPDIR="+tmp)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var log strings.Builder
			sc := bufio.NewScanner(stderr)
			signalled := false
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
				if !signalled && strings.Contains(sc.Text(), "child: pass 2 ") {
					time.Sleep(300 * time.Millisecond) // the pipeline is under way
					if m, _ := filepath.Glob(filepath.Join(tmp, "rlskit-beam-*")); len(m) == 0 {
						t.Errorf("no rlskit-beam-* in the child's TMPDIR during its second pass")
					}
					if err := cmd.Process.Signal(sig); err != nil {
						t.Fatal(err)
					}
					signalled = true
				}
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !signalled || !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("child exited with %v (signalled %v), want status %d; stderr:\n%s", err, signalled, 128+int(sig), log.String())
			}
			for _, pat := range []string{"rlskit-beam-*", "rlskit-predictions-*"} {
				m, _ := filepath.Glob(filepath.Join(tmp, pat))
				for _, f := range m {
					t.Errorf("left in TMPDIR: %s", f)
				}
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Logf("also in TMPDIR (not rlskit's): %v", names)
			}
		})
	}
}
