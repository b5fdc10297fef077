//go:build unix

package dataset

import "syscall"

// canWrite reports whether the calling user may open path for writing.
func canWrite(path string) error {
	return syscall.Access(path, 0x2) // W_OK
}
