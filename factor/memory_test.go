package factor

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/internal/sysmem"
)

// CheckMemory's refusal states the estimate — copies·8·m² bytes, in GiB —
// and the memory available, in GiB.
func TestCheckMemoryMessage(t *testing.T) {
	before, ok := sysmem.Available()
	if !ok {
		t.Skip("available memory unknown on this system")
	}
	const m, copies = 1_000_000, 3.0
	need := 24e12 // 3 · 8 · 10¹² bytes
	if float64(before) >= need {
		t.Skip("this machine has 22 TiB available")
	}
	err := CheckMemory(m, copies)
	after, _ := sysmem.Available()
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("err = %v, want ErrMemory", err)
	}
	msg := err.Error()
	if want := "1000000 rows need about 22351.7 GiB (3 m×m matrices of float64)"; !strings.Contains(msg, want) {
		t.Errorf("message %q\nwant it to contain %q", msg, want)
	}
	var avail float64
	i := strings.Index(msg, "float64), ")
	if i < 0 {
		t.Fatalf("message %q: no available memory", msg)
	}
	if _, err := fmt.Sscanf(msg[i+len("float64), "):], "%g GiB are available", &avail); err != nil {
		t.Fatalf("message %q: %v", msg, err)
	}
	lo, hi := math.Min(float64(before), float64(after))/(1<<30), math.Max(float64(before), float64(after))/(1<<30)
	if avail < lo-0.5 || avail > hi+0.5 {
		t.Errorf("message says %g GiB available; sysmem.Available gave %.2f–%.2f GiB", avail, lo, hi)
	}
	// half the available memory is accepted
	if err := CheckMemory(1, float64(before)/16); err != nil {
		t.Errorf("%g bytes with %d available: %v", float64(before)/2, before, err)
	}
}
