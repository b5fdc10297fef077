package stream

import (
	"compress/gzip"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func writeGzip(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func matDense(r, c int, v []float64) *mat.Dense { return mat.NewDense(r, c, v) }
