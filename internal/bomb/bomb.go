// Package bomb builds compression bombs for the readers' tests — small files
// that expand to gigabytes — and caps a test process's address space as
// `ulimit -v` would, so that a reader escaping its bounds crashes that
// process instead of exhausting the machine. Tests only: nothing of the
// library imports it.
package bomb

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Size is what the tests' bombs expand to: 1.5 GiB, more than the address
// space Room leaves a capped process.
const Size = 1536 << 20

// Room is the address space a capped test process may map beyond what it has
// mapped when it caps itself: less than any bomb, more than the readers need
// to refuse one (their default decompression budget is an eighth of it).
const Room = 1 << 30

// Gzip returns gzip data expanding to head, unit repeated to n bytes, and
// tail. Each MiB of units is one gzip member, compressed once and repeated,
// so that a stream expanding to gigabytes takes milliseconds to build:
// O(n / 1 MiB) time, about n/1000 bytes.
func Gzip(head, unit string, n int64, tail string) []byte {
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

// NpyHead returns the header of a little-endian float64 .npy array of the
// given shape, written as NumPy writes it ("(3,)", "(4, 1)").
func NpyHead(shape string) []byte {
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }", shape)
	dict += strings.Repeat(" ", (64-(10+len(dict)+1)%64)%64) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	return append(b, dict...)
}

// Npy returns a .npy array of the values, of shape (len(v),).
func Npy(v ...float64) []byte {
	b := NpyHead("(" + strconv.Itoa(len(v)) + ",)")
	for _, x := range v {
		b, _ = binary.Append(b, binary.LittleEndian, x)
	}
	return b
}

// Npz returns a plain .npz archive (as numpy.savez_compressed writes them) of
// an array y of 3 labels and an array X of n/8 float64 zeros, shape (n/8, 1),
// whose deflate stream is one compressed MiB of zeros repeated. Its CRC is not
// computed: a reader that gets that far has already failed.
func Npz(n int64) []byte {
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
	w.Write(Npy(1, 2, 3))
	hdr := NpyHead(fmt.Sprintf("(%d, 1)", n/8))
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
