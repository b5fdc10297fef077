package pairwise

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/oracle"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// TestSideBlock: Side.Block gives the kernel between new objects and the
// training objects, standardizing the new objects with the training
// objects' scaling when the side was standardized: the training objects
// given again as new ones get the training kernel matrix, and, with features
// standardized here by hand (mean 0, population standard deviation 1 per
// column, the new objects by the training columns' mean and deviation), the
// gaussian kernel by its formula. A width other than the side's is an error.
func TestSideBlock(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{1, 10, 2, 30, 4, 20, 5, 60})
	z := mat.NewDense(2, 2, []float64{3, 40, 0, 15})
	g := oracle.Kernel{Name: "gaussian", Gamma: 0.5}
	for _, std := range []bool{false, true} {
		s, err := NewSide(x, kernel.Gaussian{Gamma: 0.5}, std)
		if err != nil {
			t.Fatal(err)
		}
		if (s.Scaler() != nil) != std {
			t.Errorf("standardize %v: scaler %v", std, s.Scaler())
		}
		self, err := s.Block(x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(self, s.Matrix(), 1e-15) {
			t.Errorf("standardize %v: the training objects as new ones:\n%v\nwant\n%v", std, mat.Formatted(self), mat.Formatted(s.Matrix()))
		}
		xs, zs := mat.DenseCopyOf(x), mat.DenseCopyOf(z)
		if std {
			for j := 0; j < 2; j++ {
				mean, sq := 0.0, 0.0
				for i := 0; i < 4; i++ {
					mean += x.At(i, j) / 4
				}
				for i := 0; i < 4; i++ {
					sq += (x.At(i, j) - mean) * (x.At(i, j) - mean) / 4
				}
				sd := math.Sqrt(sq)
				for i := 0; i < 4; i++ {
					xs.Set(i, j, (x.At(i, j)-mean)/sd)
				}
				for i := 0; i < 2; i++ {
					zs.Set(i, j, (z.At(i, j)-mean)/sd)
				}
			}
		}
		got, err := s.Block(z)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			for j := 0; j < 4; j++ {
				if want := g.Eval(zs.RawRowView(i), xs.RawRowView(j)); math.Abs(got.At(i, j)-want) > 1e-12 {
					t.Errorf("standardize %v: k(z%d, x%d) = %v, want %v", std, i, j, got.At(i, j), want)
				}
			}
		}
		if _, err := s.Block(mat.NewDense(1, 3, nil)); !errors.Is(err, learn.ErrShape) {
			t.Errorf("standardize %v: 3 features for 2: %v", std, err)
		}
	}
}

// TestNewSideRefuses: a side needs objects and a kernel, at least one
// object, and a precomputed kernel matrix that is square and not to be
// standardized.
func TestNewSideRefuses(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	for _, tc := range []struct {
		name string
		x    mat.Matrix
		k    kernel.Kernel
		std  bool
	}{
		{"no objects", nil, kernel.Linear{}, false},
		{"no kernel", x, nil, false},
		{"neither", nil, nil, false},
		{"precomputed, not square", mat.NewDense(2, 3, nil), kernel.Precomputed{}, false},
		{"precomputed, standardized", x, kernel.Precomputed{}, true},
	} {
		if s, err := NewSide(tc.x, tc.k, tc.std); !errors.Is(err, learn.ErrShape) || s != nil {
			t.Errorf("%s: %v %v", tc.name, s, err)
		}
	}
	if s, err := NewSide(x, kernel.Precomputed{}, false); err != nil || s.Len() != 2 || s.Width() != 2 {
		t.Errorf("precomputed 2×2: %v", err)
	}
}
