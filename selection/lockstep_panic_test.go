package selection

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLockstepPanicStopsTwin: a panic in the learner's pass — how a front
// end's progress observer cancels a search (cmd/librlskit) — unwinds
// lockstep only after the twin's goroutine has returned: no goroutine is
// left blocked on the channels, holding the twin's factorization.
func TestLockstepPanicStopsTwin(t *testing.T) {
	p := mat.NewDense(1, 1, nil)
	pass := func(v func(i, j int, p *mat.Dense) error) error {
		for n := 0; n < 3; n++ {
			if err := v(n, 0, p); err != nil {
				return err
			}
		}
		return nil
	}
	twinDone := make(chan struct{})
	twin := func(v func(i, j int, p *mat.Dense) error) error {
		defer close(twinDone)
		return pass(v)
	}
	func() {
		defer func() {
			if r := recover(); r != "cancelled" {
				t.Fatalf("recovered %v, want the visit's panic", r)
			}
		}()
		_ = lockstep(pass, twin, func(i, _ int, _, _ *mat.Dense) error {
			if i == 1 {
				panic("cancelled")
			}
			return nil
		})
	}()
	select {
	case <-twinDone:
	default:
		t.Fatal("the twin's goroutine is still running (blocked) after lockstep unwound")
	}
}
