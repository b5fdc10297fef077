package progress

import (
	"fmt"
	"io"
	"math"
	"sync"
	"time"
)

// NewLine returns a Line writing to w — rewritten in place when tty is
// true, one line per phase otherwise — or showing nothing when quiet. Its
// Observe method is an Observer.
func NewLine(w io.Writer, tty, quiet bool) *Line {
	return &Line{After: 2 * time.Second, Long: time.Second, w: w, tty: tty, quiet: quiet, start: time.Now()}
}

// Line reports long work on a terminal or log as phases — the kernel matrix, the
// eigendecomposition (m = …), the λ path and the cross-validation, … — each
// with the run's elapsed time and an ETA: for a factorization from its
// operation count calibrated on the backend (Event.Estimate), for a
// stepped phase from the rate of the steps done. On a terminal one line is
// rewritten in place (and refreshed while a factorization runs); otherwise
// each phase gets one line, written when it is first worth showing.
type Line struct {
	// After and Long say when a phase is worth a line: once the run is
	// older than After, or at once when its expected duration is at least
	// Long (NewLine: 2 s and 1 s; 0 and 0 show everything).
	After, Long time.Duration
	// Prefix starts every line ("rlskit: ").
	Prefix string

	w     io.Writer
	tty   bool
	quiet bool
	start time.Time

	mu    sync.Mutex
	cur   phaseState
	shown bool          // something was written
	stop  chan struct{} // ends the terminal refresher (nil: none running)
}

// phaseState is the phase under way.
type phaseState struct {
	name, size  string
	detail      string        // changes within the phase (e.g. a residual)
	estimate    time.Duration // expected duration, 0 when unknown
	began       time.Time
	done, total int // steps (total 0: not stepped)
	done0       int // steps done when the phase began
	printed     bool
}

// Observe is the Observer every learner, search and pass reports to: a phase (Total 0) starts a phase, a step moves the current one.
func (p *Line) Observe(e Event) {
	if e.IsPhase() {
		p.phase(e)
		return
	}
	p.StepDetail(e.Stage, e.Detail, int(e.Done), int(e.Total))
}

// phase starts a phase announced before it runs (a factorization).
func (p *Line) phase(ph Event) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = phaseState{name: ph.Stage, size: ph.Size, estimate: ph.Estimate, began: time.Now()}
	p.show()
	if p.tty && p.stop == nil {
		p.stop = make(chan struct{})
		go p.refresh(p.stop)
	}
}

// StepDetail reports that done of total steps of the named stage are
// finished, with a detail that may change within the phase; a new stage name
// starts a new phase.
func (p *Line) StepDetail(stage, detail string, done, total int) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if stage != p.cur.name || p.cur.size != "" || done < p.cur.done {
		p.cur = phaseState{name: stage, began: time.Now(), done0: done}
	}
	p.cur.detail, p.cur.done, p.cur.total = detail, done, total
	p.show()
}

// eta is the expected time left in the current phase, and whether it is known.
func (c *phaseState) eta(now time.Time) (time.Duration, bool) {
	in := now.Sub(c.began)
	switch {
	case c.estimate > 0:
		return max(c.estimate-in, 0), true
	case c.total > 0 && c.done > c.done0:
		rate := in.Seconds() / float64(c.done-c.done0)
		return time.Duration(rate * float64(c.total-c.done) * float64(time.Second)), true
	}
	return 0, false
}

// show writes the current phase when it is worth showing: on a terminal
// every time, otherwise once per phase. Called with mu held.
func (p *Line) show() {
	now := time.Now()
	c := &p.cur
	left, known := c.eta(now)
	late := now.Sub(p.start) >= p.After
	var worth bool
	switch {
	case c.estimate > 0: // a factorization: shown when it starts
		worth = late || c.estimate >= p.Long
	case c.total > 0: // stepped: shown once its rate is known
		worth = known && (late || now.Sub(c.began)+left >= p.Long)
	default:
		worth = late
	}
	if !worth || (!p.tty && c.printed) {
		return
	}
	msg := fmt.Sprintf("%s[%.1f s] %s", p.Prefix, now.Sub(p.start).Seconds(), c.name)
	if c.size != "" {
		msg += ", " + c.size
	}
	if c.total > 0 {
		msg += fmt.Sprintf(" %d/%d", c.done, c.total)
	}
	if c.detail != "" {
		msg += " (" + c.detail + ")"
	}
	if known {
		if c.estimate > 0 && p.tty {
			msg += fmt.Sprintf(": %.1f s of about %.1f s", now.Sub(c.began).Seconds(), c.estimate.Seconds())
		} else {
			msg += fmt.Sprintf(", ETA %.1f s", left.Seconds())
		}
	}
	c.printed, p.shown = true, true
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", msg)
	} else {
		fmt.Fprintln(p.w, msg)
	}
}

// refresh redraws the terminal line every quarter second, so that a phase
// blocked in a factorization still shows its clock.
func (p *Line) refresh(stop chan struct{}) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.cur.name != "" {
				p.show()
			}
			p.mu.Unlock()
		}
	}
}

// Done ends the progress: stops the refresher and ends a terminal line.
func (p *Line) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	if p.shown && p.tty {
		fmt.Fprintln(p.w)
		p.shown = false
	}
	p.cur = phaseState{}
}

// Bytes returns an Observer for passes over data whose steps count bytes
// (package stream's passes): it shows each pass in MB with its percentage
// and rate, at most five times a second, through the line.
func (p *Line) Bytes() Observer {
	var (
		mu       sync.Mutex
		stage    string
		t0, last time.Time
	)
	return func(e Event) {
		if e.IsPhase() {
			p.Observe(e)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if e.Stage != stage {
			stage, t0 = e.Stage, now
		}
		if now.Sub(last) < 200*time.Millisecond && e.Done < e.Total {
			return
		}
		last = now
		rate := float64(e.Done) / math.Max(now.Sub(t0).Seconds(), 1e-9) / 1e6
		pct := 100.0
		if e.Total > 0 {
			pct = 100 * float64(e.Done) / float64(e.Total)
		}
		p.StepDetail(e.Stage, fmt.Sprintf("%.0f%% of %.1f MB, %.0f MB/s", pct, float64(e.Total)/1e6, rate), int(e.Done>>20), int(e.Total>>20))
	}
}
