package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlskit/rlskit/internal/bomb"
)

// Unit tests of the reading bounds (issue 20, item 1) with small limits set
// through testLimits: each bound refuses one byte more than it allows, names
// the file, the line or entry, the limit and the variable that raises it,
// and a chunked read releases each chunk's share of the budget.

// withLimits sets the bounds for the test: a line of at most line bytes, a
// decompression budget of budget bytes (0: none).
func withLimits(t *testing.T, line, budget int64) {
	t.Helper()
	old := testLimits
	testLimits = &limits{line: line, lineSource: "a test", budget: budget, budgetFrom: "a test"}
	t.Cleanup(func() { testLimits = old })
}

// checkLimit asserts a *ParseError naming file and line, wrapping a
// *LimitError of the given bound and variable.
func checkLimit(t *testing.T, err error, file string, line int, env string, limit int64) {
	t.Helper()
	var pe *ParseError
	var le *LimitError
	if !errors.As(err, &pe) || !errors.As(err, &le) || !errors.Is(err, ErrLimit) {
		t.Fatalf("want a *ParseError wrapping a *LimitError, got %v (%T)", err, err)
	}
	if pe.File != file || pe.Line != line || le.Env != env || le.Limit != limit {
		t.Fatalf("got file %q line %d, env %s limit %d; want %q %d %s %d: %v", pe.File, pe.Line, le.Env, le.Limit, file, line, env, limit, err)
	}
	msg := err.Error()
	want := file + ": "
	if line > 0 {
		want = file + ":" + strconv.Itoa(line) + ": "
	}
	if !strings.HasPrefix(msg, want) || !strings.Contains(msg, strconv.FormatInt(limit, 10)) || !strings.Contains(msg, "set "+env) {
		t.Fatalf("message %q does not name %q, the limit %d and %s", msg, want, limit, env)
	}
}

// svmLineOf returns an svmlight line of exactly n bytes (n ≥ 6).
func svmLineOf(n int) string { return "1 1:" + strings.Repeat("0", n-5) + "1" }

func TestLineBoundEveryTextReader(t *testing.T) {
	const max = 200
	withLimits(t, max, 0)
	long := strings.Repeat(" ", max-1) // blank padding: every reader skips it
	for _, c := range []struct {
		name, ok string
		read     func(io.Reader) error
	}{
		{"svmlight", "1 1:1\n" + svmLineOf(max) + "\n", func(r io.Reader) error {
			_, err := ReadSVMLight(r, "f", SVMLightOptions{})
			return err
		}},
		{"csv", "a,y\n" + strings.Repeat("0", max-2) + ",1\n", func(r io.Reader) error {
			_, err := ReadCSV(r, "f", CSVOptions{Labels: []string{"y"}})
			return err
		}},
		{"folds", "0 1\n2" + long + "\n", func(r io.Reader) error {
			_, err := ReadFolds(r, "f", 3)
			return err
		}},
		{"indices", "0 1\n2" + long + "\n", func(r io.Reader) error {
			_, err := ReadIndices(r, "f", 3)
			return err
		}},
		{"preferences", "0 1\n2 1" + long[2:] + "\n", func(r io.Reader) error {
			_, err := ReadPreferences(r, "f", 3)
			return err
		}},
		{"pairs", "0 1 1\n1 0 2" + long[4:] + "\n", func(r io.Reader) error {
			_, err := ReadPairs(r, "f", PairsOptions{Rows: 2, Cols: 2})
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// the second line holds exactly max bytes: read, plain or gzip, with "\r\n" too
			for _, in := range []string{c.ok, strings.ReplaceAll(c.ok, "\n", "\r\n"), string(gz([]byte(c.ok)))} {
				if err := c.read(strings.NewReader(in)); err != nil {
					t.Fatalf("a line of %d bytes: %v", max, err)
				}
			}
			// one byte more is refused on line 2, plain or gzip, whole or byte by byte
			bad := strings.Replace(c.ok, "\n", "\n ", 1)
			if c.name == "svmlight" || c.name == "csv" {
				bad = strings.Replace(c.ok, "\n0", "\n00", 1)
				bad = strings.Replace(bad, "1:0", "1:00", 1)
			}
			for _, r := range []io.Reader{strings.NewReader(bad), bytes.NewReader(gz([]byte(bad))), &oneByte{strings.NewReader(bad)}} {
				checkLimit(t, c.read(r), "f", 2, EnvMaxLine, max)
			}
			// a line of a gigabyte costs no more than the bound to refuse
			huge := io.MultiReader(strings.NewReader(strings.SplitAfter(c.ok, "\n")[0]), zeros(1<<30))
			start := time.Now()
			checkLimit(t, c.read(huge), "f", 2, EnvMaxLine, max)
			if d := time.Since(start); d > time.Second {
				t.Errorf("refusing a line of 1 GiB took %v: it was read", d)
			}
		})
	}
}

