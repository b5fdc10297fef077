//go:build !linux

package bomb

import "errors"

// ErrUnsupported is returned by CapAddressSpace where the process cannot
// tell what it has mapped.
var ErrUnsupported = errors.New("bomb: cannot cap the address space on this system")

// CapAddressSpace is unsupported here: ErrUnsupported.
func CapAddressSpace(room uint64) error { return ErrUnsupported }
