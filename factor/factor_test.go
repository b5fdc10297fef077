package factor

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/sysmem"
	"github.com/rlskit/rlskit/kernel"
)

func randX(rng *rand.Rand, m, d int) *mat.Dense {
	x := mat.NewDense(m, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return x
}

func maxDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	out := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out = math.Max(out, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return out
}

// reconstruct returns U diag(E) Uᵀ.
func reconstruct(f *Factor) *mat.Dense {
	ue := mat.DenseCopyOf(f.U)
	m, r := ue.Dims()
	for i := 0; i < m; i++ {
		for k := 0; k < r; k++ {
			ue.Set(i, k, ue.At(i, k)*f.E[k])
		}
	}
	var out mat.Dense
	out.Mul(ue, f.U.T())
	return &out
}

func TestFactorsReconstructTheKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randX(rng, 30, 4)
	g := kernel.Gaussian{Gamma: 0.25}
	k, _ := g.Block(x, x)
	dual, err := Build(x, g, Request{Form: Dual})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(reconstruct(dual.Factor), k); d > 1e-12 {
		t.Errorf("dual: ‖UEUᵀ − K‖ = %g", d)
	}
	lin, err := Build(x, kernel.Linear{Bias: 2}, Request{Auto: true})
	if err != nil {
		t.Fatal(err)
	}
	kl, _ := kernel.Linear{Bias: 2}.Block(x, x)
	if lin.Form != Linear || maxDiff(reconstruct(lin.Factor), kl) > 1e-11 {
		t.Errorf("linear: form %v, error %g", lin.Form, maxDiff(reconstruct(lin.Factor), kl))
	}
	basis := []int{0, 3, 7, 12, 20}
	sp, err := Build(x, g, Request{Auto: true, Basis: basis})
	if err != nil {
		t.Fatal(err)
	}
	// Nyström: K̃ = K_{·B} K_BB⁻¹ K_{B·}; and K_{·B} = U diag(S) G, GᵀG = K_BB
	kb, _ := g.Block(x, kernel.Rows(x, basis))
	kbb, _ := g.Block(kernel.Rows(x, basis), kernel.Rows(x, basis))
	var inv, tmp, ny mat.Dense
	if err := inv.Inverse(kbb); err != nil {
		t.Fatal(err)
	}
	tmp.Mul(kb, &inv)
	ny.Mul(&tmp, kb.T())
	if d := maxDiff(reconstruct(sp.Factor), &ny); d > 1e-9 {
		t.Errorf("sparse: ‖UEUᵀ − K_B K_BB⁻¹ K_Bᵀ‖ = %g", d)
	}
	us := mat.DenseCopyOf(sp.U)
	for i := 0; i < 30; i++ {
		for k := range sp.S {
			us.Set(i, k, us.At(i, k)*sp.S[k])
		}
	}
	var kbRec, gtg mat.Dense
	kbRec.Mul(us, sp.G)
	gtg.Mul(sp.G.T(), sp.G)
	if maxDiff(&kbRec, kb) > 1e-10 || maxDiff(&gtg, kbb) > 1e-10 {
		t.Errorf("sparse G: %g, %g", maxDiff(&kbRec, kb), maxDiff(&gtg, kbb))
	}
}

func TestFactorErrors(t *testing.T) {
	if _, err := NewDual(mat.NewDense(2, 2, []float64{1, 2, 0, 1})); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("asymmetric: %v", err)
	}
	if _, err := NewDual(mat.NewDense(2, 3, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("not square: %v", err)
	}
	if _, err := NewSparse(mat.NewDense(2, 3, nil), mat.NewDense(3, 3, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("more basis than rows: %v", err)
	}
	x := randX(rand.New(rand.NewPCG(2, 2)), 5, 2)
	for _, b := range [][]int{{}, {0, 0}, {5}, {-1}} {
		if _, err := Build(x, kernel.Gaussian{Gamma: 1}, Request{Form: Sparse, Basis: b}); !errors.Is(err, ErrBasis) {
			t.Errorf("basis %v: %v", b, err)
		}
	}
	if _, err := Build(x, kernel.Gaussian{Gamma: 1}, Request{Form: Linear}); err == nil {
		t.Error("linear form with a gaussian kernel")
	}
}

// A dual form that cannot fit is refused before the m×m kernel matrix is
// allocated, with the estimate in the message.
func TestDualRefusesBeyondMemory(t *testing.T) {
	if _, ok := sysmem.Available(); !ok {
		t.Skip("available memory unknown on this system")
	}
	x := mat.NewDense(1_000_000, 1, nil) // 8 MB of data; its kernel matrix would be 8 TB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Build(x, kernel.Gaussian{Gamma: 1}, Request{Form: Dual})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "GiB") {
		t.Fatalf("err = %v, want ErrMemory with the estimate", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("allocated %d bytes before refusing", grew)
	}
	if err := CheckMemory(100, DualPeak); err != nil {
		t.Errorf("100 rows refused: %v", err)
	}
}
