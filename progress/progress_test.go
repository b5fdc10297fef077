package progress

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestObserver(t *testing.T) {
	var got []Event
	o := Observer(func(e Event) { got = append(got, e) })
	o.Phase("eigendecomposition", "m = 30", time.Second)
	o.Prefixed("outer fold 1/2: ").Step("cross-validating λ", 3, 31)
	o.Counter("folds")(2, 5)
	o.Offset(62, 93).Step("cross-validating λ", 4, 31)
	want := []string{"eigendecomposition m = 30", "outer fold 1/2: cross-validating λ 3/31", "folds 2/5", "cross-validating λ 66/93"}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.String() != want[i] {
			t.Errorf("event %d: %q, want %q", i, e.String(), want[i])
		}
	}
	if !got[0].IsPhase() || got[0].Estimate != time.Second || got[1].IsPhase() {
		t.Errorf("phase flags or estimate wrong: %+v", got)
	}
	// a nil observer is no observer
	var none Observer
	none.Phase("x", "", 0)
	none.Step("x", 1, 2)
	if none.Prefixed("p") != nil || none.Counter("c") != nil || none.Offset(1, 2) != nil {
		t.Error("a nil observer's derived observers are not nil")
	}
}

// Off a terminal each phase gets one line with the prefix, its size, steps
// and an ETA; a quiet line writes nothing.
func TestLine(t *testing.T) {
	var b strings.Builder
	l := NewLine(&b, false, false)
	l.After, l.Long, l.Prefix = 0, 0, "x: "
	o := Observer(l.Observe)
	o.Phase("eigendecomposition", "m = 30", time.Second)
	for i := 1; i <= 3; i++ {
		o.Step("cross-validating λ", i, 3)
	}
	l.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "x: [") || !strings.Contains(lines[0], "eigendecomposition, m = 30") ||
		!strings.Contains(lines[1], "cross-validating λ") || !strings.Contains(lines[1], "ETA") {
		t.Errorf("lines %q", lines)
	}
	var q strings.Builder
	quiet := NewLine(&q, false, true)
	quiet.After, quiet.Long = 0, 0
	quiet.Observe(Event{Stage: "x", Done: 1, Total: 2})
	quiet.Done()
	if q.Len() != 0 {
		t.Errorf("quiet line wrote %q", q.String())
	}
}

// fakeClock is a clock tests move by hand; with tick set, advance moves it
// by whole seconds and calls tick after each (as NewLine's refresher would).
type fakeClock struct {
	t    time.Time
	tick func()
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) advance(d time.Duration) {
	for c.tick != nil && d >= time.Second {
		c.t = c.t.Add(time.Second)
		c.tick()
		d -= time.Second
	}
	c.t = c.t.Add(d)
}

// gridRun reports a grid search of settings × lambdas points as
// selection.Search does — "training" at the start of each setting (after a
// factorization phase of train), then "cross-validating λ" after each λ
// (step apart) — calling check after every step with the true time left.
func gridRun(o Observer, c *fakeClock, settings, lambdas int, train, step time.Duration, check func(done int, left time.Duration)) {
	total := settings * lambdas
	for s := 0; s < settings; s++ {
		o.Step("training gaussian(gamma=1)", s*lambdas, total)
		o.Phase("eigendecomposition", "m = 500", 0)
		c.advance(train)
		for l := 1; l <= lambdas; l++ {
			c.advance(step)
			done := s*lambdas + l
			o.Step("cross-validating λ", done, total)
			rounds := settings - s - 1
			check(done, time.Duration(rounds)*(train+time.Duration(lambdas)*step)+time.Duration(lambdas-l)*step)
		}
	}
}

// Over a grid whose settings cost alike (10 s of factorization, then 4 λ of
// 0.5 s), the ETA counted in whole settings is the true time left at every
// step once a setting is done, and none is given before; the plain average
// rate (Period 1) is off by more than half at the start of a setting.
func TestRateRounds(t *testing.T) {
	for _, period := range []int64{4, 1} {
		c := &fakeClock{t: time.Unix(0, 0)}
		r := Rate{Min: 4, Period: period}
		worst := 0.0
		gridRun(func(e Event) {
			if !e.IsPhase() {
				r.Observe(c.now(), e.Done, e.Total)
			}
		}, c, 3, 4, 10*time.Second, 500*time.Millisecond, func(done int, left time.Duration) {
			eta, ok := r.ETA(c.now())
			if ok != (done >= 4) {
				t.Errorf("period %d: after %d points ETA known = %v", period, done, ok)
			}
			if ok && left > 0 {
				worst = max(worst, math.Abs(eta.Seconds()-left.Seconds())/left.Seconds())
			}
		})
		switch {
		case period == 4 && worst > 1e-9:
			t.Errorf("whole settings: ETA off by %.3g of the time left, want exact", worst)
		case period == 1 && worst < 0.5:
			t.Errorf("plain rate: ETA off by at most %.3g; the test does not tell the estimators apart", worst)
		}
	}
	// the ETA counts down between reports and a new loop starts afresh
	c := &fakeClock{t: time.Unix(0, 0)}
	r := Rate{Min: 2}
	for d := int64(0); d <= 2; d++ {
		r.Observe(c.now(), d, 10)
		c.advance(time.Second)
	}
	if eta, ok := r.ETA(c.now()); !ok || eta != 7*time.Second {
		t.Errorf("ETA %v %v, want 7 s one second after 2/10 at 1 s per unit", eta, ok)
	}
	r.Observe(c.now(), 1, 5)
	if _, ok := r.ETA(c.now()); ok {
		t.Error("a new loop has an ETA at its first report")
	}
}

