package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"
)

// The block reader (blocks.go) and the fast paths (fastRow, fastRecord) are
// accelerators: the oracle is the sequential reader with its general path
// only, which is the reader that was there before them. Every read below is
// compared with it, rows bit for bit and errors character for character.

// withBlocks sets the block size and the number of workers for the test.
func withBlocks(t testing.TB, size, workers int) {
	t.Helper()
	oldSize, oldWorkers := readBlock, readWorkers
	readBlock, readWorkers = size, workers
	t.Cleanup(func() { readBlock, readWorkers = oldSize, oldWorkers })
}

// generalOnly reads with the fast paths off.
func generalOnly[T any](read func() (T, error)) (T, error) {
	fastLines = false
	defer func() { fastLines = true }()
	return read()
}

// seqSVMLight is the oracle: the sequential svmlight reader, general path only.
func seqSVMLight(in string, opt SVMLightOptions) (*Data, error) {
	return generalOnly(func() (*Data, error) {
		p, err := newSVMParser(strings.NewReader(in), "f", opt)
		if err != nil {
			return nil, err
		}
		return readWhole(p)
	})
}

// sameRead asserts that two reads give the same data, or the same error.
func sameRead(t *testing.T, what string, d *Data, err error, want *Data, wantErr error) {
	t.Helper()
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("%s: error %v, the sequential reader's %v", what, err, wantErr)
	}
	if err != nil {
		return
	}
	if !reflect.DeepEqual(rowsOf(d), rowsOf(want)) {
		t.Fatalf("%s: rows differ from the sequential reader's", what)
	}
	r, c := d.X.Dims()
	wr, wc := want.X.Dims()
	if r != wr || c != wc || fmt.Sprintf("%T", d.X) != fmt.Sprintf("%T", want.X) {
		t.Fatalf("%s: X %T %d×%d, the sequential reader's %T %d×%d", what, d.X, r, c, want.X, wr, wc)
	}
	if !reflect.DeepEqual(d.QueryNames, want.QueryNames) || !reflect.DeepEqual(d.LabelNames, want.LabelNames) ||
		!reflect.DeepEqual(d.FeatureNames, want.FeatureNames) || d.ZeroBased != want.ZeroBased ||
		(d.Queries == nil) != (want.Queries == nil) {
		t.Fatalf("%s: names, queries or base differ: %q %q %q %v, want %q %q %q %v", what,
			d.QueryNames, d.LabelNames, d.FeatureNames, d.ZeroBased, want.QueryNames, want.LabelNames, want.FeatureNames, want.ZeroBased)
	}
}

