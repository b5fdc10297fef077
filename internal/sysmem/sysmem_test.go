package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMeminfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(p, []byte("MemTotal:       24000000 kB\nMemAvailable:   12345 kB\n"), 0o644)
	if v, ok := meminfo(p, "MemAvailable:"); !ok || v != 12345*1024 {
		t.Errorf("got %d %v", v, ok)
	}
	if _, ok := meminfo(p, "Nope:"); ok {
		t.Error("missing key found")
	}
	if _, ok := meminfo(filepath.Join(t.TempDir(), "none"), "MemAvailable:"); ok {
		t.Error("missing file read")
	}
	if v, ok := Available(); ok && v == 0 {
		t.Error("zero memory available")
	}
}