type oneByte struct{ r io.Reader }

func (o *oneByte) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// zeros returns a reader of n bytes '0'.
func zeros(n int64) io.Reader {
	return io.LimitReader(repeatReader('0'), n)
}

type repeatReader byte

func (c repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// A CSV record is bounded whole, also when a quoted field spans many short
// lines, and the error names the line the record starts on.
func TestLineBoundCSVRecord(t *testing.T) {
	const max = 100
	withLimits(t, max, 0)
	field := strings.Repeat("x\n", (max-4)/2) // the record "\"x\nx\n…\",1" of max bytes
	ok := "a,y\n1,2\n\"" + field + "\",1\n3,4\n"
	if _, err := ReadCSV(strings.NewReader(ok), "f", CSVOptions{Labels: []string{"y"}}); !errors.Is(err, ErrSyntax) {
		t.Fatalf("a quoted record of %d bytes: %v", max, err) // read, and "x…" is not a number
	}
	for _, in := range []string{
		"a,y\n1,2\n\"x" + field + "\",1\n",                       // one byte too long
		"a,y\n1,2\n\"" + strings.Repeat("x\n", 1<<20) + "\",1\n", // far too long: stopped early
	} {
		_, err := ReadCSV(strings.NewReader(in), "f", CSVOptions{Labels: []string{"y"}})
		checkLimit(t, err, "f", 3, EnvMaxLine, max)
		err = ReadChunks(strings.NewReader(in), "f", "csv", CSVOptions{Labels: []string{"y"}}, SVMLightOptions{}, 1, func(*Data, int) error { return nil })
		checkLimit(t, err, "f", 3, EnvMaxLine, max)
	}
	// the header is a record too
	_, err := ReadCSV(strings.NewReader(strings.Repeat("a", max+1)+"\n1\n"), "f", CSVOptions{})
	checkLimit(t, err, "f", 1, EnvMaxLine, max)
}

// gzip text is bounded by the budget whole, and per chunk in ReadChunks: a
// stream of any length is read in chunks within it.
func TestDecompressionBudgetText(t *testing.T) {
	const rows = 40000
	var svm, csv strings.Builder
	csv.WriteString("a,y\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&svm, "%d 1:%d\n", i%2, i)
		fmt.Fprintf(&csv, "%d,%d\n", i, i%2)
	}
	const budget = 512 << 10 // of about 1 MiB of text and values
	for _, c := range []struct{ format, in string }{{"svmlight", svm.String()}, {"csv", csv.String()}} {
		t.Run(c.format, func(t *testing.T) {
			opt := CSVOptions{Labels: []string{"y"}}
			read := func(r io.Reader) error {
				if c.format == "csv" {
					_, err := ReadCSV(r, "f", opt)
					return err
				}
				_, err := ReadSVMLight(r, "f", SVMLightOptions{})
				return err
			}
			withLimits(t, 0, budget)
			if err := read(strings.NewReader(c.in)); err != nil {
				t.Fatalf("plain input is not charged: %v", err)
			}
			err := read(bytes.NewReader(gz([]byte(c.in))))
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < rows/10 || pe.Line > rows {
				t.Fatalf("want the budget to run out within the rows: %v", err)
			}
			checkLimit(t, err, "f", pe.Line, EnvMaxDecompressed, budget)
			// through Decompress (fit --stream's shards) as well
			r, derr := Decompress(bytes.NewReader(gz([]byte(c.in))))
			if derr != nil {
				t.Fatal(derr)
			}
			checkLimit(t, read(r), "f", pe.Line, EnvMaxDecompressed, budget)
			// in chunks of 1000 rows every row is read
			n := 0
			err = ReadChunks(bytes.NewReader(gz([]byte(c.in))), "f", c.format, opt, SVMLightOptions{}, 1000, func(d *Data, _ int) error {
				n += d.Rows()
				return nil
			})
			if err != nil || n != rows {
				t.Fatalf("chunks: %d rows, %v", n, err)
			}
			// a chunk beyond the budget is refused where it runs out
			err = ReadChunks(bytes.NewReader(gz([]byte(c.in))), "f", c.format, opt, SVMLightOptions{}, rows, func(*Data, int) error { return nil })
			checkLimit(t, err, "f", pe.Line, EnvMaxDecompressed, budget)
			// a gigabyte of zeros costs no more than the budget to refuse
			start := time.Now()
			err = read(bytes.NewReader(bomb.Gzip("", "0", 1<<30, "")))
			if !errors.Is(err, ErrLimit) || time.Since(start) > 2*time.Second {
				t.Fatalf("1 GiB of zeros: %v after %v", err, time.Since(start))
			}
		})
	}
}

// The values parsed are charged, not only the text: label-only rows ("0\n",
// 2 bytes of text, 16 of values) run out the budget sooner than their text.
func TestDecompressionBudgetChargesValues(t *testing.T) {
	in := strings.Repeat("0\n", 4096)
	withLimits(t, 0, int64(4*len(in))) // twice the text, half the text and values
	_, err := ReadSVMLight(bytes.NewReader(gz([]byte(in))), "f", SVMLightOptions{})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("label-only rows: %v", err)
	}
}

