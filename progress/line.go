package progress

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"
)

// NewLine returns a Line writing to w — rewritten in place when tty is
// true, one line per phase and one every Every (10 s) otherwise — or showing
// nothing when quiet. Its Observe method is an Observer.
func NewLine(w io.Writer, tty, quiet bool) *Line {
	l := NewLineClock(w, tty, quiet, time.Now)
	l.refresher = true
	return l
}

// NewLineClock is NewLine reading the time from clock. It starts no
// goroutine: the line is drawn when an event arrives or Tick is called
// (tests drive it with a fake clock).
func NewLineClock(w io.Writer, tty, quiet bool, clock func() time.Time) *Line {
	l := &Line{After: 2 * time.Second, Long: time.Second, Every: 10 * time.Second,
		w: w, tty: tty, quiet: quiet, now: clock}
	l.start = clock()
	l.lastPrint = l.start
	return l
}

// Line reports long work on a terminal or log as phases — the kernel matrix, the
// eigendecomposition (m = …), the λ path and the cross-validation, … — each
// with the run's elapsed time and an ETA: for a factorization from its
// operation count calibrated on the backend (Event.Estimate), for a
// stepped loop from its rate so far (Rate). On a terminal one line is
// rewritten in place (and refreshed while a factorization runs); otherwise
// each phase gets one line, written when it is first worth showing, and a
// long phase one more every Every, so that a log shows the run is alive.
type Line struct {
	// After and Long say when a phase is worth a line: once the run is
	// older than After, or at once when its expected duration is at least
	// Long (NewLine: 2 s and 1 s; 0 and 0 show everything).
	After, Long time.Duration
	// Every is how often a log (not a terminal) is told of the phase under
	// way after its first line (NewLine: 10 s; 0: only the first line).
	Every time.Duration
	// Prefix starts every line ("rlskit: ").
	Prefix string

	w         io.Writer
	tty       bool
	quiet     bool
	now       func() time.Time
	refresher bool // start a goroutine that redraws (NewLine)
	start     time.Time

	mu        sync.Mutex
	cur       phaseState
	loop      Rate
	grid      Grid
	shown     bool          // something was written
	lastPrint time.Time     // when a log last got a line (the start before any)
	stop      chan struct{} // ends the refresher (nil: none running)
}

// Grid says what a search's steps count, so that the line can name them
// (selection.Search's stages "training …" and "cross-validating λ", which
// count points of the whole grid, show as "point 170/315 (15 γ × 21 λ)"):
// Points kernel-and-λ points in all (a step's Total), Shape their grid ("13 γ
// × 21 λ"), PerSetting the points of one kernel setting (its λ grid). Each
// setting begins with a factorization and then runs through its λ values
// quickly, so a rate is only worth an ETA once a whole setting is done.
type Grid struct {
	Shape              string
	Points, PerSetting int64
}

// SetGrid tells the line the grid a search's steps count (see Grid).
func (p *Line) SetGrid(g Grid) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grid = g
}

// phaseState is the phase under way.
type phaseState struct {
	name, size  string
	detail      string        // changes within the phase (e.g. a residual)
	estimate    time.Duration // expected duration, 0 when unknown
	began       time.Time
	done, total int // steps (total 0: not stepped)
	printed     bool
}

// Rate estimates the time left in a loop of steps that come in rounds of
// Period units — a grid search's kernel settings, each a factorization and
// then its λ values at once — from the loop's average cost per unit up to
// its last whole round: after rounds ending at (t_b, d_b), the loop first
// reported at (t₀, d₀) and T units in all, the time left at t is
//
//	(t_b − t₀)/(d_b − d₀)·(T − d_b) − (t − t_b).
//
// Counting only whole rounds keeps a round's slow start and fast end from
// swinging the estimate (a rate taken within a round, or over a window
// shorter than one, jumps between the two speeds); averaging over the whole
// loop, not a trailing window, suits rounds of equal cost. Period 1 (or
// less) is the plain average rate. A loop is a run of reports with one
// Total and a count that never goes back; it may change its stage name
// (training a setting, then cross-validating it). No estimate is given
// before Min units (and one round) are done since d₀.
type Rate struct {
	// Min is the number of units done in the loop before an ETA is given.
	Min int64
	// Period is the number of units in a round.
	Period int64

	total, d0, done, db int64
	t0, tb              time.Time
}

// Observe records that done of total units are finished at now.
func (r *Rate) Observe(now time.Time, done, total int64) {
	if total != r.total || done < r.done || r.t0.IsZero() {
		r.total, r.d0, r.t0, r.db, r.tb = total, done, now, done, now
	}
	r.done = done
	if done > r.db && (done-r.d0)%max(r.Period, 1) == 0 {
		r.db, r.tb = done, now
	}
}

