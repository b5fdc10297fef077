package pairwise

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
)

// pathLambdas run the setting-A path from 10⁻⁶ to 10⁴, out of order and
// with a repeat, so that a buffer left over from an earlier λ shows.
var pathLambdas = []float64{1e-6, 1e4, 1e-2, 1, 1e-4, 1e2, 1e-2, 10}

// classPath is the accuracy class of the path against retraining, reported
// apart: its λ reach 10⁻⁶, where the bound below is far above tol.
const classPath = "setting A path vs retraining, λ 1e-6…1e4 (its bound, pathBound)"

// pathBound is the relative agreement of setting A's predictions P with
// retraining that the conditioning allows. Both solve with G⊗K + λI, whose
// condition number is κ = (max|e|·max|s| + λ)/λ (KronSolution.Conditioning).
// The shortcut goes through the two eigendecompositions, backward stable
// with error O(m·ε·‖K‖) and O(q·ε·‖G‖), which the inverse amplifies by at
// most κ, in R and in diag(𝒜) alike; and it forms P = Y − R ⊘ diag(𝒜) as a
// difference, whose absolute error is that relative error times
// ‖Y‖ + ‖R ⊘ diag(𝒜)‖ = ‖Y‖ + ‖Y − P‖ — large against ‖P‖ at large λ,
// where the model shrinks P towards 0. Hence
//
//	‖ΔP‖/‖P‖ ≤ c·(m + q)·ε·κ·(‖Y‖ + ‖Y − P‖)/‖P‖,
//
// with c = 8 for the O(·) (Frobenius norms). The brute force refines its
// solve to full accuracy.
func pathBound(s *KronSolution, y, p *mat.Dense) float64 {
	m, q := s.k.lab.m, s.k.lab.q
	var d mat.Dense
	d.Sub(y, p)
	amp := (mat.Norm(y, 2) + mat.Norm(&d, 2)) / mat.Norm(p, 2)
	return 8 * float64(m+q) * 0x1p-52 * s.Conditioning() * amp
}

// TestLeavePairOutPath holds setting A along a λ grid (CrossValidate's
// path: buffers reused from λ to λ) to Solve and LeaveOneOutMatrix at each
// λ — the same values, bit for bit, since the path forms the same products
// in the same order — and both to retraining without each pair in turn on
// the explicit pairwise kernel matrix, within pathBound, for every kernel,
// m < q, m > q and m = q, λ from 10⁻⁶ to 10⁴.
func TestLeavePairOutPath(t *testing.T) {
	for _, kc := range kernelCases {
		for _, sh := range shapes {
			rng := rand.New(rand.NewPCG(uint64(sh[0])+7, uint64(sh[1])))
			rows, cols := randSides(t, rng, sh[0], sh[1], kc.k)
			pairs, y := gridLabels(rng, rows, cols)
			k, err := FitKron(rows, cols, pairs, y, Options{})
			if err != nil {
				t.Fatal(err)
			}
			grid := labelGrid(sh[0], sh[1], pairs, y, Heterogeneous)
			all := allPairs(sh[0], sh[1])
			n := 0
			err = k.CrossValidate(Design{Setting: Pairs}, pathLambdas, func(i int, p *mat.Dense) error {
				lambda := pathLambdas[i]
				name := fmt.Sprintf("%s/%s/λ=%g", kc.name, shapeName(sh), lambda)
				if i != n {
					t.Fatalf("%s: visit %d, want %d", name, i, n)
				}
				n++
				s, err := k.Solve(lambda)
				if err != nil {
					return err
				}
				want, err := s.LeaveOneOutMatrix()
				if err != nil {
					return err
				}
				if !sameValues(mat.DenseCopyOf(p).RawMatrix().Data, want.RawMatrix().Data) {
					e, _ := matRelErr(p, want)
					t.Errorf("%s: the path differs from Solve and LeaveOneOutMatrix by %.3g relative", name, e)
				}
				brute := make([]float64, len(all))
				for c, pr := range all {
					brute[c] = bruteKronGrid(rows, cols, grid, func(i, j int) bool { return i != pr.Row || j != pr.Col }, []Pair{pr}, lambda)[0]
				}
				e, err := relErr(pickPairs(p, all), brute)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				agreeAs(t, classPath, name, e, pathBound(s, grid, p))
				return nil
			})
			if err != nil || n != len(pathLambdas) {
				t.Fatalf("%s/%s: %d λ visited, %v", kc.name, shapeName(sh), n, err)
			}
		}
	}
}

