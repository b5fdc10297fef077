// Package sysmem tells how much memory the machine can give a computation
// before it starts, so that an O(m²) allocation that cannot fit is refused
// with a message instead of ending in the kernel's out-of-memory killer.
package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes of memory available to new allocations
// (Linux: MemAvailable of /proc/meminfo, capped by a cgroup v2 limit when one
// is set and by the room left under the process's address-space and data
// limits, ulimit -v and -d), and false where none of these can be read
// (other systems).
func Available() (uint64, bool) {
	avail, ok := meminfo("/proc/meminfo", "MemAvailable:")
	if ok {
		if limit, lok := cgroupLimit(); lok && limit < avail {
			avail = limit
		}
	}
	if room, rok := rlimitRoom(); rok && (!ok || room < avail) {
		avail, ok = room, true
	}
	return avail, ok
}

func meminfo(path, key string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0, false
			}
			kb, err := strconv.ParseUint(fields[0], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb * 1024, true
		}
	}
	return 0, false
}

// cgroupLimit reads a cgroup v2 memory limit minus current usage.
func cgroupLimit() (uint64, bool) {
	read := func(p string) (uint64, bool) {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	max, ok := read("/sys/fs/cgroup/memory.max") // "max" when unlimited: not a number
	if !ok {
		return 0, false
	}
	cur, _ := read("/sys/fs/cgroup/memory.current")
	if cur >= max {
		return 0, true
	}
	return max - cur, true
}