// randomSVMLight writes rows of svmlight text: mostly well-formed rows that
// the fast path takes, with every kind of line the general path must judge
// mixed in at rate bad (a syntax the fast path leaves alone, or an error).
func randomSVMLight(rng *rand.Rand, rows int, bad float64, qid bool, t int, zero bool) string {
	var b strings.Builder
	if rng.IntN(4) == 0 {
		b.WriteString("\ufeff")
	}
	if rng.IntN(4) == 0 { // the first row after a block or more
		for range rng.IntN(40) {
			b.WriteString("# a comment before the data\n")
		}
	}
	num := func() string {
		switch rng.IntN(8) {
		case 0:
			return strconv.Itoa(rng.IntN(200) - 100)
		case 1:
			return strconv.FormatFloat(rng.NormFloat64(), 'g', 17, 64) // beyond the fast path
		case 2:
			return strconv.FormatFloat(rng.NormFloat64()*1e-30, 'e', 5, 64)
		default:
			return strconv.FormatFloat(rng.NormFloat64(), 'g', 1+rng.IntN(12), 64)
		}
	}
	odd := []string{"1:nan", "x", "1:1_0", "-1:2", "0:1", "qid:z", "3:", ":4", "7:1e400", "5:0x1p-3", "+2:1", "99999999999999999999:1",
		"2:1:1", "1:1e", "1:.", "1:1#c", "#", "\t", "\r", "\f", "1:+.5", "1:-0", "004:1", "1:1e-400", "1:1\xc2\xa0"}
	eol := []string{"\n", "\n", "\n", "\r\n", " \n", " # comment\n", "#\n"}
	if bad > 0 {
		eol = append(eol, "\n\ufeff") // a byte order mark past the first line is an error
	}
	for i := 0; i < rows; i++ {
		if rng.Float64() < bad/4 {
			b.WriteString([]string{"\n", "# only a comment\n", "   \n", "\r\n"}[rng.IntN(4)])
		}
		for k := 0; k < t; k++ {
			if k > 0 {
				b.WriteByte(',')
			}
			if rng.Float64() < bad/4 {
				break // no label
			}
			b.WriteString(num())
		}
		if rng.Float64() < bad/4 { // a row with another number of labels
			b.WriteString("," + num())
		}
		if qid != (rng.Float64() < bad/4) {
			fmt.Fprintf(&b, " qid:q%d", rng.IntN(5))
		}
		idx := rng.IntN(3)
		if zero {
			idx-- // the first index written may be 0
		}
		for range rng.IntN(8) {
			idx += 1 + rng.IntN(3)
			if rng.Float64() < bad/8 {
				idx -= 2 // repeated or decreasing
			}
			b.WriteString([]string{" ", " ", "\t", "  "}[rng.IntN(4)])
			if rng.Float64() < bad {
				b.WriteString(odd[rng.IntN(len(odd))])
				continue
			}
			b.WriteString(strconv.Itoa(idx) + ":" + num())
		}
		b.WriteString(eol[rng.IntN(len(eol))])
	}
	if rng.IntN(3) == 0 { // no final line break
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

func TestSVMLightBlocksMatchSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 3000; trial++ {
		bad := []float64{0, 0, 0.002, 0.02, 0.2}[rng.IntN(5)]
		in := randomSVMLight(rng, 1+rng.IntN(60), bad, rng.IntN(3) == 0, 1+rng.IntN(2), rng.IntN(2) == 0)
		opt := SVMLightOptions{Base: IndexBase(rng.IntN(3))}
		if rng.IntN(3) == 0 {
			opt.Width = 5 + rng.IntN(30)
			opt.Dense = rng.IntN(2) == 0
		}
		want, wantErr := seqSVMLight(in, opt)
		size, workers := 1+rng.IntN(300), 1+rng.IntN(4)
		withBlocks(t, size, workers)
		what := fmt.Sprintf("trial %d (blocks of %d, %d workers, %+v)\n%q", trial, size, workers, opt, in)
		d, err := ReadSVMLight(strings.NewReader(in), "f", opt)
		sameRead(t, what, d, err, want, wantErr)
		d, err = ReadSVMLight(iotest.HalfReader(strings.NewReader(in)), "f", opt)
		sameRead(t, what+" (half reader)", d, err, want, wantErr)
		// the fast path alone, sequentially
		p, _ := newSVMParser(strings.NewReader(in), "f", opt)
		d, err = readWhole(p)
		sameRead(t, what+" (sequential, fast path)", d, err, want, wantErr)
	}
}

// Errors in a later block, long lines, read errors and line bounds are read
// again sequentially: the same messages, with the lines of the whole input.
func TestSVMLightBlocksHandOver(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	good := randomSVMLight(rng, 2000, 0, false, 1, false)
	lines := strings.SplitAfter(good, "\n")
	var long strings.Builder // a row of 3000 features, longer than a block
	long.WriteString("1")
	for k := 1; k <= 3000; k++ {
		fmt.Fprintf(&long, " %d:1", k)
	}
	long.WriteString("\n")
	cases := map[string]string{
		"error late":          strings.Join(lines[:1500], "") + "1 3:x\n" + strings.Join(lines[1500:], ""),
		"labels change late":  strings.Join(lines[:1700], "") + "1,2 3:1\n" + strings.Join(lines[1700:], ""),
		"qid late":            strings.Join(lines[:900], "") + "1 qid:3 3:1\n" + strings.Join(lines[900:], ""),
		"long line late":      strings.Join(lines[:1200], "") + long.String() + strings.Join(lines[1200:], ""),
		"long line, then bad": strings.Join(lines[:100], "") + long.String() + strings.Join(lines[100:], "") + "1 0:x\n",
	}
	var wide strings.Builder // a row longer than the largest block
	wide.WriteString("1")
	for k := 1; k <= 1000*maxBlockGrowth/8; k++ {
		fmt.Fprintf(&wide, " %d:1.25", k)
	}
	wide.WriteString("\n")
	cases["line longer than any block"] = strings.Join(lines[:700], "") + wide.String() + strings.Join(lines[700:], "")
	for name, in := range cases {
		for _, workers := range []int{1, 2, 5} {
			withBlocks(t, 1000, workers)
			want, wantErr := seqSVMLight(in, SVMLightOptions{})
			before := handOvers.Load()
			d, err := ReadSVMLight(strings.NewReader(in), "f", SVMLightOptions{})
			sameRead(t, name, d, err, want, wantErr)
			handed := handOvers.Load() - before
			switch name {
			case "long line late": // the block grows to hold the row
				if err != nil || handed != 0 {
					t.Fatalf("%s: %v, handed over %d times", name, err, handed)
				}
			case "line longer than any block":
				if err != nil || handed != 1 {
					t.Fatalf("%s: %v, handed over %d times", name, err, handed)
				}
			default:
				if err == nil || handed != 1 {
					t.Fatalf("%s: error %v, handed over %d times", name, err, handed)
				}
			}
		}
	}
	// a read error after many blocks names the line it happens in
	withBlocks(t, 1000, 3)
	boom := fmt.Errorf("boom")
	_, wantErr := seqSVMLight(good, SVMLightOptions{}) // reads
	if wantErr != nil {
		t.Fatal(wantErr)
	}
	cut := len(good) / 2
	r := iotestErrAfter(good[:cut], boom)
	_, err := ReadSVMLight(r, "f", SVMLightOptions{})
	_, wantErr = generalOnly(func() (*Data, error) {
		p, _ := newSVMParser(iotestErrAfter(good[:cut], boom), "f", SVMLightOptions{})
		return readWhole(p)
	})
	if err == nil || err.Error() != wantErr.Error() {
		t.Fatalf("read error: %v, sequentially %v", err, wantErr)
	}
	// the line bound, below the block size
	withLimits(t, 50, 0)
	var short strings.Builder
	for i := range 600 {
		fmt.Fprintf(&short, "%d 1:%d 2:0.5\n", i, i)
	}
	in := strings.Replace(short.String(), "\n300 ", "\n1 1:"+strings.Repeat("0", 60)+"\n300 ", 1)
	want, wantErr := seqSVMLight(in, SVMLightOptions{})
	d, err := ReadSVMLight(strings.NewReader(in), "f", SVMLightOptions{})
	sameRead(t, "line bound", d, err, want, wantErr)
	checkLimit(t, err, "f", lineOf(t, in, "1 1:000"), EnvMaxLine, 50)
}

// lineOf returns the 1-based line of in that starts with prefix.
func lineOf(t *testing.T, in, prefix string) int {
	t.Helper()
	for k, l := range strings.Split(in, "\n") {
		if strings.HasPrefix(l, prefix) {
			return k + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0
}

// A large file read on several workers, with qids: the rows, the query
// codes (numbered in order of appearance over the whole input) and the
// width are the sequential reader's.
func TestSVMLightBlocksLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	in := randomSVMLight(rng, 30000, 0, true, 1, false)
	want, wantErr := seqSVMLight(in, SVMLightOptions{})
	if wantErr != nil {
		t.Fatal(wantErr)
	}
	for _, workers := range []int{1, 2, 4} {
		withBlocks(t, 4096, workers)
		before := handOvers.Load()
		d, err := ReadSVMLight(strings.NewReader(in), "f", SVMLightOptions{})
		sameRead(t, fmt.Sprintf("%d workers", workers), d, err, want, wantErr)
		if n := handOvers.Load() - before; n != 0 {
			t.Fatalf("%d workers: well-formed input handed over to the sequential reader %d times", workers, n)
		}
	}
}

func FuzzSVMLightBlocks(f *testing.F) {
	f.Add("1 1:1\n2 2:2\n3 qid:1 1:1\n", 0, 5, 2)
	f.Add("1 qid:a 1:1\n2 qid:b 2:2 # c\r\n1 qid:a 3:1\n", 0, 9, 3)
	f.Add("1,2 1:1\n3,4 2:1\n5 1:1\n", 0, 8, 2)
	f.Add("1 0:1\n2 1:1\n3 3:1\n", 2003, 7, 2)
	f.Add("\ufeff1 1:1\n\n# x\n2 1:1e5 2:1e-5\n", 1000, 4, 1)
	f.Fuzz(func(t *testing.T, in string, width, size, workers int) {
		base := IndexBase((width%3000 + 3000) % 3000 / 1000)
		opt := SVMLightOptions{Width: (width%1000 + 1000) % 1000, Base: base}
		withBlocks(t, 1+(size%512+512)%512, 1+(workers%4+4)%4)
		want, wantErr := seqSVMLight(in, opt)
		d, err := ReadSVMLight(strings.NewReader(in), "f", opt)
		sameRead(t, "blocks", d, err, want, wantErr)
	})
}

// gzip input is read sequentially, its decompression budget charged row by
// row: the fast paths charge what the general path does, to the byte, so the
// budget refuses the same inputs at the same line.
func TestGzipBudgetFastPathSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	svm := randomSVMLight(rng, 300, 0, true, 1, false)
	csvText := randomCSVData(rng, 300, 3, 0, ",")
	reads := map[string]func() error{
		"svmlight": func() error {
			_, err := ReadSVMLight(bytes.NewReader(gz([]byte(svm))), "f", SVMLightOptions{})
			return err
		},
		"csv": func() error {
			_, err := ReadCSV(bytes.NewReader(gz([]byte(csvText))), "f", CSVOptions{Labels: []string{"y"}, Qid: "q"})
			return err
		},
	}
	for name, read := range reads {
		general := func() error { _, err := generalOnly(func() (int, error) { return 0, read() }); return err }
		lo, hi := int64(1), int64(1<<24) // the smallest budget the general path reads the input in
		for lo < hi {
			mid := (lo + hi) / 2
			withLimits(t, 0, mid)
			if general() == nil {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		for b := lo - 40; b <= lo+40; b++ {
			withLimits(t, 0, b)
			if fast, slow := read(), general(); !sameErr(fast, slow) {
				t.Fatalf("%s, budget %d (the general path needs %d): %v, the general path %v", name, b, lo, fast, slow)
			}
		}
	}
}

// barrierFormat is a blockFormat whose first n parses each wait until all n
// have started: readBlocks must have n blocks parsing at once.
type barrierFormat struct {
	n       int
	started atomic.Int64
	all     chan struct{}
	timeout bool
	merged  []string
}

func (f *barrierFormat) cut(buf []byte, atEOF bool) int {
	if atEOF {
		return len(buf)
	}
	return bytes.LastIndexByte(buf, '\n') + 1
}

func (f *barrierFormat) parse(block []byte, _ bool) string {
	if k := f.started.Add(1); k <= int64(f.n) {
		if k == int64(f.n) {
			close(f.all)
		}
		select {
		case <-f.all:
		case <-time.After(10 * time.Second):
			f.timeout = true
		}
	}
	return string(block)
}

func (f *barrierFormat) merge(s string) bool {
	f.merged = append(f.merged, s)
	return true
}

func (f *barrierFormat) sequential(io.Reader) error { return errors.New("no block was refused") }

// The workers parse blocks at the same time (a barrier that n parses must
// reach together), and the blocks are merged in input order.
func TestReadBlocksConcurrent(t *testing.T) {
	var in strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&in, "line %d\n", i)
	}
	for _, workers := range []int{2, 4} {
		withBlocks(t, 256, workers)
		f := &barrierFormat{n: workers, all: make(chan struct{})}
		if err := readBlocks(strings.NewReader(in.String()), blockFormat[string](f)); err != nil {
			t.Fatal(err)
		}
		if f.timeout {
			t.Fatalf("%d workers: the first %d blocks were not parsed at the same time", workers, workers)
		}
		if got := strings.Join(f.merged, ""); got != in.String() {
			t.Fatalf("%d workers: the merged blocks are not the input in order", workers)
		}
		if len(f.merged) < 2*workers {
			t.Fatalf("%d blocks", len(f.merged))
		}
	}
}
