package factor

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/progress"
)

// TestBuildAnnouncesPhases checks that Build tells its observer of each long
// step, in order, with sizes and a positive estimate.
func TestBuildAnnouncesPhases(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{1, 2, 3, 1, 0, 2, 2, 2, 1, 0, 4, 1})
	gauss, _ := kernel.New(kernel.Spec{Name: "gaussian", Gamma: 0.5})
	lin, _ := kernel.New(kernel.Spec{Name: "linear", Bias: 1})
	for _, tc := range []struct {
		name string
		k    kernel.Kernel
		req  Request
		want []string
	}{
		{"dual", gauss, Request{Form: Dual}, []string{"kernel matrix 6×6", "eigendecomposition m = 6"}},
		{"linear", lin, Request{Form: Linear}, []string{"thin SVD 6×3"}},
		{"sparse", gauss, Request{Form: Sparse, Basis: []int{0, 3}}, []string{"kernel matrix 6×2", "basis factorization m = 6, n = 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tc.req.Observe = func(p progress.Event) {
				if p.Estimate <= 0 {
					t.Errorf("%s: estimate %v", p.Stage, p.Estimate)
				}
				got = append(got, p.Stage+" "+p.Size)
			}
			if _, err := Build(x, tc.k, tc.req); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("phases %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("phase %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}
