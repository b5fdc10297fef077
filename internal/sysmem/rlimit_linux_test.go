//go:build linux

package sysmem

import (
	"syscall"
	"testing"
)

// TestAvailableRespectsAddressSpaceLimit lowers the process's soft RLIMIT_AS
// to what it has mapped plus 1 GiB: Available must then report at most that
// 1 GiB (ulimit -v is the memory a run may use, whatever the machine has).
func TestAvailableRespectsAddressSpaceLimit(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err != nil {
		t.Fatal(err)
	}
	used, ok := meminfo("/proc/self/status", "VmSize:")
	if !ok {
		t.Fatal("no VmSize in /proc/self/status")
	}
	const room = 1 << 30
	lim := syscall.Rlimit{Cur: used + room, Max: old.Max}
	if old.Cur != ^uint64(0) && old.Cur < lim.Cur {
		lim.Cur = old.Cur
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &old)
	v, ok := Available()
	if !ok || v > room {
		t.Fatalf("Available = %d, %v under ulimit -v of %d bytes mapped + 1 GiB; want ≤ 1 GiB", v, ok, used)
	}
	if v < room/2 {
		t.Fatalf("Available = %d under 1 GiB of room: the room was miscounted", v)
	}
}
