//go:build !linux

package sysmem

// rlimitRoom is unknown where /proc/self/status is not: false.
func rlimitRoom() (uint64, bool) { return 0, false }

// Mapped is unknown where /proc/self/status is not: false.
func Mapped() (uint64, bool) { return 0, false }
