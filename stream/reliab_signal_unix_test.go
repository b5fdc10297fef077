//go:build unix

package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
)

// slowReader reads at most 1 KiB at a time, 20 ms apart.
type slowReader struct{ f *os.File }

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return s.f.Read(p[:min(len(p), 1024)])
}

func (s slowReader) Close() error { return s.f.Close() }

// signalChild is the child process of TestStreamReliabSignalRemovesStore: a
// k-fold + auc fit (a second pass spilling every prediction to a store in
// $TMPDIR) under NotifyContext, whose reads slow down once the store exists,
// so that the signal comes in the middle of the prediction pass. It exits
// with 128 + the signal's number, as a front end would.
func signalChild(data string) {
	auc, _ := measure.ByName("auc")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:4", Seed: 1, Lambdas: []float64{0.1, 1, 10}, Measure: auc}
	open := func(name string) (io.ReadCloser, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "rlskit-predictions-*")); len(m) > 0 {
			fmt.Fprintln(os.Stderr, "child: prediction pass")
			return slowReader{f}, nil
		}
		return f, nil
	}
	ctx, stop := NotifyContext(context.Background())
	_, err := Run(ctx, opt, Source{Files: []string{data}, Format: "svmlight", Open: open}, RunOptions{Workers: 2, ChunkRows: 16})
	sig := stop()
	fmt.Fprintln(os.Stderr, "child:", err)
	if s, ok := sig.(syscall.Signal); ok {
		if !errors.Is(err, ErrInterrupted) {
			os.Exit(3)
		}
		os.Exit(128 + int(s))
	}
	os.Exit(0)
}

// TestStreamReliabSignalRemovesStore is issue 20 item 5: SIGTERM or SIGINT
// during fit --stream's prediction pass left $TMPDIR/rlskit-predictions-*/
// (rows × λ × 8 bytes). A child process fits under NotifyContext with its
// own TMPDIR; the parent waits for the prediction store to appear, signals
// the child, and finds its TMPDIR empty once it has exited — with status
// 128 + the signal and ErrInterrupted.
func TestStreamReliabSignalRemovesStore(t *testing.T) {
	if data := os.Getenv("RLSKIT_STREAM_SIGNAL_CHILD"); data != "" {
		signalChild(data)
		return
	}
	x, y, q := synth(5, 400, 4, 1, true, false, 0, 2)
	for i := range y {
		y[i][0] = float64(int(y[i][0])%2*2 - 1)
		if y[i][0] == 0 {
			y[i][0] = 1
		}
	}
	whole, _ := writeShards(t, t.TempDir(), x, y, q, false, 1)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStreamReliabSignalRemovesStore$")
			cmd.Env = append(os.Environ(), "RLSKIT_STREAM_SIGNAL_CHILD="+whole, "TMPDIR="+tmp)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				if m, _ := filepath.Glob(filepath.Join(tmp, "rlskit-predictions-*")); len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no prediction store appeared in %s: %s", tmp, stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // the pass is under way
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Errorf("child exited with %v, want status %d; stderr:\n%s", err, 128+int(sig), stderr.String())
			}
			if !strings.Contains(stderr.String(), "prediction pass") || !strings.Contains(stderr.String(), "interrupted by") {
				t.Errorf("child's stderr:\n%s", stderr.String())
			}
			left, _ := os.ReadDir(tmp)
			for _, e := range left {
				t.Errorf("left in TMPDIR: %s", e.Name())
			}
		})
	}
}