// ETA returns the expected time left at now, and whether enough of the
// loop is done to know it.
func (r *Rate) ETA(now time.Time) (time.Duration, bool) {
	n := r.db - r.d0
	if r.total <= 0 || n < max(r.Min, 1) || !r.tb.After(r.t0) {
		return 0, false
	}
	per := float64(r.tb.Sub(r.t0)) / float64(n)
	return max(time.Duration(per*float64(r.total-r.db))-now.Sub(r.tb), 0), true
}

// minSteps is Rate.Min for a loop that is not a search's grid: an ETA
// from two units after the first report.
const minSteps = 2

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
	p.cur = phaseState{name: ph.Stage, size: ph.Size, estimate: ph.Estimate, began: p.now()}
	p.show(true)
	if p.refresher && p.stop == nil && (p.tty || p.Every > 0) {
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
	now := p.now()
	fresh := stage != p.cur.name || p.cur.size != "" || done < p.cur.done
	if fresh {
		p.cur = phaseState{name: stage, began: now}
	}
	p.cur.detail, p.cur.done, p.cur.total = detail, done, total
	p.loop.Min, p.loop.Period = minSteps, 1
	if g := p.grid; g.Points == int64(total) && g.PerSetting > 0 {
		p.loop.Min, p.loop.Period = max(g.PerSetting, minSteps), g.PerSetting
	}
	p.loop.Observe(now, int64(done), int64(total))
	p.show(fresh)
}

// Tick redraws the line: on a terminal the phase's clock, in a log a line
// when Every has passed since the last one. NewLine's refresher calls it.
func (p *Line) Tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.quiet && p.cur.name != "" {
		p.show(false)
	}
}

// eta is the expected time left in the current phase, and whether it is known.
func (p *Line) eta(now time.Time) (time.Duration, bool) {
	c := &p.cur
	switch {
	case c.estimate > 0:
		return max(c.estimate-now.Sub(c.began), 0), true
	case c.total > 0:
		return p.loop.ETA(now)
	}
	return 0, false
}

// show writes the current phase when it is worth showing: on a terminal
// every time; in a log once per phase (at its first report worth a line, or
// when it is fresh) and then once every Every. Called with mu held.
func (p *Line) show(fresh bool) {
	now := p.now()
	c := &p.cur
	left, known := p.eta(now)
	late := now.Sub(p.start) >= p.After
	var worth bool
	switch {
	case c.estimate > 0: // a factorization: shown when it starts
		worth = late || c.estimate >= p.Long
	case c.total > 0: // stepped: shown once its rate is known, or when the log has been silent for Every
		worth = known && (late || now.Sub(c.began)+left >= p.Long) || !known && late && p.Every > 0 && now.Sub(p.lastPrint) >= p.Every
	default:
		worth = late
	}
	if !worth {
		return
	}
	if !p.tty && c.printed && (p.Every <= 0 || now.Sub(p.lastPrint) < p.Every) {
		return
	}
	msg := fmt.Sprintf("%s[%.1f s] %s", p.Prefix, now.Sub(p.start).Seconds(), c.name)
	if c.size != "" {
		msg += ", " + c.size
	}
	if c.total > 0 {
		if g := p.grid; g.Shape != "" && g.Points == int64(c.total) && (c.name == "cross-validating λ" || strings.HasPrefix(c.name, "training ")) {
			msg = strings.TrimSuffix(msg, " λ") + fmt.Sprintf(", point %d/%d (%s)", c.done, c.total, g.Shape)
		} else {
			msg += fmt.Sprintf(" %d/%d", c.done, c.total)
		}
	}
	if c.detail != "" {
		msg += " (" + c.detail + ")"
	}
	if !known && c.total == 0 && c.printed {
		msg += fmt.Sprintf(": %.1f s", now.Sub(c.began).Seconds())
	}
	if known {
		if c.estimate > 0 && (p.tty || c.printed) {
			msg += fmt.Sprintf(": %.1f s of about %.1f s", now.Sub(c.began).Seconds(), c.estimate.Seconds())
		} else {
			msg += fmt.Sprintf(", ETA %.1f s", left.Seconds())
		}
	}
	c.printed, p.shown, p.lastPrint = true, true, now
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\033[K", msg)
	} else {
		fmt.Fprintln(p.w, msg)
	}
}

// refresh calls Tick every quarter second on a terminal, so that a phase
// blocked in a factorization still shows its clock, and every second in a
// log (which Tick writes to once every Every).
func (p *Line) refresh(stop chan struct{}) {
	period := time.Second
	if p.tty {
		period = 250 * time.Millisecond
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.Tick()
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
	p.cur, p.loop = phaseState{}, Rate{}
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
		now := p.now()
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
