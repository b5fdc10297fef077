package dataset

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"hash/crc32"
	"io"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rlskit/rlskit/internal/bomb"
)

// Fuzz targets of the gzip-wrapped readers (issue 20, item 3): svmlight.gz,
// csv.gz, npy.gz, parquet.gz (held whole for random access, as ReadFile
// holds it) and plain npz archives with deflated or stored entries. Each
// input is a compressed stream the fuzzer mutates as it is, or text (or an
// array) the target compresses once into a gzip member; either is repeated
// up to 4096 times, members after members, so that the fuzzer reaches
// expansions of gigabytes in microseconds (an npz input grows its X entry by
// a repeated deflate segment instead). Besides the reader contract (a
// result or a *ParseError), a bound reached must be one of the target's,
// named with its variable, and a read that succeeds must be within the
// bounds: no line longer than the line bound, no more decoded values than
// the budget holds.
//
// The memory cap: the targets set small bounds (a line of fuzzLine bytes, a
// decompression budget of fuzzBudget) and fail any input whose read
// allocates more than a multiple of them (runtime/metrics, the cumulative
// heap allocations, which bound the peak); a fuzzing worker process
// (go test -fuzz) also caps its own address space at what it has mapped plus
// fuzzRoom (capFuzzWorker, Linux), as `ulimit -v` would, so that a reader
// escaping its bounds crashes the worker — a failure the fuzzer records with
// its input — instead of exhausting the machine. Run one with
//
//	go test -run '^$' -fuzz '^FuzzReadSVMLightGzip$' -fuzztime 10s ./dataset

const (
	fuzzLine   = 4 << 10
	fuzzBudget = 1 << 20
	fuzzRoom   = 1 << 30
)

// fuzzBounds sets the fuzz targets' bounds and caps a fuzzing worker.
func fuzzBounds(f *testing.F) {
	old := testLimits
	testLimits = &limits{line: fuzzLine, lineSource: "the fuzz target", budget: fuzzBudget, budgetFrom: "the fuzz target"}
	f.Cleanup(func() { testLimits = old })
	capFuzzWorker(f)
}

// gzipStream returns a fuzz target's compressed input: in when it is gzip
// data (the fuzzer mutates the compressed bytes), else in compressed once as
// a gzip member; either repeated repeat%4096+1 times, members after members.
func gzipStream(in []byte, repeat uint16) []byte {
	if len(in) < 2 || in[0] != 0x1f || in[1] != 0x8b {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		w.Write(in)
		w.Close()
		in = b.Bytes()
	}
	return bytes.Repeat(in, int(repeat%4096)+1)
}

// heapAllocs returns the bytes allocated on the heap so far.
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// boundedRead runs read and fails the input when it allocated more than a
// multiple of the bounds and of the compressed input (its stream of n bytes).
func boundedRead(t *testing.T, n int, read func()) {
	t.Helper()
	boundedReads(t, n, 1, read)
}

// boundedReads is boundedRead for a read of up to k chunks, each within the
// bounds.
func boundedReads(t *testing.T, n, k int, read func()) {
	t.Helper()
	allowance := uint64(k*8*(fuzzBudget+fuzzLine) + 8*n + 8<<20)
	before := heapAllocs()
	read()
	if got := heapAllocs() - before; got > allowance {
		t.Fatalf("a read of %d compressed bytes allocated %d bytes, more than %d", n, got, allowance)
	}
}

// checkLines asserts that no line of the decompressed stream (read whole,
// so within the budget) is longer than the line bound: a read that succeeded
// has seen them all.
func checkLines(t *testing.T, stream []byte) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatalf("a read succeeded on data gzip refuses: %v", err)
	}
	text, err := io.ReadAll(io.LimitReader(zr, fuzzBudget+1))
	if err != nil || len(text) > fuzzBudget {
		t.Fatalf("a read succeeded on %d bytes of text beyond the budget (or corrupt: %v)", len(text), err)
	}
	text = bytes.TrimPrefix(text, []byte("\ufeff"))
	for k, line := range bytes.Split(text, []byte("\n")) {
		if len(bytes.TrimSuffix(line, []byte("\r"))) > fuzzLine {
			t.Fatalf("line %d of %d bytes read within a line bound of %d", k+1, len(line), fuzzLine)
		}
	}
}

