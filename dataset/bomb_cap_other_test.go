//go:build !linux

package dataset

import "testing"

// capFuzzWorker leaves the process alone where /proc/self/status, which
// tells what it has mapped, is not (the targets' allocation bound remains).
func capFuzzWorker(*testing.F) {}
