package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

func dti(name string) string { return filepath.Join("..", "..", "docs", "data", name) }

// dtiArgs are the common flags of the pairwise fits on the tutorial data.
func dtiArgs(learner string, extra ...string) []string {
	return append([]string{"fit", "--learner", learner, "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
		"--pairs", dti("dti-pairs.txt"), "--kernel", "gaussian", "--gamma", "0.015625", "--col-gamma", "0.05", "--standardize", "--quiet"}, extra...)
}

func decodePairFit(t *testing.T, stdout string) summary.Pair {
	t.Helper()
	var out summary.Pair
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v: %q", err, stdout)
	}
	return out
}

// readLines reads one float per line.
func readFloats(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, l := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// The CLI's CV value is the library's, and the four settings order as the
// data were made: A (known drug and target) ≥ B, C ≥ D (both new).
func TestPairwiseFitSettings(t *testing.T) {
	drugs, _ := dataset.ReadFile(dti("dti-drugs.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	targets, _ := dataset.ReadFile(dti("dti-targets.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	fh, _ := os.Open(dti("dti-pairs.txt"))
	pf, err := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 60, Cols: 40})
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := pairwise.NewSide(drugs.X, kernel.Gaussian{Gamma: 0.015625}, true)
	cs, _ := pairwise.NewSide(targets.X, kernel.Gaussian{Gamma: 0.05}, true)
	k, err := pairwise.FitKron(rs, cs, toPairs(pf), pf.Labels, pairwise.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := pairwise.FitTwoStep(rs, cs, toPairs(pf), pf.Labels, pairwise.Options{})
	y, rowOf := mat.NewDense(len(pf.Labels), 1, pf.Labels), pf.Rows
	ci, _ := measure.ByName("cindex")
	grid, colGrid := []float64{0.0625, 0.25, 1, 4}, []float64{0.25, 1}
	values := map[string]float64{}
	for _, learner := range []string{"kronrls", "twostep"} {
		for _, cvs := range []string{"pairs", "rows", "cols", "both", "rows:4", "both:3"} {
			args := dtiArgs(learner, "--lambda-grid", "0.0625,0.25,1,4", "--cv", cvs, "--measure", "cindex")
			if learner == "twostep" {
				args = append(args, "--col-lambda-grid", "0.25,1")
			}
			stdout, stderr, err := run(t, "", args...)
			if err != nil {
				t.Fatalf("%s %s: %v %s", learner, cvs, err, stderr)
			}
			out := decodePairFit(t, stdout)
			if out.Rows != 60 || out.Cols != 40 || out.Pairs != 2400 || !out.Complete || out.CV == nil || out.Form != "eigen" {
				t.Fatalf("%s %s: %+v", learner, cvs, out)
			}
			if learner == "twostep" && (out.ColLambda == 0 || len(out.CV.Curve) != 8) {
				t.Errorf("twostep: col_lambda %v, %d curve points", out.ColLambda, len(out.CV.Curve))
			}
			values[learner+" "+cvs] = out.CV.Best.Value
			// the learner's own cross-validation gives the same curve and best
			// point (the k-fold draws are the CLI's: compare leave-one-out only)
			if strings.Contains(cvs, ":") {
				continue
			}
			var lib []selection.Point
			if learner == "kronrls" {
				lib, err = pairCVCurve(k, cvs, grid, nil, ci, y, rowOf)
			} else {
				lib, err = pairCVCurve(ts, cvs, grid, colGrid, ci, y, rowOf)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(lib) != len(out.CV.Curve) {
				t.Fatalf("%s %s: CLI %d curve points, library %d", learner, cvs, len(out.CV.Curve), len(lib))
			}
			best := 0
			for n, pt := range lib {
				if c := out.CV.Curve[n]; c.Lambda != pt.Lambda || c.ColLambda != pt.ColLambda || math.Abs(c.Value-pt.Value) > 1e-12 {
					t.Errorf("%s %s: point %d: CLI %v at (%v, %v), library %v at (%v, %v)", learner, cvs, n, c.Value, c.Lambda, c.ColLambda, pt.Value, pt.Lambda, pt.ColLambda)
				}
				// strictly better, ties to the larger λ·λ_c (λ_c = 1 for Kronecker RLS)
				size := func(p selection.Point) float64 {
					if p.ColLambda == 0 {
						return p.Lambda
					}
					return p.Lambda * p.ColLambda
				}
				if b := lib[best]; ci.Better(pt.Value, b.Value) || (pt.Value == b.Value && size(pt) > size(b)) {
					best = n
				}
			}
			if b := lib[best]; math.Abs(b.Value-out.CV.Best.Value) > 1e-12 || b.Lambda != out.Lambda || b.ColLambda != out.ColLambda {
				t.Errorf("%s %s: CLI %v at (%v, %v), library %v at (%v, %v)", learner, cvs, out.CV.Best.Value, out.Lambda, out.ColLambda, b.Value, b.Lambda, b.ColLambda)
			}
			if want := map[string]string{"pairs": "A (pairs)", "rows": "B (rows)", "cols": "C (cols)", "both": "D (both)"}[cvs]; out.Setting != want {
				t.Errorf("setting %q, want %q", out.Setting, want)
			}
		}
		a, b, c, d := values[learner+" pairs"], values[learner+" rows"], values[learner+" cols"], values[learner+" both"]
		if !(a > b && a > c && b > d && c > d) {
			t.Errorf("%s: settings A %.3f B %.3f C %.3f D %.3f do not order A > B, C > D", learner, a, b, c, d)
		}
	}
}

// pairCVCurve cross-validates a learner of pairs by the design along the
// grids (CrossValidateDesign) and scores each point's CV predictions of the
// pairs exactly (selection.ScoreWithin without a tie tolerance), each pair's
// row object its query: the curve in the learner's order of the grid.
func pairCVCurve(l learn.DesignValidator, setting string, grid, colGrid []float64, meas measure.Measure, y *mat.Dense, rowOf []int) ([]selection.Point, error) {
	var curve []selection.Point
	err := l.CrossValidateDesign(learn.Design{Setting: setting}, grid, colGrid, func(i, j int, p *mat.Dense) error {
		pt := selection.Point{Lambda: grid[i]}
		if colGrid != nil {
			pt.ColLambda = colGrid[j]
		}
		v, _, err := selection.ScoreWithin(meas, y, p, rowOf, nil)
		pt.Value = v
		curve = append(curve, pt)
		return err
	})
	return curve, err
}

// fit --model then predict: training pairs, new drugs, and the library's model agree.
func TestPairwisePredict(t *testing.T) {
	dir := t.TempDir()
	mpath := filepath.Join(dir, "m.json")
	cvpath := filepath.Join(dir, "cv.tsv")
	if _, stderr, err := run(t, "", dtiArgs("kronrls", "--lambda", "0.125", "--cv", "rows", "--model", mpath, "--cv-predictions", cvpath)...); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	drugs, _ := dataset.ReadFile(dti("dti-drugs.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	targets, _ := dataset.ReadFile(dti("dti-targets.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	newDrugs, _ := dataset.ReadFile(dti("dti-drugs-new.csv"), "csv", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	fh, _ := os.Open(dti("dti-pairs.txt"))
	pf, _ := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 60, Cols: 40})
	fh.Close()
	rs, _ := pairwise.NewSide(drugs.X, kernel.Gaussian{Gamma: 0.015625}, true)
	cs, _ := pairwise.NewSide(targets.X, kernel.Gaussian{Gamma: 0.05}, true)
	k, _ := pairwise.FitKron(rs, cs, toPairs(pf), pf.Labels, pairwise.Options{})
	s, _ := k.Solve(0.125)

	// training pairs: the fitted values
	out := filepath.Join(dir, "p.txt")
	stdout, stderr, err := run(t, "", "predict", "--model", mpath, "--pairs", dti("dti-pairs.txt"), "--out", out, "--measure", "mse")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	if !strings.Contains(stdout, `"measure":"mse"`) {
		t.Errorf("no measure: %q", stdout)
	}
	fitted := s.Fitted()
	got := readFloats(t, out)
	for i := range got {
		if w := fitted.At(pf.Rows[i], pf.Cols[i]); math.Abs(got[i]-w) > 1e-9*(1+math.Abs(w)) {
			t.Fatalf("pair %d: predict %v, fitted %v", i, got[i], w)
		}
	}
	// new drugs
	stdout, stderr, err = run(t, "", "predict", "--model", mpath, "--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt"))
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	fh, _ = os.Open(dti("dti-pairs-new.txt"))
	np, _ := dataset.ReadPairs(fh, "p", dataset.PairsOptions{Rows: 12, Cols: 40, Unlabelled: true})
	fh.Close()
	want, err := s.PairModel().Predict(newDrugs.X, nil, np.Rows, np.Cols)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(stdout)
	if len(lines) != len(want) {
		t.Fatalf("%d predictions, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		v, _ := strconv.ParseFloat(l, 64)
		if math.Abs(v-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("new pair %d: %v, library %v", i, v, want[i])
		}
	}
	// the CV predictions file: one line per pair, "row col prediction", setting B of the library
	b, _ := os.ReadFile(cvpath)
	ho, _ := s.HoldOutRows(nil)
	cvl := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(cvl) != 2401 || cvl[0] != "row\tcol\tprediction" {
		t.Fatalf("%d CV lines, header %q", len(cvl), cvl[0])
	}
	cvl = cvl[1:]
	for i, l := range cvl {
		f := strings.Fields(l)
		v, _ := strconv.ParseFloat(f[2], 64)
		if f[0] != strconv.Itoa(pf.Rows[i]) || f[1] != strconv.Itoa(pf.Cols[i]) || math.Abs(v-ho.At(pf.Rows[i], pf.Cols[i])) > 1e-12*(1+math.Abs(v)) {
			t.Fatalf("CV line %d: %q", i, l)
		}
	}
}

// Incomplete data trains by conjugate gradients; --solver cg on complete data
// agrees with the closed form to a bound computed from both models.
//
// The bound: each model's coefficients A (m×q) solve (K⊗G + λI)vec A = vec Y
// up to the residual R = KAG + λA − Y, computed here from the data (K, G the
// Gaussian kernels of the standardized objects). The system's eigenvalues
// are ≥ λ, so ‖A − A*‖_F ≤ ‖R‖_F/λ for the exact A*: the smallest eigenvalue
// where a relative bound would have κ = ‖K⊗G + λI‖/λ. A new pair's prediction
// is k(u)ᵀA g(v), so the two models' predictions differ by at most
// ‖M‖_F(‖R_cg‖_F + ‖R_direct‖_F)/λ, M the rows k(u)ᵀ⊗g(v)ᵀ, plus the rounding
// of R's products (2(m + q)·ε·‖|K||A||G| + λ|A| + |Y|‖_F per model, inside R)
// and of the predictions' (2(m + q)·ε·‖M‖_F‖A‖_F). The bound is asserted
// below 1e-8 of the predictions' norm, so a 1e-7 relative error fails.
func TestPairwiseCG(t *testing.T) {
	dir := t.TempDir()
	m1, m2 := filepath.Join(dir, "cg.json"), filepath.Join(dir, "direct.json")
	stdout, stderr, err := run(t, "", dtiArgs("kronrls", "--lambda", "0.5", "--cv", "none", "--solver", "cg", "--model", m1)...)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out := decodePairFit(t, stdout)
	if out.Form != "cg" || out.CG == nil || !out.CG.Converged || out.CG.Residual > 1e-10 {
		t.Fatalf("cg: %+v %+v", out, out.CG)
	}
	if _, stderr, err := run(t, "", dtiArgs("kronrls", "--lambda", "0.5", "--cv", "none", "--model", m2)...); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	p1, _, err1 := run(t, "", "predict", "--model", m1, "--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt"))
	p2, _, err2 := run(t, "", "predict", "--model", m2, "--rows", dti("dti-drugs-new.csv"), "--pairs", dti("dti-pairs-new.txt"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	a, b := predictionsOf(t, p1), predictionsOf(t, p2)
	const lambda = 0.5
	// the objects standardized (mean 0, population sd 1 per feature, as fit
	// --standardize does) by the training objects' statistics
	standardize := func(train, x [][]float64) [][]float64 {
		n := float64(len(train))
		out := make([][]float64, len(x))
		for i := range x {
			out[i] = make([]float64, len(x[i]))
		}
		for j := range train[0] {
			mean, ss := 0.0, 0.0
			for _, r := range train {
				mean += r[j] / n
			}
			for _, r := range train {
				ss += (r[j] - mean) * (r[j] - mean)
			}
			sd := math.Sqrt(ss / n)
			for i := range x {
				out[i][j] = (x[i][j] - mean) / sd
			}
		}
		return out
	}
	table := func(name string) [][]float64 {
		tab := readTable(t, dti(name))
		var cols []string
		for _, c := range strings.Split(strings.SplitN(readFileT(t, dti(name)), "\n", 2)[0], ",") {
			cols = append(cols, c)
		}
		return rowsOf(tab, cols...)
	}
	drugs, targets, newDrugs := table("dti-drugs.csv"), table("dti-targets.csv"), table("dti-drugs-new.csv")
	sd, st, sn := standardize(drugs, drugs), standardize(targets, targets), standardize(drugs, newDrugs)
	gram := func(k kernelFunc, x, z [][]float64) *mat.Dense {
		g := mat.NewDense(len(x), len(z), nil)
		for i := range x {
			for j := range z {
				g.Set(i, j, k(x[i], z[j]))
			}
		}
		return g
	}
	kd, kt, kn := gram(gaussianKernel(0.015625), sd, sd), gram(gaussianKernel(0.05), st, st), gram(gaussianKernel(0.015625), sn, sd)
	m, q := 60, 40
	y := mat.NewDense(m, q, nil)
	for _, l := range strings.Split(readFileT(t, dti("dti-pairs.txt")), "\n") {
		if f := strings.Fields(l); len(f) == 3 && !strings.HasPrefix(l, "#") {
			v := predictionsOf(t, l)
			y.Set(int(v[0]), int(v[1]), v[2])
		}
	}
	var newPairs [][2]int
	for _, l := range strings.Split(readFileT(t, dti("dti-pairs-new.txt")), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !strings.HasPrefix(l, "#") {
			v := predictionsOf(t, strings.Join(f[:2], " "))
			newPairs = append(newPairs, [2]int{int(v[0]), int(v[1])})
		}
	}
	if len(a) != len(newPairs) || len(b) != len(newPairs) {
		t.Fatalf("%d and %d predictions for %d pairs", len(a), len(b), len(newPairs))
	}
	abs := func(x *mat.Dense) *mat.Dense {
		out := mat.DenseCopyOf(x)
		out.Apply(func(_, _ int, v float64) float64 { return math.Abs(v) }, out)
		return out
	}
	// certify checks one model: its coefficients A are within ‖R‖_F/λ (plus
	// the rounding of forming R) of A*, which must be below 1e-8·‖A‖_F; and
	// predict printed k(u)ᵀA g(v) for every new pair, to the rounding of the
	// sums, 2(m + q)·ε·|k(u)|ᵀ|A||g(v)|. It returns the certified distance.
	certify := func(what, path string, got []float64) float64 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pm, err := model.LoadPairwise(f)
		if err != nil {
			t.Fatal(err)
		}
		coef := pm.A
		if coef == nil { // a model trained by CG stores the observed pairs' coefficients
			coef = mat.NewDense(m, q, nil)
			for _, e := range pm.Entries {
				coef.Set(e.Row, e.Col, e.Value)
			}
		}
		var r, ag mat.Dense
		ag.Mul(coef, kt)
		r.Mul(kd, &ag)
		r.Add(&r, scaled(lambda, coef))
		r.Sub(&r, y)
		var rnd, ag2 mat.Dense
		ag2.Mul(abs(coef), kt)
		rnd.Mul(kd, &ag2)
		rnd.Add(&rnd, scaled(lambda, abs(coef)))
		rnd.Add(&rnd, abs(y))
		dist := (mat.Norm(&r, 2) + 2*float64(m+q)*eps*mat.Norm(&rnd, 2)) / lambda
		t.Logf("%s: ‖R‖_F %.2g (rounding %.2g) of ‖Y‖_F %.3g: ‖A − A*‖_F ≤ %.2g, ‖A‖_F %.3g",
			what, mat.Norm(&r, 2), 2*float64(m+q)*eps*mat.Norm(&rnd, 2), mat.Norm(y, 2), dist, mat.Norm(coef, 2))
		if dist > 1e-8*mat.Norm(coef, 2) {
			t.Errorf("%s: the coefficients are certified within %.3g of the solution only, above 1e-8 of ‖A‖_F %.3g", what, dist, mat.Norm(coef, 2))
		}
		var kag, akg mat.Dense
		kag.Mul(kn, &ag)
		akg.Mul(abs(kn), &ag2)
		for h, p := range newPairs {
			w, tol := kag.At(p[0], p[1]), 2*float64(m+q)*eps*akg.At(p[0], p[1])
			if !(math.Abs(got[h]-w) <= tol) {
				t.Errorf("%s: new pair %v: predict %.17g, k(u)ᵀA g(v) %.17g (tolerance %.2g)", what, p, got[h], w, tol)
			}
		}
		return dist
	}
	d1, d2 := certify("cg", m1, a), certify("direct", m2, b)
	// ‖M‖₂ ≤ ‖K_new‖₂‖G‖₂: M is rows of K_new ⊗ G
	var sv mat.SVD
	if !sv.Factorize(kn, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	normM := sv.Values(nil)[0]
	if !sv.Factorize(kt, mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	normM *= sv.Values(nil)[0]
	bound := normM*(d1+d2) + 2*float64(m+q)*eps*normM*(mat.Norm(y, 2)/lambda)
	num := 0.0
	for i := range a {
		num += (a[i] - b[i]) * (a[i] - b[i])
	}
	t.Logf("CG and the closed form: new-drug predictions %.2g apart, bound ‖M‖₂(d_cg + d_direct) = %.2g", math.Sqrt(num), bound)
	if d := math.Sqrt(num); !(d <= bound) {
		t.Errorf("new-drug predictions: CG and closed form differ by %.3g, bound %.3g", d, bound)
	}
	// incomplete data with early stopping
	stdout, stderr, err = run(t, "", "fit", "--learner", "kronrls", "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"),
		"--pairs", dti("dti-pairs-train.txt"), "--validation-pairs", dti("dti-pairs-val.txt"), "--kernel", "gaussian", "--gamma", "0.015625",
		"--col-gamma", "0.05", "--standardize", "--lambda", "0.01", "--quiet")
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out = decodePairFit(t, stdout)
	if out.Complete || out.CG == nil || out.CG.ValidationMSE == nil || out.CG.BestIteration < 1 || out.Pairs != 1685 {
		t.Errorf("incomplete: %+v %+v", out, out.CG)
	}
}

// A homogeneous network: --cols same, leave-vertex-out, new vertices. The
// new vertices' predictions are those of Kronecker RLS retrained from
// scratch with the symmetric Kronecker kernel ½(k(a,c)k(b,d) + k(a,d)k(b,c))
// on every pair in both orientations (pairDual), at the chosen λ; tolerance
// the oracle's (1e3·κ·ε of the labels' scale, κ of K + λI computed).
func TestPairwiseHomogeneous(t *testing.T) {
	dir := t.TempDir()
	var objs, pairs strings.Builder
	objs.WriteString("a,b\n")
	x := make([][2]float64, 14)
	for i := range x {
		x[i] = [2]float64{math.Sin(float64(i)), math.Cos(float64(3 * i))}
		fmt.Fprintf(&objs, "%g,%g\n", x[i][0], x[i][1])
	}
	for u := 0; u < 12; u++ {
		for v := u; v < 12; v++ {
			fmt.Fprintf(&pairs, "%d %d %g\n", u, v, x[u][0]*x[v][0]+x[u][1]+x[v][1])
		}
	}
	op := filepath.Join(dir, "v.csv")
	os.WriteFile(op, []byte(objs.String()), 0o644)
	train := filepath.Join(dir, "train.csv")
	os.WriteFile(train, []byte(strings.Join(strings.SplitAfter(objs.String(), "\n")[:13], "")), 0o644)
	pp := filepath.Join(dir, "p.txt")
	os.WriteFile(pp, []byte(pairs.String()), 0o644)
	mp := filepath.Join(dir, "m.json")
	var lambda float64 // the last fit's, whose model is predicted with
	for _, cvs := range []string{"pairs", "vertices", "vertices:3"} {
		stdout, stderr, err := run(t, "", "fit", "--learner", "kronrls", "--rows", train, "--cols", "same", "--pairs", pp,
			"--kernel", "gaussian", "--lambda-grid", "0.01,0.1,1", "--cv", cvs, "--model", mp, "--quiet")
		if err != nil {
			t.Fatalf("%s: %v %s", cvs, err, stderr)
		}
		out := decodePairFit(t, stdout)
		if out.Symmetry != "symmetric" || !out.Complete || out.Rows != 12 || out.ColKernel != nil {
			t.Errorf("%s: %+v", cvs, out)
		}
		lambda = out.Lambda
	}
	// predict pairs of new vertices (rows 12, 13 of v.csv) with the symmetric model: f(u,v) = f(v,u)
	pnew := filepath.Join(dir, "new.txt")
	os.WriteFile(pnew, []byte("12 3\n3 12\n13 12\n12 13\n"), 0o644)
	stdout, stderr, err := run(t, "", "predict", "--model", mp, "--rows", op, "--pairs", pnew)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	v := strings.Fields(stdout)
	if len(v) != 4 || v[0] != v[1] || v[2] != v[3] {
		t.Errorf("symmetric predictions %v", v)
	}
	// the numbers as written: the vertices of v.csv, the labels of p.txt
	verts := rowsOf(readTable(t, op), "a", "b")
	k := gaussianKernel(1) // the default γ
	kp := func(p, q [2]int) float64 {
		return (k(verts[p[0]], verts[q[0]])*k(verts[p[1]], verts[q[1]]) + k(verts[p[0]], verts[q[1]])*k(verts[p[1]], verts[q[0]])) / 2
	}
	var obs [][2]int
	var labels []float64
	for _, l := range strings.Split(strings.TrimSpace(pairs.String()), "\n") {
		f := predictionsOf(t, l)
		u, w := int(f[0]), int(f[1])
		obs, labels = append(obs, [2]int{u, w}), append(labels, f[2])
		if u != w {
			obs, labels = append(obs, [2]int{w, u}), append(labels, f[2])
		}
	}
	if len(obs) != 144 {
		t.Fatalf("%d observations, want 12² = 144", len(obs))
	}
	want, kappa := pairDual(t, kp, obs, labels, [][2]int{{12, 3}, {3, 12}, {13, 12}, {12, 13}}, lambda)
	or := newOracle(labels)
	or.kappa(kappa)
	or.predictions("new vertices", predictionsOf(t, stdout), want)
	or.check(t)
	if _, _, err := run(t, "", "fit", "--learner", "twostep", "--rows", train, "--cols", "same", "--pairs", pp, "--symmetry", "antisymmetric",
		"--lambda", "1", "--col-lambda", "1", "--cv", "none"); err == nil || !strings.Contains(err.Error(), "f(u, u) = 0") {
		t.Errorf("antisymmetric with diagonal labels: %v", err)
	}
}

func TestPairwiseCLIErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rowsF := write("r.csv", "a,b\n1,2\n3,4\n5,6\n")
	colsF := write("c.csv", "x\n1\n2\n")
	full := write("full.txt", "0 0 1\n0 1 2\n1 0 3\n1 1 4\n2 0 5\n2 1 6\n")
	kernelF := write("k.csv", "a,b,c\n1,0,0\n0,1,0\n")
	base := func(pairs string, extra ...string) []string {
		return append([]string{"fit", "--learner", "kronrls", "--rows", rowsF, "--cols", colsF, "--pairs", pairs, "--lambda", "1"}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"duplicate pair", base(write("dup.txt", "0 0 1\n1 1 2\n0 0 3\n")), "dup.txt:3: column 1 (token \"0\"): pair (0, 0) already on line 1"},
		{"row out of range", base(write("oor.txt", "0 0 1\n3 1 2\n")), "oor.txt:2: column 1 (token \"3\"): index 3 outside [0,3)"},
		{"col out of range", base(write("ooc.txt", "0 2 1\n")), "ooc.txt:1: column 2"},
		{"non-numeric label", base(write("nan.txt", "0 0 1\n0 1 strong\n")), "nan.txt:2: column 3 (token \"strong\")"},
		{"missing label", base(write("two.txt", "0 0\n")), "two.txt:1: column 2"},
		{"missing rows file", []string{"fit", "--learner", "kronrls", "--rows", filepath.Join(dir, "nope.csv"), "--cols", colsF, "--pairs", full}, "--rows " + filepath.Join(dir, "nope.csv") + ": stat " + filepath.Join(dir, "nope.csv") + ": no such file"},
		{"missing cols file", []string{"fit", "--learner", "kronrls", "--rows", rowsF, "--cols", filepath.Join(dir, "nope.csv"), "--pairs", full}, "--cols " + filepath.Join(dir, "nope.csv")},
		{"missing pairs file", base(filepath.Join(dir, "nope.txt")), "--pairs " + filepath.Join(dir, "nope.txt")},
		{"cv rows on incomplete data", base(write("part.txt", "0 0 1\n1 1 2\n"), "--cv", "rows"), "--cv rows needs complete data"},
		{"cv default on incomplete data", base(write("part2.txt", "0 0 1\n1 1 2\n"), "--cv", "both:2"), "--cv both:2 needs complete data"},
		{"grid on incomplete data", []string{"fit", "--learner", "kronrls", "--rows", rowsF, "--cols", colsF, "--pairs", write("part3.txt", "0 0 1\n"), "--lambda-grid", "1,2"}, "fits one model: give one --lambda"},
		{"col-lambda with kronrls", base(full, "--col-lambda", "2"), "--col-lambda applies to --learner twostep"},
		{"col-lambda-grid with kronrls", base(full, "--col-lambda-grid", "1,2"), "--col-lambda-grid applies to --learner twostep"},
		{"data with kronrls", base(full, "--data", rowsF), "reads --rows, --cols and --pairs, not --data"},
		{"no pairs", []string{"fit", "--learner", "kronrls", "--rows", rowsF, "--cols", colsF}, "--pairs FILE is required"},
		{"no cols", []string{"fit", "--learner", "twostep", "--rows", rowsF, "--pairs", full}, "--cols FILE is required"},
		{"rows with rls", []string{"fit", "--data", rowsF, "--rows", rowsF}, "--rows applies to --learner kronrank, kronrls, kronsvm and twostep"},
		{"vertices heterogeneous", base(full, "--cv", "vertices"), "--cv vertices is leave-vertex-out for homogeneous networks"},
		{"rows on homogeneous", []string{"fit", "--learner", "kronrls", "--rows", rowsF, "--cols", "same", "--pairs", full, "--cv", "rows"}, "cross-validated by pairs or vertices"},
		{"folds with pairs", base(full, "--cv", "pairs", "--folds", full), "--folds and --col-folds go with --cv rows"},
		{"col-folds with rows", base(full, "--cv", "rows", "--col-folds", full), "--col-folds goes with --cv cols or both"},
		{"twostep incomplete", []string{"fit", "--learner", "twostep", "--rows", rowsF, "--cols", colsF, "--pairs", write("p4.txt", "0 0 1\n"), "--lambda", "1", "--col-lambda", "1"}, "--learner twostep needs complete data"},
		{"precomputed not square", []string{"fit", "--learner", "kronrls", "--rows", kernelF, "--cols", kernelF, "--pairs", full, "--kernel", "precomputed"}, "must be square"},
		{"symmetry heterogeneous", base(full, "--symmetry", "antisymmetric"), "--symmetry applies to homogeneous networks"},
		{"bad cv", base(full, "--cv", "kfold:5"), "--cv \"kfold:5\": want pairs, rows, cols, both"},
		{"pairs with K", base(full, "--cv", "pairs:5"), "setting pairs leaves each pair out alone"},
		// issue 20 item 12: validation pairs were silently ignored on complete
		// data, and validation pairs that are training pairs were accepted
		{"validation pairs on complete data", base(full, "--lambda", "1", "--cv", "none", "--validation-pairs", write("v1.txt", "0 0 1\n")),
			"the data are complete and --learner kronrls trains in closed form"},
		{"validation pair that is a training pair", base(write("part5.txt", "0 0 1\n1 1 2\n2 0 3\n"), "--lambda", "1", "--validation-pairs", write("v2.txt", "0 1 1\n1 1 5\n")),
			"validation pair 1 (1, 1) is a training observation"},
		{"K too large", base(full, "--cv", "rows:5"), "--cv rows:5: selection: invalid cross-validation scheme: rows:5: 5 folds of 3 row objects"},
		{"measure", base(full, "--measure", "nope"), "--measure"},
		{"solver cg twostep", []string{"fit", "--learner", "twostep", "--rows", rowsF, "--cols", colsF, "--pairs", full, "--solver", "cg"}, "--solver cg trains --learner kronrls"},
		{"patience alone", base(full, "--patience", "3"), "--patience goes with --validation-pairs"},
		{"cv-predictions without cv", base(full, "--cv", "none", "--cv-predictions", filepath.Join(dir, "x")), "--cv-predictions needs cross-validation"},
	} {
		_, stderr, err := run(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v (stderr %q), want it to contain %q", tc.name, err, stderr, tc.want)
		}
	}
	// predict errors
	mp := filepath.Join(dir, "m.json")
	if _, stderr, err := run(t, "", base(full, "--model", mp)...); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"pairwise model with --data", []string{"predict", "--model", mp, "--data", rowsF}, "a pairwise model"},
		{"pairs out of range", []string{"predict", "--model", mp, "--pairs", write("q.txt", "0 0\n5 0\n")}, "q.txt:2: column 1"},
		{"new rows of another width", []string{"predict", "--model", mp, "--rows", colsF, "--pairs", write("q2.txt", "0 0\n")}, "feature"},
		{"measure without labels", []string{"predict", "--model", mp, "--pairs", write("q3.txt", "0 0\n"), "--measure", "mse"}, "has no labels"},
		{"rows without pairs", []string{"predict", "--model", mp, "--rows", rowsF}, "--rows and --cols go with --pairs FILE"},
		{"row model with --pairs", []string{"predict", "--model", writeRowModel(t, dir), "--pairs", write("q4.txt", "0 0\n")}, "a model of rows, not of pairs"},
	} {
		_, _, err := run(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	// a precomputed-kernel model needs the kernel rows of the objects to predict
	km := write("km.csv", "a,b,c\n2,1,0\n1,2,1\n0,1,2\n")
	gm := write("gm.csv", "x,y\n1,0.5\n0.5,1\n")
	pm := filepath.Join(dir, "pre.json")
	if _, stderr, err := run(t, "", "fit", "--learner", "kronrls", "--rows", km, "--cols", gm, "--pairs", full, "--kernel", "precomputed", "--lambda", "1", "--model", pm); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	if _, _, err := run(t, "", "predict", "--model", pm, "--pairs", write("q5.txt", "0 0\n")); err == nil || !strings.Contains(err.Error(), "precomputed") {
		t.Errorf("precomputed without --rows: %v", err)
	}
	stdout, _, err := run(t, "", "predict", "--model", pm, "--rows", km, "--cols", gm, "--pairs", write("q6.txt", "0 0\n2 1\n"))
	if err != nil || len(strings.Fields(stdout)) != 2 {
		t.Fatalf("precomputed with its kernel rows: %q %v", stdout, err)
	}
	// Kronecker RLS on the six pairs with the kernel km(r, r')·gm(c, c'),
	// retrained from scratch (pairDual) at λ = 1: the training objects'
	// kernel rows predict the training pairs (0, 0) and (2, 1)
	kr := [][]float64{{2, 1, 0}, {1, 2, 1}, {0, 1, 2}}
	kc := [][]float64{{1, 0.5}, {0.5, 1}}
	kp := func(p, q [2]int) float64 { return kr[p[0]][q[0]] * kc[p[1]][q[1]] }
	labels := []float64{1, 2, 3, 4, 5, 6}
	want, kappa := pairDual(t, kp, [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}, labels, [][2]int{{0, 0}, {2, 1}}, 1)
	or := newOracle(labels)
	or.kappa(kappa)
	or.predictions("precomputed kernels", predictionsOf(t, stdout), want)
	or.check(t)
}

// writeRowModel saves a model of rows (rls) for the error test.
func writeRowModel(t *testing.T, dir string) string {
	t.Helper()
	data := writeCSV(t, dir, 10, 1)
	mp := filepath.Join(dir, "rows.json")
	if _, stderr, err := run(t, "", "fit", "--data", data, "--label", "y", "--lambda", "1", "--cv", "none", "--model", mp); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	return mp
}

// svmlight objects (labels ignored) give what the same CSV objects give.
func TestPairwiseSVMLight(t *testing.T) {
	dir := t.TempDir()
	rs, cs := objectsSVM(t, dti("dti-drugs.csv"), filepath.Join(dir, "d.svm"), 1), objectsSVM(t, dti("dti-targets.csv"), filepath.Join(dir, "t.svm"), 1)
	args := []string{"fit", "--learner", "twostep", "--pairs", dti("dti-pairs.txt"), "--kernel", "gaussian", "--gamma", "0.0625",
		"--col-gamma", "0.0625", "--lambda", "0.5", "--col-lambda", "0.25", "--cv", "rows", "--measure", "cindex", "--quiet"}
	a, stderr, err := run(t, "", append(args, "--rows", dti("dti-drugs.csv"), "--cols", dti("dti-targets.csv"))...)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	b, stderr, err := run(t, "", append(args, "--rows", rs, "--cols", cs)...)
	if err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	if x, y := decodePairFit(t, a).CV.Best.Value, decodePairFit(t, b).CV.Best.Value; x != y {
		t.Errorf("CSV %v, svmlight %v", x, y)
	}
}

// TestPairwiseZeroBased: --rows/--cols in svmlight written 0-based (as
// scikit-learn writes them) fit the same model as the CSV objects; the model
// records the base, and predict reads new 0-based objects with it.
func TestPairwiseZeroBased(t *testing.T) {
	dir := t.TempDir()
	toSVM := func(csvPath string, base int) string {
		return objectsSVM(t, csvPath, filepath.Join(dir, fmt.Sprintf("%s.%d.svm", filepath.Base(csvPath), base)), base)
	}
	fit := func(rows, cols, model string) string {
		args := []string{"fit", "--learner", "kronrls", "--rows", rows, "--cols", cols, "--pairs", dti("dti-pairs.txt"),
			"--kernel", "gaussian", "--gamma", "0.015625", "--col-gamma", "0.05", "--lambda", "1", "--cv", "none", "--quiet", "--model", model}
		if _, stderr, err := run(t, "", args...); err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		return readFileT(t, model)
	}
	csvModel := fit(dti("dti-drugs.csv"), dti("dti-targets.csv"), filepath.Join(dir, "csv.json"))
	zeroModel := fit(toSVM(dti("dti-drugs.csv"), 0), toSVM(dti("dti-targets.csv"), 0), filepath.Join(dir, "zero.json"))
	if strings.Count(zeroModel, `"zero_based":true`) != 2 || strings.Contains(csvModel, "zero_based") {
		t.Fatalf("zero_based recorded %d times in the 0-based model, %v in the CSV one",
			strings.Count(zeroModel, `"zero_based":true`), strings.Contains(csvModel, "zero_based"))
	}
	pairs := filepath.Join(dir, "new.txt")
	if err := os.WriteFile(pairs, []byte("0 1\n2 3\n5 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	predict := func(model, rows string) []float64 {
		out := filepath.Join(dir, "p.txt")
		if _, stderr, err := run(t, "", "predict", "--model", model, "--pairs", pairs, "--rows", rows, "--out", out); err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		return readFloats(t, out)
	}
	want := predict(filepath.Join(dir, "csv.json"), dti("dti-drugs-new.csv"))
	got := predict(filepath.Join(dir, "zero.json"), toSVM(dti("dti-drugs-new.csv"), 0))
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Errorf("pair %d: 0-based svmlight %v, CSV %v", i, got[i], want[i])
		}
	}
}

// objectsSVM writes the objects of a CSV file (header, no label column) as
// svmlight with feature indices from base (0 as scikit-learn writes them, or
// 1), zeros left out and the row number as the (ignored) label; it returns out.
func objectsSVM(t *testing.T, csvPath, out string, base int) string {
	t.Helper()
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if n == 0 {
			continue // header
		}
		fmt.Fprintf(&w, "%d", n)
		for j, v := range strings.Split(line, ",") {
			if v != "0" {
				fmt.Fprintf(&w, " %d:%s", j+base, v)
			}
		}
		w.WriteByte('\n')
	}
	if err := os.WriteFile(out, []byte(w.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