// checkReadError asserts that an error, if any, is a *ParseError (or an
// ErrOptions error).
func checkReadError(t *testing.T, err error) {
	t.Helper()
	var pe *ParseError
	if err != nil && !errors.As(err, &pe) && !errors.Is(err, ErrOptions) {
		t.Fatalf("error %q (%T) is not a *ParseError", err, err)
	}
}

// checkBound asserts that a bound reached is the fuzz target's, reported as a
// *ParseError wrapping a *LimitError.
func checkBound(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrLimit) {
		return
	}
	var pe *ParseError
	var le *LimitError
	if !errors.As(err, &pe) || !errors.As(err, &le) {
		t.Fatalf("a bound reached is not a *ParseError wrapping a *LimitError: %v (%T)", err, err)
	}
	if !(le.Env == EnvMaxLine && le.Limit == fuzzLine) && !(le.Env == EnvMaxDecompressed && le.Limit == fuzzBudget) {
		t.Fatalf("bound %s = %d: %v", le.Env, le.Limit, err)
	}
	if !strings.Contains(err.Error(), "set "+le.Env+" to raise it") {
		t.Fatalf("the message does not say how to raise the bound: %v", err)
	}
}

// errEnough stops a chunked read after maxChunks chunks: a stream of any
// length is read in chunks, and its whole would only take time.
var errEnough = errors.New("enough chunks")

const maxChunks = 4

