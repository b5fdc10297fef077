//go:build !openblas

package linalg

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// loaded returns the run-time library, skipping when none is installed (the
// pure-Go path is then what every other test exercises).
func loaded(t *testing.T) *dynLib {
	t.Helper()
	l := load()
	if l == nil {
		t.Skipf("no BLAS/LAPACK loaded (%s): tried %v", os.Getenv("RLSKIT_LAPACK"), Info().Tried)
	}
	return l
}

func relDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) / math.Max(1, mat.Norm(b, math.Inf(1)))
}

// The run-time library agrees with pure Go to 1e-10: eigendecomposition (by
// reconstruction and eigenvalues), thin SVD (reconstruction, singular values),
// Cholesky.
func TestDynLAPACKAgreesWithGonum(t *testing.T) {
	l := loaded(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 64, 150} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			b := randDense(rng, n, n)
			var a mat.Dense
			a.Mul(b, b.T())
			for i := 0; i < n; i++ {
				a.Set(i, i, a.At(i, i)+1)
			}
			// eigendecomposition
			v := mat.DenseCopyOf(&a)
			w := make([]float64, n)
			if err := eigSymDyn(l, v.RawMatrix(), w); err != nil {
				t.Fatal(err)
			}
			vg := mat.DenseCopyOf(&a)
			wg := make([]float64, n)
			if err := eigSymGonum(vg.RawMatrix(), wg); err != nil {
				t.Fatal(err)
			}
			for k := range w {
				if math.Abs(w[k]-wg[k]) > 1e-10*math.Max(1, math.Abs(wg[k])) {
					t.Errorf("eigenvalue %d: %v vs %v", k, w[k], wg[k])
				}
			}
			var rec mat.Dense
			rec.Mul(ScaleCols(v, w), v.T())
			if e := relDiff(&rec, &a); e > 1e-10 {
				t.Errorf("VΛVᵀ − A: %.2e", e)
			}
			// Cholesky
			c := mat.DenseCopyOf(&a)
			if !potrfLowerDyn(l, c.RawMatrix()) {
				t.Fatal("Cholesky failed")
			}
			lo := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					lo.Set(i, j, c.At(i, j))
				}
			}
			var llt mat.Dense
			llt.Mul(lo, lo.T())
			if e := relDiff(&llt, &a); e > 1e-10 {
				t.Errorf("LLᵀ − A: %.2e", e)
			}
		})
	}
	for _, sh := range [][2]int{{30, 7}, {7, 30}, {120, 40}} {
		m, n := sh[0], sh[1]
		a := randDense(rng, m, n)
		k := min(m, n)
		u, vt, s := mat.NewDense(m, k, nil), mat.NewDense(k, n, nil), make([]float64, k)
		if err := svdThinDyn(l, mat.DenseCopyOf(a).RawMatrix(), s, u.RawMatrix(), vt.RawMatrix()); err != nil {
			t.Fatal(err)
		}
		var rec mat.Dense
		rec.Mul(ScaleCols(u, s), vt)
		if e := relDiff(&rec, a); e > 1e-10 {
			t.Errorf("%d×%d: U S Vᵀ − A: %.2e", m, n, e)
		}
		sg, ug, vtg := make([]float64, k), mat.NewDense(m, k, nil), mat.NewDense(k, n, nil)
		if err := svdThinGonum(mat.DenseCopyOf(a).RawMatrix(), sg, ug.RawMatrix(), vtg.RawMatrix()); err != nil {
			t.Fatal(err)
		}
		for j := range s {
			if math.Abs(s[j]-sg[j]) > 1e-10*math.Max(1, sg[0]) {
				t.Errorf("%d×%d: singular value %d: %v vs %v", m, n, j, s[j], sg[j])
			}
		}
	}
}

