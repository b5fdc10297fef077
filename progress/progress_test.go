package progress

import (
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
