package progress

import (
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
