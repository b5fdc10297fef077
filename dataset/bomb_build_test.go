package dataset

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"strings"
)

// Compression bombs, built in milliseconds: see bomb_cap_linux_test.go.

// bombSize is what the bombs expand to.
const bombSize = 1536 << 20

// gzipBomb returns gzip data expanding to head, unit repeated to n bytes, and
// tail: each MiB of units is one gzip member, compressed once and repeated,
// so that a stream expanding to gigabytes takes milliseconds to build.
func gzipBomb(head, unit string, n int64, tail string) []byte {
	member := func(s string) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	chunk := strings.Repeat(unit, max(1, (1<<20)/len(unit)))
	var b bytes.Buffer
	if head != "" {
		b.Write(member(head))
	}
	m := member(chunk)
	for got := int64(0); got < n; got += int64(len(chunk)) {
		b.Write(m)
	}
	if tail != "" {
		b.Write(member(tail))
	}
	return b.Bytes()
}

// npzBomb returns a plain .npz archive (as numpy.savez_compressed writes
// them) of a small array y of 3 labels and an array X of n/8 float64 zeros
// whose deflate stream is one compressed MiB of zeros repeated (its CRC is
// not computed: a reader that gets that far has already failed).
func npzBomb(n int64) []byte {
	seg := func(p []byte) []byte { // a self-contained, non-final deflate segment
		var b bytes.Buffer
		w, _ := flate.NewWriter(&b, flate.BestCompression)
		w.Write(p)
		w.Flush()
		return b.Bytes()
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "y.npy", Method: zip.Deflate})
	w.Write(npyBytes("<f8", false, []int{3}, []float64{1, 2, 3}))
	hdr := npyBytes("<f8", false, []int{int(n / 8), 1}, []float64{})
	var raw bytes.Buffer
	raw.Write(seg(hdr))
	zeros := seg(make([]byte, 1<<20))
	for got := int64(0); got < n; got += 1 << 20 {
		raw.Write(zeros)
	}
	raw.Write([]byte{3, 0}) // the final, empty block
	w, _ = zw.CreateRaw(&zip.FileHeader{Name: "X.npy", Method: zip.Deflate,
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(len(hdr)) + uint64(n)})
	w.Write(raw.Bytes())
	zw.Close()
	return b.Bytes()
}
