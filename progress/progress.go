// Package progress is the one observer type of rlskit's long computations.
// A factorization announces each phase before it starts, with its estimated
// duration (an eigendecomposition of m = 3000: about 4 s on this backend);
// a loop — the λ path and its cross-validation, folds, permutations, passes
// over data, conjugate-gradient iterations, greedy steps — reports how many
// of its units are done. Every learner, solver and search takes an Observer;
// front ends (the command line's progress line, a Python callback) supply
// one. A nil Observer is no observer, and reporting to it costs nothing.
package progress

import (
	"fmt"
	"time"
)

// Event is one report.
type Event struct {
	// Stage names what is computed: "kernel matrix", "eigendecomposition",
	// "cross-validating λ", "pass 2 (statistics)", "conjugate gradients".
	Stage string
	// Size gives a phase's dimensions ("m = 3000", "3000×3000").
	Size string
	// Detail adds to a step what its units do not say ("residual 3.1e-07",
	// "42% of 310 MB, 120 MB/s").
	Detail string
	// Done of Total units (λ values, folds, iterations, bytes). Total 0 is
	// a phase, announced before it starts.
	Done, Total int64
	// Estimate is a phase's expected wall time from its operation count,
	// calibrated on the process's linear-algebra backend; 0 when unknown.
	Estimate time.Duration
}

// IsPhase reports whether the event announces a phase (Total 0) rather
// than a step of a loop.
func (e Event) IsPhase() bool { return e.Total == 0 }

// String renders the event on one line.
func (e Event) String() string {
	s := e.Stage
	if e.Size != "" {
		s += " " + e.Size
	}
	if !e.IsPhase() {
		s += fmt.Sprintf(" %d/%d", e.Done, e.Total)
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Observer receives events in the order they happen; callers call it
// serially (one event at a time, never concurrently, though possibly from
// different goroutines), and it must return quickly.
type Observer func(Event)

// Report tells o of e (nothing when o is nil).
func (o Observer) Report(e Event) {
	if o != nil {
		o(e)
	}
}

// Phase announces a phase about to start.
func (o Observer) Phase(stage, size string, estimate time.Duration) {
	o.Report(Event{Stage: stage, Size: size, Estimate: estimate})
}

// Step reports done of total units of a loop.
func (o Observer) Step(stage string, done, total int) {
	o.Report(Event{Stage: stage, Done: int64(done), Total: int64(total)})
}

// Prefixed returns an observer that reports to o with prefix before every
// stage ("outer fold 3/10: "), or nil when o is nil.
func (o Observer) Prefixed(prefix string) Observer {
	if o == nil {
		return nil
	}
	return func(e Event) {
		e.Stage = prefix + e.Stage
		o(e)
	}
}

// Offset returns an observer that reports a loop's steps as part of a
// larger one: done + offset of total (phases pass through), or nil when o
// is nil. A search over kernel settings reports each setting's λ path so.
func (o Observer) Offset(offset, total int64) Observer {
	if o == nil {
		return nil
	}
	return func(e Event) {
		if !e.IsPhase() {
			e.Done, e.Total = offset+e.Done, total
		}
		o(e)
	}
}

// Counter returns a function that reports done of total units under stage,
// or nil when o is nil: the shape of a loop's progress callback.
func (o Observer) Counter(stage string) func(done, total int) {
	if o == nil {
		return nil
	}
	return func(done, total int) { o.Step(stage, done, total) }
}