// readChunksBounded reads stream in chunks of 64 rows, at most maxChunks of
// them, each within the bounds, and returns the error.
func readChunksBounded(t *testing.T, stream []byte, format string, csv CSVOptions, svm SVMLightOptions) error {
	t.Helper()
	var err error
	boundedReads(t, len(stream), maxChunks, func() {
		chunks := 0
		err = ReadChunks(bytes.NewReader(stream), "f", format, csv, svm, 64, func(d *Data, _ int) error {
			checkFuzzResult(t, d, nil)
			if chunks++; chunks == maxChunks {
				return errEnough
			}
			return nil
		})
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// textSeeds are seeds of the text targets: (text or gzip data, repeat).
// Each text is also a MiB of it, compressed, repeated to 256 MiB: a reader
// that let it through would allocate beyond the targets' allowance.
func textSeeds(f *testing.F, texts ...string) {
	for _, s := range texts {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(4095))
		f.Add(gz([]byte(s)), uint16(0))
		if g := gz([]byte(s)); len(g) > 20 {
			f.Add(g[:len(g)-5], uint16(0)) // truncated
		}
		f.Add(gz(bytes.Repeat([]byte(s), (1<<20)/len(s)+1)), uint16(255))
	}
}

func FuzzReadSVMLightGzip(f *testing.F) {
	fuzzBounds(f)
	textSeeds(f, "1 1:1 3:2\n-1 2:0.5\n", "1 qid:a 1:1\n2 qid:b 2:2 # c\r\n", "0 1:0\n", "0\n", "1,2 1:1\n3,4 2:1\n",
		"1 1:"+strings.Repeat("0", fuzzLine)+"\n", strings.Repeat(" ", 100)+"\n", "0")
	f.Fuzz(func(t *testing.T, in []byte, repeat uint16) {
		stream := gzipStream(in, repeat)
		var (
			d   *Data
			err error
		)
		boundedRead(t, len(stream), func() { d, err = ReadSVMLight(bytes.NewReader(stream), "f", SVMLightOptions{}) })
		checkFuzzResult(t, d, err)
		checkBound(t, err)
		if err == nil {
			checkLines(t, stream)
		}
		err = readChunksBounded(t, stream, "svmlight", CSVOptions{}, SVMLightOptions{Base: OneBased})
		checkReadError(t, err)
		checkBound(t, err)
	})
}

func FuzzReadCSVGzip(f *testing.F) {
	fuzzBounds(f)
	textSeeds(f, "a,b,y\n1,2,3\n4,5,6\n", "a;y\n1;2\n", "a\ty\n1\t2\n", "a,y\n\"1\n2\",3\n", "y,q,a\n1,x,2\n2,x,3\n",
		"a,y\n"+strings.Repeat("0", fuzzLine)+",1\n", "a,y\n\""+strings.Repeat("\n", fuzzLine)+"\",1\n", "a,y\n0,0\n", "0,0\n", "\"\n")
	f.Fuzz(func(t *testing.T, in []byte, repeat uint16) {
		stream := gzipStream(in, repeat)
		opt := CSVOptions{Labels: []string{"y"}}
		if bytes.Contains(in, []byte("q")) {
			opt.Qid = "q"
		}
		var (
			d   *Data
			err error
		)
		boundedRead(t, len(stream), func() { d, err = ReadCSV(bytes.NewReader(stream), "f", opt) })
		checkFuzzResult(t, d, err)
		checkBound(t, err)
		if err == nil {
			checkLines(t, stream)
		}
		err = readChunksBounded(t, stream, "csv", opt, SVMLightOptions{})
		checkReadError(t, err)
		checkBound(t, err)
	})
}

func FuzzReadNpyGzip(f *testing.F) {
	fuzzBounds(f)
	for _, a := range [][]byte{
		npyBytes("<f8", false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}),
		npyBytes("<f4", true, []int{3, 1}, []float32{1, 2, 3}),
		npyBytes("|u1", false, []int{3}, []uint8{1, 2, 3}),
		npyBytes(">i8", false, []int{2}, []int64{-1, 7}),
		npyBytes("|b1", false, []int{2, 2}, []bool{true, false, false, true}),
		npyBytes("|u1", false, []int{fuzzBudget/8 + 1}, []uint8{}), // decodes beyond the budget
		npyBytes("<f8", false, []int{1 << 40, 1}, []float64{}),
	} {
		f.Add(a, uint16(0))
		f.Add(gz(a), uint16(0))
	}
	f.Add(bomb.Gzip(string(npyBytes("<f8", false, []int{1 << 20}, []float64{})), "\x00", 8<<20, ""), uint16(0))
	f.Add(gz(npyBytes("<f8", false, []int{1 << 25}, make([]float64, 1<<17))), uint16(255))               // 256 MiB arriving
	f.Add(gz(npyBytes("|u1", false, []int{fuzzBudget/8 + 1}, make([]uint8, fuzzBudget/8+1))), uint16(0)) // decoded, one element too many
	f.Add(gz(npyBytes("|u1", false, []int{fuzzBudget / 8}, make([]uint8, fuzzBudget/8))), uint16(0))     // decoded, just within
	f.Add(npyBytes("|u1", false, []int{1 << 20}, []uint8{}), uint16(4095))                               // a header repeated: trailing bytes
	f.Fuzz(func(t *testing.T, in []byte, repeat uint16) {
		stream := gzipStream(in, repeat)
		var err error
		boundedRead(t, len(stream), func() {
			x, e := ReadNpy(bytes.NewReader(stream), "f", -1)
			if err = e; err == nil {
				if r, c := x.Dims(); 8*int64(r)*int64(c) > fuzzBudget {
					t.Fatalf("%d×%d values decoded within a budget of %d bytes", r, c, fuzzBudget)
				}
			}
		})
		checkReadError(t, err)
		checkBound(t, err)
	})
}

func FuzzReadParquetGzip(f *testing.F) {
	fuzzBounds(f)
	type row struct {
		Y float64  `parquet:"y"`
		Q string   `parquet:"q"`
		A int32    `parquet:"a"`
		B *float32 `parquet:"b,optional"`
	}
	one := float32(1)
	for _, rows := range [][]row{{{1, "a", 2, &one}, {2, "b", 3, nil}}, {{1, "a", 2, &one}, {2, "a", -3, &one}, {0, "c", 1, &one}}} {
		var b bytes.Buffer
		w := parquet.NewGenericWriter[row](&b)
		w.Write(rows)
		w.Close()
		f.Add(b.Bytes(), uint16(0))
		f.Add(gz(b.Bytes()), uint16(0))
	}
	// a table of 60000 constant rows: small pages, a decoded table beyond the budget
	big := make([]row, 60000)
	for i := range big {
		big[i] = row{1, "a", 2, &one}
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b)
	w.Write(big)
	w.Close()
	f.Add(b.Bytes(), uint16(0))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), uint16(3))
	f.Add(bomb.Gzip("PAR1", "\x00", 4<<20, ""), uint16(0))
	f.Add(gz(append([]byte("PAR1"), make([]byte, 1<<20)...)), uint16(255)) // 256 MiB
	f.Fuzz(func(t *testing.T, in []byte, repeat uint16) {
		stream := gzipStream(in, repeat)
		var (
			d   *Data
			err error
		)
		boundedRead(t, len(stream), func() {
			d, err = readRandomAccess(bytes.NewReader(stream), nil, -1, "f", "parquet", CSVOptions{Labels: []string{"y"}, Qid: "q"})
		})
		if err != nil {
			checkReadError(t, err)
			checkBound(t, err)
			return
		}
		checkFuzzResult(t, d, nil)
		if r, c := d.X.Dims(); 8*int64(r)*int64(c+1) > fuzzBudget {
			t.Fatalf("%d×%d values decoded within a budget of %d bytes", r, c, fuzzBudget)
		}
	})
}