// A .npy.gz, and the deflated entries of an .npz together, are charged 8
// bytes (one float64) an element before any data are read; stored entries
// and plain files are bounded by their own size.
func TestDecompressionBudgetNumPy(t *testing.T) {
	u1 := npyBytes("|u1", false, []int{64, 2}, bytes.Repeat([]byte{1}, 128)) // 128 bytes, 1 KiB decoded
	withLimits(t, 0, 1023)
	if _, err := ReadNpy(bytes.NewReader(u1), "x.npy", int64(len(u1))); err != nil {
		t.Fatalf("plain: %v", err)
	}
	_, err := ReadNpy(bytes.NewReader(gz(u1)), "x.npy", -1)
	checkLimit(t, err, "x.npy", 0, EnvMaxDecompressed, 1023)
	var le *LimitError
	if errors.As(err, &le); le.Need != 1024 {
		t.Fatalf("need %d, want 1024 (8 bytes an element)", le.Need)
	}
	withLimits(t, 0, 1024)
	if x, err := ReadNpy(bytes.NewReader(gz(u1)), "x.npy", -1); err != nil || x.At(63, 1) != 1 {
		t.Fatalf("within the budget: %v", err)
	}
	// a header declaring 1.5 GiB is refused before its data are read
	start := time.Now()
	_, err = ReadNpy(bytes.NewReader(bomb.Gzip(string(npyBytes("<f8", false, []int{bomb.Size / 8}, []float64{})), "\x00", bomb.Size, "")), "x.npy", -1)
	if checkLimit(t, err, "x.npy", 0, EnvMaxDecompressed, 1024); time.Since(start) > time.Second {
		t.Fatalf("refusing took %v", time.Since(start))
	}

	y := npyBytes("<f8", false, []int{64}, make([]float64, 64)) // 512 bytes
	x := npyBytes("<f8", false, []int{64, 1}, make([]float64, 64))
	arrays := map[string][]byte{"X": x, "y": y}
	withLimits(t, 0, 1023) // X and y take 1024
	_, err = ReadNpz(bytes.NewReader(npzBytes(t, 8 /* deflate */, arrays)), int64(len(npzBytes(t, 8, arrays))), "a.npz", CSVOptions{})
	checkLimit(t, err, "a.npz[y]", 0, EnvMaxDecompressed, 1023)
	if !strings.Contains(err.Error(), "after 512 bytes of the arrays before") {
		t.Errorf("the message does not say the arrays before count: %v", err)
	}
	stored := npzBytes(t, 0, arrays)
	if _, err := ReadNpz(bytes.NewReader(stored), int64(len(stored)), "a.npz", CSVOptions{}); err != nil {
		t.Fatalf("stored entries are the archive's bytes: %v", err)
	}
	withLimits(t, 0, 1024)
	deflated := npzBytes(t, 8, arrays)
	if _, err := ReadNpz(bytes.NewReader(deflated), int64(len(deflated)), "a.npz", CSVOptions{}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	// the plain bomb of the issue, 1.5 MB declaring 1.5 GiB
	data := bomb.Npz(bomb.Size)
	_, err = ReadNpz(bytes.NewReader(data), int64(len(data)), "b.npz", CSVOptions{})
	checkLimit(t, err, "b.npz[X]", 0, EnvMaxDecompressed, 1024)
}

// A Parquet file is charged its decoded table and each page's uncompressed
// size; a .parquet.gz its decompressed bytes, held for random access.
func TestDecompressionBudgetParquet(t *testing.T) {
	table := func(qid func(i int) string) []byte {
		rows := make([]pqRow, 100)
		for i := range rows {
			rows[i] = pqRow{Y: float64(i), Qid: qid(i), A: 1, B: 2, C: 3}
		}
		return parquetBytes(t, rows)
	}
	opt := CSVOptions{Labels: []string{"y"}, Qid: "qid"}
	read := func(pq []byte) error {
		_, err := ReadParquet(bytes.NewReader(pq), int64(len(pq)), "t.parquet", opt)
		return err
	}
	short := table(func(i int) string { return strconv.Itoa(i) })
	const need = 100 * (8*4 + 16) // four numeric columns and a query id a row
	withLimits(t, 0, need)
	if err := read(short); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
	withLimits(t, 0, need-1) // every page fits, the table does not
	err := read(short)
	checkLimit(t, err, "t.parquet", 0, EnvMaxDecompressed, need-1)
	if !strings.Contains(err.Error(), "100 rows × 5 columns decoded (4800 bytes") {
		t.Fatalf("table: %v", err)
	}
	long := table(func(i int) string { return strings.Repeat("q", 90) + strconv.Itoa(i) })
	withLimits(t, 0, 8192) // the table fits, the page of long ids does not
	err = read(long)
	checkLimit(t, err, "t.parquet", 0, EnvMaxDecompressed, 8192)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Byte == 0 || !strings.Contains(err.Error(), `column "qid": a page of`) {
		t.Fatalf("page: %v", err)
	}

	dir := t.TempDir()
	path := writeTemp(t, dir, "t.parquet.gz", gz(long))
	withLimits(t, 0, int64(len(long))-1)
	_, err = ReadFile(path, "", opt, SVMLightOptions{})
	checkLimit(t, err, path, 0, EnvMaxDecompressed, int64(len(long))-1)
	if !strings.Contains(err.Error(), "the decompressed parquet file exceeds") {
		t.Errorf("message: %v", err)
	}
	withLimits(t, 0, 1<<20)
	if _, err := ReadFile(path, "", opt, SVMLightOptions{}); err != nil {
		t.Fatal(err)
	}
}

// The variables are read in one place, with the defaults and their sources.
func TestLimitVariables(t *testing.T) {
	t.Setenv(EnvMaxLine, "")
	t.Setenv(EnvMaxDecompressed, "")
	l, err := readLimits()
	if err != nil || l.line != DefaultMaxLine || l.budget < MinDecompressed {
		t.Fatalf("defaults: %+v %v", l, err)
	}
	if avail, ok := memoryAvailable(); ok && l.budget != max(int64(avail/DecompressedShare), MinDecompressed) {
		t.Errorf("budget %d for %d bytes available", l.budget, avail)
	}
	for in, want := range map[string]int64{"123": 123, "64K": 64 << 10, "2m": 2 << 20, "3G": 3 << 30, "1T": 1 << 40, " 7 ": 7, "unlimited": 0} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "1.5G", "G", "12Q", "99999999999T", "0x10"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
	t.Setenv(EnvMaxLine, "10")
	t.Setenv(EnvMaxDecompressed, "1K")
	if l, err := readLimits(); err != nil || l.line != 10 || l.budget != 1024 || l.lineSource != "RLSKIT_MAX_LINE=10" {
		t.Fatalf("set: %+v %v", l, err)
	}
	_, err = ReadSVMLight(strings.NewReader("1 1:1\n1 1:1 2:2 3:3\n"), "f", SVMLightOptions{})
	checkLimit(t, err, "f", 2, EnvMaxLine, 10)
	if !strings.Contains(err.Error(), "(RLSKIT_MAX_LINE=10; set RLSKIT_MAX_LINE to raise it") {
		t.Errorf("message: %v", err)
	}
	t.Setenv(EnvMaxLine, "unlimited")
	if _, err := ReadSVMLight(strings.NewReader("1 1:1\n1 1:1 2:2 3:3\n"), "f", SVMLightOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{EnvMaxLine, EnvMaxDecompressed} {
		t.Setenv(env, "lots")
		_, err := ReadSVMLight(bytes.NewReader(gz([]byte("1 1:1\n"))), "f", SVMLightOptions{})
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), env+`="lots"`) {
			t.Errorf("%s=lots: %v", env, err)
		}
		if _, err := Decompress(bytes.NewReader(gz([]byte("1 1:1\n")))); !errors.Is(err, ErrOptions) {
			t.Errorf("Decompress, %s=lots: %v", env, err)
		}
		t.Setenv(env, "")
	}
	e := &LimitError{What: "x", Limit: 3 << 30, Need: 5 << 30, Source: "s", Env: "E"}
	if got := e.Error(); got != "x (5368709120 bytes, 5.0 GiB) exceeds the limit of 3221225472 bytes, 3.0 GiB (s; set E to raise it, e.g. E=8G)" {
		t.Errorf("message %q", got)
	}
}
