//go:build linux

package sysmem

import "syscall"

// rlimitRoom returns the bytes the process may still map under its
// address-space limit (RLIMIT_AS, ulimit -v) and data limit (RLIMIT_DATA,
// ulimit -d), less what it has mapped (VmSize, VmData of /proc/self/status);
// false when neither limit is set.
func rlimitRoom() (uint64, bool) {
	var room uint64
	found := false
	for _, lim := range []struct {
		res int
		key string
	}{{syscall.RLIMIT_AS, "VmSize:"}, {syscall.RLIMIT_DATA, "VmData:"}} {
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(lim.res, &rl); err != nil || rl.Cur == ^uint64(0) {
			continue // RLIM_INFINITY
		}
		used, ok := meminfo("/proc/self/status", lim.key)
		if !ok {
			continue
		}
		r := uint64(0)
		if rl.Cur > used {
			r = rl.Cur - used
		}
		if !found || r < room {
			room, found = r, true
		}
	}
	return room, found
}

// Mapped returns the bytes of address space the process has mapped (VmSize
// of /proc/self/status), and false where that cannot be read.
func Mapped() (uint64, bool) { return meminfo("/proc/self/status", "VmSize:") }