// npzGrown returns an .npz archive of y (3 labels) and X: the bytes of in
// followed by grow×64 KiB of zeros, deflated (one compressed segment
// repeated) or stored (grow%64 segments).
func npzGrown(in []byte, grow uint16, deflate bool) []byte {
	const seg = 64 << 10
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "y.npy", Method: zip.Deflate})
	w.Write(npyBytes("<f8", false, []int{3}, []float64{1, 2, 3}))
	zero := make([]byte, seg)
	if !deflate {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: "X.npy", Method: zip.Store})
		w.Write(in)
		for k := 0; k < int(grow%64); k++ {
			w.Write(zero)
		}
		zw.Close()
		return b.Bytes()
	}
	compress := func(p []byte) []byte {
		var c bytes.Buffer
		fw, _ := flate.NewWriter(&c, flate.BestSpeed)
		fw.Write(p)
		fw.Flush()
		return c.Bytes()
	}
	k := int(grow % 1024)
	raw := append(compress(in), bytes.Repeat(compress(zero), k)...)
	raw = append(raw, 3, 0) // the final, empty block
	crc := crc32.ChecksumIEEE(in)
	for range k {
		crc = crc32.Update(crc, crc32.IEEETable, zero)
	}
	w, _ = zw.CreateRaw(&zip.FileHeader{Name: "X.npy", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(raw)), UncompressedSize64: uint64(len(in) + k*seg)})
	w.Write(raw)
	zw.Close()
	return b.Bytes()
}

func FuzzReadNpz(f *testing.F) {
	fuzzBounds(f)
	x := npyBytes("<f8", false, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	y := npyBytes("<f8", false, []int{3}, []float64{1, 2, 3})
	q := npyBytes("<i8", false, []int{3}, []int64{1 << 60, 1<<60 + 1, 1 << 60})
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		f.Add(npzBytes(f, method, map[string][]byte{"X": x, "y": y, "qid": q}), uint16(0), false)
		f.Add(npzBytes(f, method, map[string][]byte{"X": x, "y": y}), uint16(0), false)
	}
	f.Add(bomb.Npz(4<<20), uint16(0), false)
	u1 := npyBytes("|u1", false, []int{fuzzBudget/16 + 1, 1}, make([]uint8, fuzzBudget/16+1))
	yy := npyBytes("|u1", false, []int{fuzzBudget/16 + 1}, make([]uint8, fuzzBudget/16+1))
	f.Add(npzBytes(f, zip.Deflate, map[string][]byte{"X": u1, "y": yy}), uint16(0), false)    // X and y decoded: one byte too many together
	f.Add(npzBytes(f, zip.Deflate, map[string][]byte{"X": u1[:len(u1)-1]}), uint16(0), false) // truncated
	f.Add(npyBytes("<f8", false, []int{3, 1 << 17}, []float64{}), uint16(1000), true)
	f.Add(npyBytes("<f8", false, []int{3, 1 << 13}, []float64{}), uint16(63), false)
	f.Add(x, uint16(1), true)
	f.Fuzz(func(t *testing.T, in []byte, grow uint16, deflate bool) {
		archive := in
		if grow > 0 {
			archive = npzGrown(in, grow, deflate)
		}
		for _, opt := range []CSVOptions{{}, {Qid: "qid"}} {
			var (
				d   *Data
				err error
			)
			boundedRead(t, len(archive), func() {
				d, err = ReadNpz(bytes.NewReader(archive), int64(len(archive)), "f", opt)
			})
			if err != nil {
				checkReadError(t, err)
				checkBound(t, err)
				continue
			}
			checkFuzzResult(t, d, nil)
			if deflated(archive) {
				r, c := d.X.Dims()
				n := int64(r) * int64(c)
				if d.Y != nil {
					_, t := d.Y.Dims()
					n += int64(r) * int64(t)
				}
				if 8*n > fuzzBudget {
					t.Fatalf("%d values decoded from deflated entries within a budget of %d bytes", n, fuzzBudget)
				}
			}
		}
	})
}

// deflated reports whether every entry of the archive is deflated (charged
// to the budget).
func deflated(archive []byte) bool {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return false
	}
	for _, f := range zr.File {
		if f.Method != zip.Deflate {
			return false
		}
	}
	return true
}
