//go:build linux

package bomb

import (
	"errors"
	"syscall"

	"github.com/rlskit/rlskit/internal/sysmem"
)

// ErrUnsupported is returned by CapAddressSpace where the process cannot
// tell what it has mapped.
var ErrUnsupported = errors.New("bomb: no /proc/self/status VmSize: cannot cap the address space")

// CapAddressSpace limits the process's address space (RLIMIT_AS) to what it
// has mapped now (VmSize) plus room, as `ulimit -v` does for a command.
func CapAddressSpace(room uint64) error {
	vm, ok := sysmem.Mapped()
	if !ok {
		return ErrUnsupported
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return err
	}
	rl.Cur = min(vm+room, rl.Max)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &rl)
}