// TestLeavePairOutPathDesign: through CrossValidateDesign, pairs given in
// row-major order (the n×1 predictions are then a view of the path's
// buffer) and shuffled (picked one by one) get exactly LeaveOneOut's values
// in their order at every λ; the row-major view is used only when the
// pairs are in that order.
func TestLeavePairOutPathDesign(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	rows, cols := randSides(t, rng, 5, 8, kernel.Gaussian{Gamma: 0.5})
	shuffled, ys := gridLabels(rng, rows, cols)
	grid := labelGrid(5, 8, shuffled, ys, Heterogeneous)
	ordered := allPairs(5, 8)
	yo := pickPairs(grid, ordered)
	for _, tc := range []struct {
		name     string
		pairs    []Pair
		y        []float64
		rowMajor bool
	}{{"row-major", ordered, yo, true}, {"shuffled", shuffled, ys, false}} {
		k, err := FitKron(rows, cols, tc.pairs, tc.y, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if k.lab.rowMajor != tc.rowMajor {
			t.Errorf("%s: rowMajor %v", tc.name, k.lab.rowMajor)
		}
		got := designRuns(t, k, learn.Design{Setting: "pairs"}, pathLambdas, nil)
		for i, lambda := range pathLambdas {
			s, _ := k.Solve(lambda)
			want, err := s.LeaveOneOut()
			if err != nil {
				t.Fatal(err)
			}
			if !sameValues(got[i][0].RawMatrix().Data, want.RawMatrix().Data) {
				t.Errorf("%s λ=%g: design predictions differ from LeaveOneOut's", tc.name, lambda)
			}
		}
	}
}

// TestLeavePairOutPathIndefinite: a kernel with a negative eigenvalue makes
// e_k s_l + λ ≤ 0 at a small enough λ; the path stops there with the error
// Solve gives (learn.ErrIndefinite), after visiting the λ before it: the
// first such entry in row-major order — the rows' eigenvalues are −1, 1, 3
// and the columns' −1, 2, so at λ = 1.5 row 0 fails at column 1 (product
// −2) and row 2 at column 0 (product −3).
func TestLeavePairOutPathIndefinite(t *testing.T) {
	km := mat.NewDense(3, 3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}) // eigenvalues −1, 1, 3
	rows, err := NewSide(km, kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	gm := mat.NewDense(2, 2, []float64{0.5, 1.5, 1.5, 0.5}) // eigenvalues −1, 2
	cols, err := NewSide(gm, kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	pairs := allPairs(3, 2)
	k, err := FitKron(rows, cols, pairs, []float64{1, 2, 3, 4, 5, 6}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, wantErr := k.Solve(1.5)
	visited := 0
	err = k.CrossValidate(Design{Setting: Pairs}, []float64{5, 1.5, 10}, func(int, *mat.Dense) error { visited++; return nil })
	if !errors.Is(err, learn.ErrIndefinite) || wantErr == nil || err.Error() != wantErr.Error() || visited != 1 {
		t.Errorf("error %v (Solve: %v), %d visited; want Solve's error after 1", err, wantErr, visited)
	}
	stop := errors.New("stop")
	if err := k.CrossValidate(Design{Setting: Pairs}, []float64{5, 10}, func(int, *mat.Dense) error { return stop }); err != stop {
		t.Errorf("visit's error: got %v", err)
	}
}

// TestCellIndexForms: newLabels gives the same observations, label grid,
// completeness, row-major flag and errors with its cell index as a dense
// table and as a map, on drawn pair lists — complete grids in order and
// shuffled, incomplete ones, repeated pairs, mirrored pairs that agree or
// contradict, indices out of range — for the three symmetries.
func TestCellIndexForms(t *testing.T) {
	defer func(a, b int) { denseCellsPerPair, denseCellsMin = a, b }(denseCellsPerPair, denseCellsMin)
	rng := rand.New(rand.NewPCG(8, 1))
	for trial := 0; trial < 400; trial++ {
		sym := Symmetry(trial % 3)
		m := 1 + rng.IntN(6)
		q := m
		if sym == Heterogeneous {
			q = 1 + rng.IntN(6)
		}
		var pairs []Pair
		var y []float64
		for i := 0; i < m; i++ {
			for j := 0; j < q; j++ {
				if sym != Heterogeneous && j < i || rng.IntN(8) == 0 && trial%4 != 0 {
					continue
				}
				v := float64(rng.IntN(3))
				if sym == Antisymmetric && i == j {
					v = 0
				}
				pairs = append(pairs, Pair{i, j})
				y = append(y, v)
			}
		}
		switch rng.IntN(6) {
		case 0: // a repeat
			if len(pairs) > 0 {
				c := rng.IntN(len(pairs))
				pairs, y = append(pairs, pairs[c]), append(y, y[c])
			}
		case 1: // a mirror, agreeing or not
			if len(pairs) > 0 {
				c := rng.IntN(len(pairs))
				pairs, y = append(pairs, Pair{pairs[c].Col, pairs[c].Row}), append(y, float64(rng.IntN(3)-1))
			}
		case 2: // out of range
			pairs, y = append(pairs, Pair{m, 0}), append(y, 1)
		case 3:
			rng.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a]; y[a], y[b] = y[b], y[a] })
		}
		if len(pairs) == 0 {
			continue
		}
		denseCellsPerPair, denseCellsMin = 8, 1<<20
		dense, derr := newLabels(m, q, pairs, y, sym)
		denseCellsPerPair, denseCellsMin = 0, 0
		sparse, serr := newLabels(m, q, pairs, y, sym)
		name := fmt.Sprintf("trial %d, %s %d×%d, %v", trial, sym, m, q, pairs)
		if (derr == nil) != (serr == nil) || derr != nil && derr.Error() != serr.Error() {
			t.Fatalf("%s: errors %v and %v", name, derr, serr)
		}
		if derr != nil {
			continue
		}
		if fmt.Sprint(dense.obs, dense.obsY) != fmt.Sprint(sparse.obs, sparse.obsY) || dense.complete != sparse.complete ||
			dense.rowMajor != sparse.rowMajor || (dense.full == nil) != (sparse.full == nil) ||
			dense.full != nil && !mat.Equal(dense.full, sparse.full) {
			t.Fatalf("%s: dense and map forms differ", name)
		}
		want := dense.complete && len(pairs) == m*q
		for i, p := range pairs {
			want = want && p == Pair{i / q, i % q}
		}
		if dense.rowMajor != want {
			t.Fatalf("%s: rowMajor %v", name, dense.rowMajor)
		}
	}
	denseCellsPerPair, denseCellsMin = 8, 1<<20
	// a grid too large for a table: a map, and still O(n) memory
	if c := newCellIndex(1<<20, 1<<20, 10, 10); c.dense != nil || c.sparse == nil {
		t.Error("a 2⁴⁰-cell grid for 10 pairs got a dense table")
	}
	if c := newCellIndex(300, 1000, 300000, 300000); c.dense == nil {
		t.Error("a complete 300×1000 grid got a map")
	}
	if c := newCellIndex(2, 2, 4, math.MaxInt32); c.dense != nil {
		t.Error("values beyond int32 got a dense table")
	}
}

