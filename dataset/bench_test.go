package dataset

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func benchSVMLight(rows, nnz, width int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for i := 0; i < rows; i++ {
		b.WriteString(strconv.Itoa(rng.IntN(2)*2 - 1))
		idx := 0
		for k := 0; k < nnz; k++ {
			idx += 1 + rng.IntN(width/nnz)
			b.WriteString(" " + strconv.Itoa(idx) + ":" + strconv.FormatFloat(rng.Float64(), 'g', 6, 64))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkReadSVMLight reads sparse svmlight text: 2000 rows of 50 entries
// among 10,000 features.
func BenchmarkReadSVMLight(b *testing.B) {
	in := benchSVMLight(2000, 50, 10000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadSVMLight(strings.NewReader(in), "b", SVMLightOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The readers' benchmark (BenchmarkReaders, scripts/reader-bench.sh): the
// same dense data — a label and benchReaderCols features drawn from a normal
// distribution, written with 12 significant digits, the shape of
// rlskit-datagen -kind regression -digits 12 — in each format, at the row
// counts of RLSKIT_READER_BENCH_ROWS (comma-separated; default 5000 and
// 50000: about 4.5 and 45 MB of svmlight). MB/s is of the file's bytes.

const benchReaderCols = 50

// benchFiles holds one data set in every format.
type benchFiles struct {
	svm, csv, npy, parquet []byte
}

var (
	benchMu    sync.Mutex
	benchCache = map[int]*benchFiles{}
)

func benchReaderFiles(b *testing.B, rows int) *benchFiles {
	benchMu.Lock()
	defer benchMu.Unlock()
	if f, ok := benchCache[rows]; ok {
		return f
	}
	rng := rand.New(rand.NewPCG(7, uint64(rows)))
	d := benchReaderCols
	x := make([]float64, rows*d)
	y := make([]float64, rows)
	var svm, csvText bytes.Buffer
	csvText.WriteString("y")
	for j := 1; j <= d; j++ {
		csvText.WriteString(",f" + strconv.Itoa(j))
	}
	csvText.WriteByte('\n')
	num := func(v float64) []byte { return strconv.AppendFloat(nil, v, 'g', 12, 64) }
	for i := range rows {
		for j := range d {
			// the values as written, so every format holds the same numbers
			x[i*d+j], _ = strconv.ParseFloat(string(num(rng.NormFloat64())), 64)
		}
		y[i], _ = strconv.ParseFloat(string(num(rng.NormFloat64()*3+2)), 64)
		svm.Write(num(y[i]))
		csvText.Write(num(y[i]))
		for j := range d {
			v := num(x[i*d+j])
			svm.WriteString(" " + strconv.Itoa(j+1) + ":")
			svm.Write(v)
			csvText.WriteByte(',')
			csvText.Write(v)
		}
		svm.WriteByte('\n')
		csvText.WriteByte('\n')
	}
	f := &benchFiles{svm: svm.Bytes(), csv: csvText.Bytes(), npy: npyBytes("<f8", false, []int{rows, d}, x)}
	group := parquet.Group{"y": parquet.Leaf(parquet.DoubleType)}
	for j := 1; j <= d; j++ {
		group["f"+strconv.Itoa(j)] = parquet.Leaf(parquet.DoubleType)
	}
	schema := parquet.NewSchema("bench", group)
	var pq bytes.Buffer
	w := parquet.NewWriter(&pq, schema)
	cols := schema.Columns() // leaf paths in the schema's order
	for i := range rows {
		row := make(parquet.Row, len(cols))
		for k, path := range cols {
			v := y[i]
			if path[0] != "y" {
				j, _ := strconv.Atoi(path[0][1:])
				v = x[i*d+j-1]
			}
			row[k] = parquet.DoubleValue(v).Level(0, 0, k)
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.parquet = pq.Bytes()
	benchCache[rows] = f
	return f
}

// benchReaderRows returns the row counts of RLSKIT_READER_BENCH_ROWS.
func benchReaderRows(b *testing.B) []int {
	spec := os.Getenv("RLSKIT_READER_BENCH_ROWS")
	if spec == "" {
		spec = "5000,50000"
	}
	var rows []int
	for _, s := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			b.Fatalf("RLSKIT_READER_BENCH_ROWS=%q: %q is not a row count", spec, s)
		}
		rows = append(rows, n)
	}
	return rows
}

// BenchmarkReaders reads the same dense data set in every format: plain
// text on all GOMAXPROCS cores (-cpu 1 for one core), the binary formats in
// place. One op is one whole read; MB/s is of the file's bytes, and
// MB/cpu-s the same bytes per second of the process's CPU time (user and
// system, every thread): on a machine others load, wall-clock MB/s falls
// with the share of the cores the benchmark gets, CPU-time MB/s does not.
func BenchmarkReaders(b *testing.B) {
	for _, rows := range benchReaderRows(b) {
		name := "rows=" + strconv.Itoa(rows)
		read := map[string]func(f *benchFiles) (int, error){
			"svmlight": func(f *benchFiles) (int, error) {
				d, err := ReadSVMLight(bytes.NewReader(f.svm), "b", SVMLightOptions{})
				return len(f.svm), checkBench(d, err, rows)
			},
			"csv": func(f *benchFiles) (int, error) {
				d, err := ReadCSV(bytes.NewReader(f.csv), "b", CSVOptions{Labels: []string{"y"}})
				return len(f.csv), checkBench(d, err, rows)
			},
			"npy": func(f *benchFiles) (int, error) {
				x, err := ReadNpy(bytes.NewReader(f.npy), "b", int64(len(f.npy)))
				if err == nil {
					err = checkBench(&Data{X: x}, nil, rows)
				}
				return len(f.npy), err
			},
			"parquet": func(f *benchFiles) (int, error) {
				d, err := ReadParquet(bytes.NewReader(f.parquet), int64(len(f.parquet)), "b", CSVOptions{Labels: []string{"y"}})
				return len(f.parquet), checkBench(d, err, rows)
			},
		}
		for _, format := range []string{"svmlight", "csv", "npy", "parquet"} {
			b.Run(format+"/"+name, func(b *testing.B) {
				f := benchReaderFiles(b, rows)
				n, err := read[format](f)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(n))
				b.ResetTimer()
				cpu0, ops := cpuSeconds(), 0
				for b.Loop() {
					if _, err := read[format](f); err != nil {
						b.Fatal(err)
					}
					ops++
				}
				if cpu := cpuSeconds() - cpu0; cpu0 >= 0 && cpu > 0 {
					// what a busy machine does not change: MB per second
					// of CPU time, all threads (the GC's included)
					b.ReportMetric(float64(n)*float64(ops)/1e6/cpu, "MB/cpu-s")
				}
			})
		}
	}
}

// checkBench checks that a benchmark read all rows and columns.
func checkBench(d *Data, err error, rows int) error {
	if err != nil {
		return err
	}
	if r, c := d.X.Dims(); r != rows || c != benchReaderCols {
		return &ParseError{File: "b", Err: ErrEmpty}
	}
	return nil
}

func BenchmarkReadCSV(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("y")
	for j := 0; j < 50; j++ {
		sb.WriteString(",f" + strconv.Itoa(j))
	}
	sb.WriteByte('\n')
	for i := 0; i < 2000; i++ {
		sb.WriteString(strconv.FormatFloat(rng.NormFloat64(), 'g', 6, 64))
		for j := 0; j < 50; j++ {
			sb.WriteString("," + strconv.FormatFloat(rng.Float64(), 'g', 6, 64))
		}
		sb.WriteByte('\n')
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadCSV(strings.NewReader(in), "b", CSVOptions{Labels: []string{"y"}}); err != nil {
			b.Fatal(err)
		}
	}
}
