package dataset

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
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

func BenchmarkReadSVMLight(b *testing.B) {
	in := benchSVMLight(2000, 50, 10000)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ReadSVMLight(strings.NewReader(in), "b", SVMLightOptions{}); err != nil {
			b.Fatal(err)
		}
	}
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