// TestProblemWith: the method's fits share the labels checkPairInput built,
// and problemWith refuses labels built for other sides or another symmetry
// (learn.ErrShape) rather than train on them.
func TestProblemWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	rows, cols := randSides(t, rng, 3, 4, kernel.Gaussian{Gamma: 0.5})
	pairs, y := gridLabels(rng, rows, cols)
	lab, err := newLabels(3, 4, pairs, y, Heterogeneous)
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := problemWith(rows, cols, lab, Options{}); err != nil || pr.lab != lab {
		t.Errorf("matching labels: %v", err)
	}
	square, err := newLabels(3, 3, allPairs(3, 3), make([]float64, 9), Heterogeneous)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		rows, cols *Side
		lab        *labels
		opt        Options
	}{
		"sides swapped": {cols, rows, lab, Options{}},
		// the same sizes, labels of two sets of objects for one
		"other symmetry": {rows, nil, square, Options{Symmetry: Symmetric}},
	} {
		if _, err := problemWith(tc.rows, tc.cols, tc.lab, tc.opt); !errors.Is(err, learn.ErrShape) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLeavePairOutPathStreams: pairPath in one, two and three streams (and
// CrossValidate, in the streams the library's threads give), where each
// stream writes its next λ's filter while visit holds the predictions it
// handed over. Along a grid out of order with repeats, on objects large
// enough for the work to overlap, every visit comes in grid order on the
// caller's goroutine, finds its buffer unchanged from entry to return
// (visit yields and sleeps in between, so a filter written into it would
// show) and gets Solve's and LeaveOneOutMatrix's values at its λ bit for
// bit (one λ at a time, the serial form); a visit's error at λ_i ends the
// path with that error after i + 1 visits; an indefinite filter at λ_i
// ends it after i visits, but not before visit's own error at λ_{i−1};
// no stream outlives the path. Run with -race for the buffers.
func TestLeavePairOutPathStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	rows, cols := randSides(t, rng, 40, 70, kernel.Gaussian{Gamma: 0.5})
	pairs, y := gridLabels(rng, rows, cols)
	k, err := FitKron(rows, cols, pairs, y, Options{})
	if err != nil {
		t.Fatal(err)
	}
	km := mat.NewDense(3, 3, []float64{1, 2, 0, 2, 1, 0, 0, 0, 1}) // eigenvalues −1, 1, 3
	ind, err := NewSide(km, kernel.Precomputed{}, false)
	if err != nil {
		t.Fatal(err)
	}
	ki, err := FitKron(ind, ind, allPairs(3, 3), []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ki.Solve(1.5); !errors.Is(err, learn.ErrIndefinite) {
		t.Fatalf("λ = 1.5: %v, want an indefinite filter", err)
	}
	// the goroutines before: counted after a first path (the runtime's own,
	// under -race say, started then)
	if err := k.pairPath(pathLambdas[:2], 2, func(int, *mat.Dense) error { return nil }); err != nil {
		t.Fatal(err)
	}
	caller, base := goroutineID(), runtime.NumGoroutine()
	for _, streams := range []int{1, 2, 3, 0} {
		name := fmt.Sprintf("%d streams", streams)
		path := func(k *KronRLS, grid []float64, visit func(int, *mat.Dense) error) error {
			return k.pairPath(grid, streams, visit)
		}
		if streams == 0 {
			name = "CrossValidate"
			path = func(k *KronRLS, grid []float64, visit func(int, *mat.Dense) error) error {
				return k.CrossValidate(Design{Setting: Pairs}, grid, visit)
			}
		}
		visited := 0
		err = path(k, pathLambdas, func(i int, p *mat.Dense) error {
			if i != visited {
				t.Errorf("%s: visit of λ %d, want %d", name, i, visited)
			}
			visited++
			if id := goroutineID(); id != caller {
				t.Errorf("%s, λ=%g: visit on goroutine %d, the caller's is %d", name, pathLambdas[i], id, caller)
			}
			at := mat.DenseCopyOf(p)
			for range 3 {
				runtime.Gosched()
				time.Sleep(time.Millisecond)
			}
			if !sameValues(at.RawMatrix().Data, p.RawMatrix().Data) {
				t.Errorf("%s, λ=%g: the predictions changed during the visit", name, pathLambdas[i])
			}
			s, err := k.Solve(pathLambdas[i])
			if err != nil {
				return err
			}
			want, err := s.LeaveOneOutMatrix()
			if err != nil {
				return err
			}
			if !sameValues(at.RawMatrix().Data, want.RawMatrix().Data) {
				t.Errorf("%s, λ=%g: the path differs from Solve and LeaveOneOutMatrix", name, pathLambdas[i])
			}
			return nil
		})
		if err != nil || visited != len(pathLambdas) {
			t.Fatalf("%s: %d of %d λ visited, %v", name, visited, len(pathLambdas), err)
		}
		stop := errors.New("stop")
		for _, at := range []int{0, 3, len(pathLambdas) - 1} {
			visited = 0
			err := path(k, pathLambdas, func(i int, _ *mat.Dense) error {
				visited++
				if i == at {
					return stop
				}
				return nil
			})
			if err != stop || visited != at+1 {
				t.Errorf("%s, stop at λ %d: %d visited, error %v", name, at, visited, err)
			}
		}
		for _, grid := range [][]float64{{1.5}, {5, 1.5, 10}, {5, 10, 1.5, 1.5}} {
			visited = 0
			err := path(ki, grid, func(int, *mat.Dense) error { visited++; return nil })
			want := slices.Index(grid, 1.5)
			if !errors.Is(err, learn.ErrIndefinite) || visited != want {
				t.Errorf("%s, %v: %d visited, error %v; want the indefinite filter after %d", name, grid, visited, err, want)
			}
			visited = 0
			err = path(ki, grid, func(i int, _ *mat.Dense) error {
				visited++
				if i == want-1 {
					return stop
				}
				return nil
			})
			if want > 0 && (err != stop || visited != want) {
				t.Errorf("%s, %v: %d visited, error %v; want visit's error after %d", name, grid, visited, err, want)
			}
		}
		n := runtime.NumGoroutine()
		for wait := 0; n > base && wait < 100; wait++ { // a stream that is done may not have exited yet
			time.Sleep(10 * time.Millisecond)
			n = runtime.NumGoroutine()
		}
		if n > base {
			t.Errorf("%s: %d goroutines a second after the paths returned, %d before", name, n, base)
		}
	}
}

// goroutineID is the running goroutine's number (from its stack header).
func goroutineID() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	var id int
	fmt.Sscanf(string(buf), "goroutine %d ", &id)
	return id
}
