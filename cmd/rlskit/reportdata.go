package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/report"
)

// reportOptions are the report's title (title and the data file),
// one-vs-all classes and provenance.
func reportOptions(f *fitFlags, title string, classes *classInfo) report.Options {
	o := report.Options{Title: title + f.Data, Data: f.Data, Provenance: provenance(f)}
	if classes != nil {
		o.OneVsAll, o.ClassColumn = true, classes.column
	}
	return o
}

// provenance records where a report comes from.
func provenance(f *fitFlags) [][2]string {
	rows := [][2]string{
		{"command", f.command},
		{"rlskit", buildVersion() + " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"},
		{"backend", linalg.Info().String()},
		{"seed", strconv.FormatUint(f.Seed, 10)},
		{"data", dataProvenance(f.Data)},
		{"date", time.Now().UTC().Format(time.RFC3339)},
	}
	return rows
}

// dataProvenance names a data file with its size and SHA-256 (standard input
// and shard patterns cannot be hashed again).
func dataProvenance(path string) string {
	if path == "-" {
		return "standard input"
	}
	fh, err := os.Open(path)
	if err != nil {
		return path + " (not readable again: " + err.Error() + ")"
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return path + " (not a regular file)"
	}
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return path + " (read error: " + err.Error() + ")"
	}
	return fmt.Sprintf("%s, %d bytes, SHA-256 %x", path, st.Size(), h.Sum(nil))
}