// The Level-3 overrides equal gonum's own routines on row-major operands with
// every transposition, side and triangle, and strides wider than the columns.
func TestDynBLASAgreesWithGonum(t *testing.T) {
	l := loaded(t)
	d := dynBLAS{lib: l}
	var g gonum.Implementation
	rng := rand.New(rand.NewPCG(5, 6))
	// operands as views with a stride wider than their columns
	view := func(r, c int) []float64 {
		big := randDense(rng, r, c+3)
		out := make([]float64, r*(c+3))
		copy(out, big.RawMatrix().Data)
		return out
	}
	const m, n, k = 37, 45, 41
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ar, ac := m, k
			if tA == blas.Trans {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB == blas.Trans {
				br, bc = n, k
			}
			a, b, c := view(ar, ac), view(br, bc), view(m, n)
			c2 := append([]float64(nil), c...)
			d.Dgemm(tA, tB, m, n, k, 1.5, a, ac+3, b, bc+3, 0.5, c, n+3)
			g.Dgemm(tA, tB, m, n, k, 1.5, a, ac+3, b, bc+3, 0.5, c2, n+3)
			checkSame(t, fmt.Sprintf("gemm %c%c", tA, tB), c, c2)
		}
	}
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		for _, tt := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			ar, ac := n, k
			if tt == blas.Trans {
				ar, ac = k, n
			}
			a, c := view(ar, ac), view(n, n)
			c2 := append([]float64(nil), c...)
			d.Dsyrk(ul, tt, n, k, 0.7, a, ac+3, 1.25, c, n+3)
			g.Dsyrk(ul, tt, n, k, 0.7, a, ac+3, 1.25, c2, n+3)
			checkSame(t, fmt.Sprintf("syrk %c%c", ul, tt), c, c2)
		}
		for _, s := range []blas.Side{blas.Left, blas.Right} {
			na := m
			if s == blas.Right {
				na = n
			}
			a, b, c := view(na, na), view(m, n), view(m, n)
			c2 := append([]float64(nil), c...)
			d.Dsymm(s, ul, m, n, 0.9, a, na+3, b, n+3, 0.3, c, n+3)
			g.Dsymm(s, ul, m, n, 0.9, a, na+3, b, n+3, 0.3, c2, n+3)
			checkSame(t, fmt.Sprintf("symm %c%c", s, ul), c, c2)
			for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				tri := view(na, na)
				for i := 0; i < na; i++ {
					tri[i*(na+3)+i] += 10 // well conditioned
				}
				b := view(m, n)
				b2 := append([]float64(nil), b...)
				d.Dtrsm(s, ul, tA, blas.NonUnit, m, n, 2, tri, na+3, b, n+3)
				g.Dtrsm(s, ul, tA, blas.NonUnit, m, n, 2, tri, na+3, b2, n+3)
				checkSame(t, fmt.Sprintf("trsm %c%c%c", s, ul, tA), b, b2)
			}
		}
	}
	// through gonum/mat once the library is registered
	x, y := randDense(rng, 80, 60), randDense(rng, 60, 70)
	var got mat.Dense
	got.Mul(x, y)
	want := mat.NewDense(80, 70, nil)
	g.Dgemm(blas.NoTrans, blas.NoTrans, 80, 70, 60, 1, x.RawMatrix().Data, 60, y.RawMatrix().Data, 70, 0, want.RawMatrix().Data, 70)
	if e := relDiff(&got, want); e > 1e-12 {
		t.Errorf("mat.Mul through blas64: %.2e (registered: %T)", e, blas64.Implementation())
	}
}

func checkSame(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-10*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s: element %d: %v vs %v", what, i, got[i], want[i])
			return
		}
	}
}

// A missing library and a file that is not one fall back to pure Go with the
// reasons; the notice is written once.
func TestLoaderFallsBack(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "libjunk.so")
	if err := os.WriteFile(junk, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"/nonexistent/libopenblas.so.0", junk, "gonum"} {
		l, info := loadFrom(env, nil)
		if l != nil || info.Name != "gonum" || len(info.Tried) != 1 || !strings.Contains(info.Tried[0], env) {
			t.Errorf("RLSKIT_LAPACK=%s: lib %v, info %+v", env, l, info)
		}
	}
	if l, info := loadFrom("", []candidate{{name: "openblas", paths: []string{"/nonexistent/a.so", junk}}}); l != nil || len(info.Tried) != 2 {
		t.Errorf("search: lib %v, tried %v", l, info.Tried)
	}
}

func TestNoticeOnce(t *testing.T) {
	if load() != nil {
		t.Skip("a library is loaded: no notice (run with RLSKIT_LAPACK=gonum to test it)")
	}
	var buf bytes.Buffer
	SetNotice(&buf)
	defer SetNotice(nil)
	notice(NoticeSize - 1)
	notice(NoticeSize)
	notice(2 * NoticeSize)
	if strings.Count(buf.String(), "factorization runs in pure Go") != 1 || !strings.Contains(buf.String(), "libopenblas") {
		t.Errorf("notice: %q", buf.String())
	}
}

// The first use from many goroutines loads once and every call works (run
// under -race in CI).
func TestConcurrentFirstUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := randDense(rng, 40, 40)
	var s mat.Dense
	s.Mul(a, a.T())
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[g] = EigSym(&s)
			var p mat.Dense
			p.Mul(a, a)
			_ = Backend()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