// lineTimes reads the elapsed times "[12.0 s]" of a log's lines.
func lineTimes(t *testing.T, lines []string) []float64 {
	t.Helper()
	var out []float64
	for _, l := range lines {
		var s float64
		if _, err := fmt.Sscanf(l[strings.Index(l, "[")+1:], "%g s]", &s); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, s)
	}
	return out
}

// Off a terminal (fake clock, a log writer) a grid search's steps are named
// as points of the grid, no ETA shows before a setting is done, and a long
// run gets a line at each phase's start and at least every Every while a
// phase runs, driven by events or by Tick; quiet writes nothing.
func TestLineLog(t *testing.T) {
	var b strings.Builder
	c := &fakeClock{t: time.Unix(0, 0)}
	l := NewLineClock(&b, false, false, c.now)
	l.Prefix = "x: "
	l.SetGrid(Grid{Shape: "3 γ × 4 λ", Points: 12, PerSetting: 4})
	c.tick = l.Tick
	gridRun(l.Observe, c, 3, 4, 30*time.Second, 5*time.Second, func(int, time.Duration) {})
	c.tick = nil
	l.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for _, line := range lines {
		if strings.Contains(line, "λ ") && strings.Contains(line, "/12") {
			t.Errorf("line %q counts points as λ", line)
		}
		if strings.Contains(line, "/12") && !strings.Contains(line, "(3 γ × 4 λ)") {
			t.Errorf("line %q does not name the grid", line)
		}
		for _, early := range []string{"point 1/12", "point 2/12", "point 3/12"} {
			if strings.Contains(line, early) && strings.Contains(line, "ETA") {
				t.Errorf("line %q: an ETA before a setting is done", line)
			}
		}
	}
	if !strings.Contains(b.String(), "point 4/12 (3 γ × 4 λ), ETA 100.0 s") {
		t.Errorf("no exact ETA when the first setting is done:\n%s", b.String())
	}
	times := lineTimes(t, lines)
	for i := 1; i < len(times); i++ {
		if gap := times[i] - times[i-1]; gap > 10 {
			t.Errorf("%.1f s without a line (lines %q)", gap, lines)
		}
	}

	// one long factorization: a line at its start, then one every 10 s of ticks
	b.Reset()
	l = NewLineClock(&b, false, false, c.now)
	l.Observe(Event{Stage: "eigendecomposition", Size: "m = 9000", Estimate: 40 * time.Second})
	for range 35 {
		c.advance(time.Second)
		l.Tick()
	}
	l.Done()
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if times := lineTimes(t, lines); len(times) != 4 || times[0] != 0 || times[1] != 10 || times[2] != 20 || times[3] != 30 {
		t.Errorf("lines at %v, want 0, 10, 20, 30 s: %q", times, lines)
	}
	if !strings.Contains(lines[1], "eigendecomposition, m = 9000: 10.0 s of about 40.0 s") {
		t.Errorf("a repeated phase line: %q", lines[1])
	}

	// a stepped loop of 100 one-second steps: a line every 10 s
	b.Reset()
	l = NewLineClock(&b, false, false, c.now)
	for d := 1; d <= 100; d++ {
		c.advance(time.Second)
		l.StepDetail("folds", "", d, 100)
	}
	l.Done()
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	times = lineTimes(t, lines)
	if len(lines) < 9 || len(lines) > 11 {
		t.Errorf("%d lines for 100 s, want about 10: %q", len(lines), lines)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i] - times[i-1]; gap < 10 || gap > 11 {
			t.Errorf("lines %.1f s apart, want 10: %q", gap, lines)
		}
	}

	var q strings.Builder
	quiet := NewLineClock(&q, false, true, c.now)
	quiet.After, quiet.Long = 0, 0
	quiet.Observe(Event{Stage: "x", Done: 1, Total: 2})
	c.advance(time.Minute)
	quiet.Tick()
	quiet.Done()
	if q.Len() != 0 {
		t.Errorf("quiet line wrote %q", q.String())
	}
}
