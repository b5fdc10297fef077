package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randDense returns an r×c matrix with standard normal entries.
func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := mat.NewDense(r, c, nil)
	for i := range d.RawMatrix().Data {
		d.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return d
}

// randOrthogonal returns a random n×n orthogonal matrix (Q of a QR factorization).
func randOrthogonal(rng *rand.Rand, n int) *mat.Dense {
	var qr mat.QR
	qr.Factorize(randDense(rng, n, n))
	var q mat.Dense
	qr.QTo(&q)
	return &q
}

// withSpectrum returns Q diag(ev) Qᵀ for a random orthogonal Q.
func withSpectrum(rng *rand.Rand, ev []float64) *mat.Dense {
	n := len(ev)
	q := randOrthogonal(rng, n)
	qd := mat.DenseCopyOf(q)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			qd.Set(i, j, q.At(i, j)*ev[j])
		}
	}
	var a mat.Dense
	a.Mul(qd, q.T())
	// exact symmetry
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a.Set(j, i, a.At(i, j))
		}
	}
	return &a
}

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

func TestEigSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 60, 150} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ev := make([]float64, n)
			for i := range ev {
				ev[i] = float64(n-i) - float64(n)/3 // distinct, some negative, unsorted
			}
			a := withSpectrum(rng, ev)
			orig := mat.DenseCopyOf(a)
			w, v, err := EigSym(a)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(a, orig) {
				t.Fatal("EigSym modified its input")
			}
			for i := 1; i < n; i++ {
				if w[i] < w[i-1] {
					t.Fatalf("eigenvalues not ascending: %v", w)
				}
			}
			for i := range w {
				want := float64(i+1) - float64(n)/3
				if math.Abs(w[i]-want) > 1e-10*float64(n) {
					t.Errorf("w[%d] = %v, want %v", i, w[i], want)
				}
			}
			var vtv mat.Dense
			vtv.Mul(v.T(), v)
			if d := maxAbsDiff(&vtv, eye(n)); d > 1e-12*float64(n) {
				t.Errorf("VᵀV − I = %g", d)
			}
			if d := maxAbsDiff(reconstruct(v, w, v), a); d > 1e-12*float64(n) {
				t.Errorf("‖VΛVᵀ − A‖ = %g", d)
			}
		})
	}
}

func TestEigSymShape(t *testing.T) {
	if _, _, err := EigSym(mat.NewDense(2, 3, nil)); !errors.Is(err, ErrShape) {
		t.Fatalf("err = %v, want ErrShape", err)
	}
	if _, err := Cholesky(mat.NewDense(2, 3, nil)); !errors.Is(err, ErrShape) {
		t.Fatalf("err = %v, want ErrShape", err)
	}
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		d.Set(i, i, 1)
	}
	return d
}

// reconstruct returns U diag(s) Vᵀ.
func reconstruct(u *mat.Dense, s []float64, v *mat.Dense) *mat.Dense {
	us := mat.DenseCopyOf(u)
	r, c := us.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			us.Set(i, j, us.At(i, j)*s[j])
		}
	}
	var out mat.Dense
	out.Mul(us, v.T())
	return &out
}

func TestSVD(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][2]int{{1, 1}, {5, 3}, {3, 5}, {80, 20}, {20, 80}, {40, 40}} {
		m, n := sh[0], sh[1]
		t.Run(fmt.Sprintf("%dx%d", m, n), func(t *testing.T) {
			a := randDense(rng, m, n)
			orig := mat.DenseCopyOf(a)
			u, s, v, err := SVD(a)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(a, orig) {
				t.Fatal("SVD modified its input")
			}
			k := min(m, n)
			if ur, uc := u.Dims(); ur != m || uc != k {
				t.Fatalf("U is %d×%d", ur, uc)
			}
			if vr, vc := v.Dims(); vr != n || vc != k {
				t.Fatalf("V is %d×%d", vr, vc)
			}
			for i := 1; i < k; i++ {
				if s[i] > s[i-1] {
					t.Fatalf("singular values not descending: %v", s)
				}
			}
			var utu, vtv mat.Dense
			utu.Mul(u.T(), u)
			vtv.Mul(v.T(), v)
			if d := maxAbsDiff(&utu, eye(k)); d > 1e-12 {
				t.Errorf("UᵀU − I = %g", d)
			}
			if d := maxAbsDiff(&vtv, eye(k)); d > 1e-12 {
				t.Errorf("VᵀV − I = %g", d)
			}
			if d := maxAbsDiff(reconstruct(u, s, v), a); d > 1e-12*float64(m+n) {
				t.Errorf("‖USVᵀ − A‖ = %g", d)
			}
		})
	}
}

func TestCholeskyAndSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 30
	b := randDense(rng, n, n)
	a := Syrk(false, b)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+1)
	}
	l, err := Cholesky(a)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if l.At(i, j) != 0 {
				t.Fatalf("L[%d,%d] = %v, want 0", i, j, l.At(i, j))
			}
		}
	}
	var llt mat.Dense
	llt.Mul(l, l.T())
	if d := maxAbsDiff(&llt, a); d > 1e-10 {
		t.Errorf("‖LLᵀ − A‖ = %g", d)
	}
	rhs := randDense(rng, n, 3)
	x, err := SolveSPD(a, rhs)
	if err != nil {
		t.Fatal(err)
	}
	var ax mat.Dense
	ax.Mul(a, x)
	if d := maxAbsDiff(&ax, rhs); d > 1e-9 {
		t.Errorf("‖AX − B‖ = %g", d)
	}
	// right-hand triangular solve: X Lᵀ = B
	xr := mat.DenseCopyOf(rhs.T())
	SolveLowerRight(l, true, xr)
	var xl mat.Dense
	xl.Mul(xr, l.T())
	if d := maxAbsDiff(&xl, rhs.T()); d > 1e-9 {
		t.Errorf("‖X Lᵀ − B‖ = %g", d)
	}

	neg := mat.NewDense(2, 2, []float64{1, 2, 2, 1})
	if _, err := Cholesky(neg); !errors.Is(err, ErrNotPosDef) {
		t.Errorf("Cholesky of indefinite matrix: err = %v, want ErrNotPosDef", err)
	}
}

func TestGemmSyrk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := randDense(rng, 7, 4)
	b := randDense(rng, 4, 5)
	cases := []struct {
		name   string
		ta, tb bool
		x, y   *mat.Dense
		want   mat.Matrix
	}{
		{"NN", false, false, a, b, nil},
		{"TN", true, false, mat.DenseCopyOf(a.T()), b, nil},
		{"NT", false, true, a, mat.DenseCopyOf(b.T()), nil},
		{"TT", true, true, mat.DenseCopyOf(a.T()), mat.DenseCopyOf(b.T()), nil},
	}
	var want mat.Dense
	want.Mul(a, b)
	for _, c := range cases {
		got := Mul(c.ta, c.tb, c.x, c.y)
		if d := maxAbsDiff(got, &want); d > 1e-13 {
			t.Errorf("%s: diff %g", c.name, d)
		}
	}
	// beta accumulation
	cm := mat.DenseCopyOf(&want)
	Gemm(false, false, 2, a, b, -1, cm)
	if d := maxAbsDiff(cm, &want); d > 1e-13 {
		t.Errorf("2AB − AB: diff %g", d)
	}
	var aat, ata mat.Dense
	aat.Mul(a, a.T())
	ata.Mul(a.T(), a)
	if d := maxAbsDiff(Syrk(false, a), &aat); d > 1e-13 {
		t.Errorf("Syrk AAᵀ diff %g", d)
	}
	if d := maxAbsDiff(Syrk(true, a), &ata); d > 1e-13 {
		t.Errorf("Syrk AᵀA diff %g", d)
	}
}
