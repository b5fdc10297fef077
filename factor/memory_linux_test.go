//go:build linux

package factor

import (
	"syscall"
	"testing"

	"github.com/rlskit/rlskit/internal/sysmem"
)

// CheckMemory accepts a computation that needs exactly the memory available.
// The available memory is held fixed by an address-space limit (ulimit -v)
// below the machine's free memory, so that it does not move between reads.
func TestCheckMemoryAcceptsExactFit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	mapped, ok := sysmem.Mapped()
	if !ok {
		t.Skip("no VmSize")
	}
	lim := syscall.Rlimit{Cur: mapped + 256<<20, Max: old.Max}
	if old.Cur != ^uint64(0) && old.Cur < lim.Cur {
		t.Skip("the address-space limit is already lower")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	for try := 0; try < 5; try++ {
		a, ok := sysmem.Available()
		if !ok || a == 0 || a%8 != 0 {
			t.Skipf("available memory %d, %v", a, ok)
		}
		err := CheckMemory(1, float64(a)/8) // needs exactly a bytes
		if b, _ := sysmem.Available(); b != a {
			continue // memory moved between the reads: try again
		}
		if err != nil {
			t.Errorf("exactly the %d bytes available refused: %v", a, err)
		}
		if err := CheckMemory(1, float64(a+8)/8); err == nil {
			if b, _ := sysmem.Available(); b == a {
				t.Errorf("8 bytes more than the %d available accepted", a)
			}
		}
		return
	}
	t.Skip("the available memory kept moving")
}
