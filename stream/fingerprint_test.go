package stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/progress"
)

// TestChangedFileNamesItsFingerprints: a file read whole has as its
// Fingerprint its size and the CRC-32C (Castagnoli) of its bytes — what
// FingerprintOf gives for them — and a file rewritten in place between two
// passes is ErrChanged reporting both passes' fingerprints: the first
// pass's of the bytes as they were, the second's of the bytes as they are.
func TestChangedFileNamesItsFingerprints(t *testing.T) {
	before := "1 1:1 2:0.5\n2 1:2\n3 2:1.5\n1.5 1:0.5 2:2\n"
	after := strings.Replace(before, "1:2", "1:3", 1)
	name := filepath.Join(t.TempDir(), "data.svm")
	if err := os.WriteFile(name, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	crc := func(s string) uint32 { return crc32.Checksum([]byte(s), crc32.MakeTable(crc32.Castagnoli)) }
	fp, err := FingerprintOf(strings.NewReader(before))
	if err != nil || fp != (Fingerprint{Bytes: int64(len(before)), CRC: crc(before)}) {
		t.Fatalf("FingerprintOf: %+v, %v; want %d bytes, CRC-32C %08x", fp, err, len(before), crc(before))
	}
	if got, err := ReadShardFingerprint(Source{Format: "svmlight"}, name, 2, nil, func(*dataset.Data, int) error { return nil }); err != nil || got != fp {
		t.Fatalf("ReadShardFingerprint: %+v, %v; want %+v", got, err, fp)
	}
	mse, _ := measure.ByName("mse")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:2", Lambdas: []float64{1},
		Measure: mse, Standardize: true} // two passes: standardization, statistics
	changed := false
	change := func(e progress.Event) {
		if !changed && strings.HasPrefix(e.Stage, "pass 1 ") && e.Done == e.Total {
			changed = true
			if err := os.WriteFile(name, []byte(after), 0o644); err != nil {
				t.Error(err)
			}
		}
	}
	_, err = Run(context.Background(), opt, Source{Files: []string{name}, Format: "svmlight"}, RunOptions{Workers: 1, Progress: change})
	if !changed {
		t.Fatal("the file was not changed")
	}
	want := fmt.Sprintf("pass 1 read %d bytes (CRC-32C %08x), pass 2 read %d bytes (CRC-32C %08x)", len(before), crc(before), len(after), crc(after))
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), want) {
		t.Errorf("%v\nwant ErrChanged with %q", err, want)
	}
}

// TestReadCountsEveryByte: RunResult.Bytes is the files' size and Read the
// bytes read in all passes — every byte once per pass, whether a file is
// read whole, gzipped (its compressed bytes) or as byte ranges in parallel —
// and every pass's progress ends at its total.
func TestReadCountsEveryByte(t *testing.T) {
	od := orcDraw(17, 400, 3, 1, 20, true)
	var lines []string
	for _, r := range od.rows {
		line := strconv.FormatFloat(r.Y[0], 'g', -1, 64)
		for n, j := range r.Index {
			line += fmt.Sprintf(" %d:%s", j+1, strconv.FormatFloat(r.Value[n], 'g', -1, 64))
		}
		lines = append(lines, line+"\n")
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.svm")
	if err := os.WriteFile(whole, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for k, part := range [][]string{lines[:150], lines[150:260], lines[260:]} {
		name := filepath.Join(dir, fmt.Sprintf("shard%d.svm", k))
		var b bytes.Buffer
		if k == 1 { // gzipped
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(strings.Join(part, "")))
			zw.Close()
		} else {
			b.WriteString(strings.Join(part, ""))
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, name)
	}
	defer func(b int64) { splitBytes = b }(splitBytes)
	mse, _ := measure.ByName("mse")
	opt := Options{Learner: learn.RLS, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:3", Lambdas: []float64{1},
		Measure: mse, Standardize: true}
	for _, c := range []struct {
		name  string
		files []string
		split int64
	}{
		{"shards", shards, 1 << 62},
		{"byte ranges", []string{whole}, 1024},
	} {
		splitBytes = c.split
		size := int64(0)
		for _, f := range c.files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			size += st.Size()
		}
		last := map[string]progress.Event{}
		res, err := Run(context.Background(), opt, Source{Files: c.files, Format: "svmlight"}, RunOptions{Workers: 3, ChunkRows: 50,
			Progress: func(e progress.Event) {
				if prev, ok := last[e.Stage]; ok && e.Done < prev.Done {
					t.Errorf("%s, %s: progress went back from %d to %d", c.name, e.Stage, prev.Done, e.Done)
				}
				last[e.Stage] = e
			}})
		if err != nil {
			t.Fatal(err)
		}
		if ps, _ := parts(Source{Files: c.files, Format: "svmlight"}, res.Files, 3); c.split < 1<<62 && len(ps) < 2 {
			t.Fatalf("%s: %d parts", c.name, len(ps))
		}
		if res.Bytes != size || res.Read != 2*size || len(res.Passes) != 2 {
			t.Errorf("%s: %d bytes, %d read in %d passes; want %d, %d in 2", c.name, res.Bytes, res.Read, len(res.Passes), size, 2*size)
		}
		if len(last) != 2 {
			t.Errorf("%s: progress of %d passes, want 2", c.name, len(last))
		}
		for stage, e := range last {
			if e.Done != size || e.Total != size {
				t.Errorf("%s, %s: progress ends at %d of %d, want %d of %d", c.name, stage, e.Done, e.Total, size, size)
			}
		}
	}
}
