package dataset

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// The pairs reader's benchmark (BenchmarkReadersPairs, scripts/reader-bench.sh):
// a complete m×q grid of labelled pairs "row col label", the label a normal
// draw written with 6 significant digits — the shape of the Kronecker
// workload (300 × 1000: 300,000 lines, about 5 MB).

var (
	benchPairsMu    sync.Mutex
	benchPairsCache = map[[2]int][]byte{}
)

// benchPairsText returns the m×q grid of labelled pairs, row by row.
func benchPairsText(m, q int) []byte {
	benchPairsMu.Lock()
	defer benchPairsMu.Unlock()
	if t, ok := benchPairsCache[[2]int{m, q}]; ok {
		return t
	}
	rng := rand.New(rand.NewPCG(26, uint64(m*q)))
	var b bytes.Buffer
	var num []byte
	for i := range m {
		for j := range q {
			num = strconv.AppendInt(num[:0], int64(i), 10)
			num = append(num, ' ')
			num = strconv.AppendInt(num, int64(j), 10)
			num = append(num, ' ')
			num = strconv.AppendFloat(num, rng.NormFloat64()*0.4, 'g', 6, 64)
			num = append(num, '\n')
			b.Write(num)
		}
	}
	benchPairsCache[[2]int{m, q}] = b.Bytes()
	return b.Bytes()
}

// BenchmarkReadersPairs reads the 300×1000 grid of pairs on all GOMAXPROCS
// cores (-cpu 1 for one core): "mem" from memory, "file" from a regular
// file (what rlskit fit --pairs does). One op is one whole read; MB/s is of
// the file's bytes, MB/cpu-s the same bytes per second of the process's CPU
// time (all threads, as BenchmarkReaders reports it).
func BenchmarkReadersPairs(b *testing.B) {
	const m, q = 300, 1000
	opt := PairsOptions{Rows: m, Cols: q}
	in := benchPairsText(m, q)
	path := filepath.Join(b.TempDir(), "pairs.txt")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		b.Fatal(err)
	}
	read := map[string]func() error{
		"mem": func() error {
			p, err := ReadPairs(bytes.NewReader(in), "b", opt)
			return checkBenchPairs(p, err, m*q)
		},
		"file": func() error {
			fh, err := os.Open(path)
			if err != nil {
				return err
			}
			defer fh.Close()
			p, err := ReadPairs(fh, path, opt)
			return checkBenchPairs(p, err, m*q)
		},
	}
	for _, src := range []string{"mem", "file"} {
		b.Run("pairs-"+src+"/m=300,q=1000", func(b *testing.B) {
			if err := read[src](); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, ops := cpuSeconds(), 0
			for b.Loop() {
				if err := read[src](); err != nil {
					b.Fatal(err)
				}
				ops++
			}
			if cpu := cpuSeconds() - cpu0; cpu0 >= 0 && cpu > 0 {
				b.ReportMetric(float64(len(in))*float64(ops)/1e6/cpu, "MB/cpu-s")
			}
		})
	}
}

// checkBenchPairs checks that a benchmark read all n pairs with labels.
func checkBenchPairs(p *Pairs, err error, n int) error {
	if err != nil {
		return err
	}
	if p.Len() != n || len(p.Labels) != n {
		return &ParseError{File: "b", Err: ErrEmpty}
	}
	return nil
}
