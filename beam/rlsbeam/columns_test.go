package rlsbeam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/stream"
)

// TestPrismColumns: the workers read the columns the driver chose
// (CSVOptions.Columns: --features, --ignore): CSV shards written by pandas
// (the index unnamed in column 1) with --ignore 1 give stream.Run's result
// on the same shards without the index column.
func TestPrismColumns(t *testing.T) {
	withIndex, without := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewPCG(5, 2))
	const m, n = 300, 3
	for s := 0; s < n; s++ {
		var a, b strings.Builder
		a.WriteString(",x1,x2,x3,y\n")
		b.WriteString("x1,x2,x3,y\n")
		for i := s * m / n; i < (s+1)*m/n; i++ {
			x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			row := fmt.Sprintf("%v,%v,%v,%v\n", x[0], x[1], x[2], x[0]-2*x[1]+0.3*rng.NormFloat64())
			fmt.Fprintf(&a, "%d,%s", i, row)
			b.WriteString(row)
		}
		os.WriteFile(filepath.Join(withIndex, fmt.Sprintf("part-%d.csv", s)), []byte(a.String()), 0o644)
		os.WriteFile(filepath.Join(without, fmt.Sprintf("part-%d.csv", s)), []byte(b.String()), 0o644)
	}
	meas, _ := measure.ByName("mse")
	opt := stream.Options{Learner: learn.RLS, Loss: learn.Squared, Kernel: kernel.Spec{Name: "linear", Bias: 1}, CV: "kfold:5", Seed: 4,
		Lambdas: []float64{0.01, 1, 100}, Measure: meas}
	csv := dataset.CSVOptions{Labels: []string{"y"}, Columns: dataset.Columns{Ignore: []string{"1"}}}
	got, err := Fit(context.Background(), opt, Source{Patterns: []string{filepath.Join(withIndex, "part-*")}, Format: "csv", CSV: csv}, Config{ChunkRows: 40})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(without, "part-*"))
	want, err := stream.Run(context.Background(), opt, stream.Source{Files: files, Format: "csv", CSV: dataset.CSVOptions{Labels: []string{"y"}}}, stream.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != want.Rows || strings.Join(got.FeatureNames, ",") != "x1,x2,x3" {
		t.Fatalf("rows %d (stream %d), features %q", got.Rows, want.Rows, got.FeatureNames)
	}
	for l, p := range want.Curve {
		if d := math.Abs(got.Curve[l].Value - p.Value); d > 1e-9*math.Abs(p.Value) {
			t.Errorf("λ = %g: mse %v, stream %v", p.Lambda, got.Curve[l].Value, p.Value)
		}
	}
}
