package stream

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
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
)

// propData is a random data set whose rows differ in width: a few features
// present in most rows (offset from 0), one present only in the first rows
// (in the pilot, or beyond it), one only in the last rows (later chunks are
// wider), one in a single row, index gaps (features no row has) and, when
// labelOnly, rows without any feature (label-only svmlight rows, as
// scikit-learn writes all-zero rows).
type propData struct {
	x      [][]float64 // dense copies, width d
	y      [][]float64
	q      []string
	d      int
	graded bool
}

// With twoRows, every feature is in two rows or more: no row alone carries
// one.
func drawProp(rng *rand.Rand, m, t int, graded, binary, labelOnly, twoRows bool) propData {
	common := 2 + rng.IntN(3)
	d := common + 6 + rng.IntN(4) // gaps between the special features
	early := common + 1 + rng.IntN(2)
	late := d - 1 - rng.IntN(2)
	single := common
	earlyRows := 1 + rng.IntN(max(m/3, 1))
	if rng.IntN(3) == 0 {
		earlyRows = min(m-1, 1024+rng.IntN(40)) // the pilot's last rows and beyond
	}
	lateFrom := m - 1 - rng.IntN(max(m/3, 1))
	singleRow := rng.IntN(m)
	support := 1
	if twoRows {
		support = 2
		earlyRows = max(earlyRows, 2)
		lateFrom = min(lateFrom, m-2)
	}
	beta := make([][]float64, t)
	for c := range beta {
		beta[c] = make([]float64, d)
		for j := range beta[c] {
			beta[c][j] = rng.NormFloat64()
		}
	}
	out := propData{d: d, graded: graded}
	nq := max(m/7, 3)
	lead := 0 // label-only rows first: chunks without features
	if labelOnly {
		lead = rng.IntN(4)
	}
	for i := 0; i < m; i++ {
		row := make([]float64, d)
		if !(labelOnly && (i < lead || rng.IntN(12) == 0)) {
			for j := 0; j < common; j++ {
				if j == 0 || rng.Float64() < 0.8 {
					row[j] = 2 + rng.NormFloat64()
				}
			}
			if i < earlyRows {
				row[early] = 1 + rng.Float64()
			}
			if i >= lateFrom {
				row[late] = rng.NormFloat64() - 1
			}
			if i >= singleRow && i < singleRow+support || singleRow+support > m && i < support {
				row[single] = 3
			}
		}
		yr := make([]float64, t)
		for c := range yr {
			v := 0.0
			for j, b := range beta[c] {
				v += b * row[j]
			}
			v += 0.5 * rng.NormFloat64()
			switch {
			case binary:
				v = math.Copysign(1, v-beta[c][0]*2)
			case graded:
				v = math.Round(math.Max(0, math.Min(4, v/3+2)))
			}
			yr[c] = v
		}
		out.x = append(out.x, row)
		out.y = append(out.y, yr)
		out.q = append(out.q, "q"+strconv.Itoa(rng.IntN(nq)))
	}
	return out
}

// lines returns the rows as svmlight lines (only non-zero features) or CSV
// lines (every column) with the CSV header.
func (pd propData) lines(csv bool) (header string, lines []string) {
	t := len(pd.y[0])
	if csv {
		var cols []string
		for c := 0; c < t; c++ {
			cols = append(cols, "y"+strconv.Itoa(c))
		}
		cols = append(cols, "qid")
		for j := 0; j < pd.d; j++ {
			cols = append(cols, "f"+strconv.Itoa(j))
		}
		header = strings.Join(cols, ",")
	}
	for i, row := range pd.x {
		var f []string
		for _, v := range pd.y[i] {
			f = append(f, strconv.FormatFloat(v, 'g', -1, 64))
		}
		if csv {
			f = append(f, pd.q[i])
			for _, v := range row {
				f = append(f, strconv.FormatFloat(v, 'g', -1, 64))
			}
			lines = append(lines, strings.Join(f, ","))
			continue
		}
		s := strings.Join(f, ",") + " qid:" + pd.q[i]
		for j, v := range row {
			if v != 0 {
				s += " " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(v, 'g', -1, 64)
			}
		}
		lines = append(lines, s)
	}
	return header, lines
}

// writeProp writes the whole data set as one file, and as the given number
// of shards cut at random rows (shards may be empty; gzip where gz[s]).
func writeProp(t *testing.T, dir string, pd propData, csv bool, rng *rand.Rand, n int, gzipSome bool) (whole string, shards []string) {
	t.Helper()
	header, lines := pd.lines(csv)
	ext := ".svm"
	if csv {
		ext = ".csv"
	}
	write := func(name string, ls []string, gz bool) string {
		text := strings.Join(ls, "\n")
		if len(ls) > 0 {
			text += "\n"
		}
		if csv {
			text = header + "\n" + text
		}
		path := filepath.Join(dir, name)
		if gz {
			path += ".gz"
			writeGzip(t, path, []byte(text))
		} else if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	whole = write("whole"+ext, lines, false)
	cuts := []int{0}
	for s := 1; s < n; s++ {
		cuts = append(cuts, rng.IntN(len(lines)+1))
	}
	cuts = append(cuts, len(lines))
	for a := 1; a < len(cuts); a++ { // sorted
		for b := a; b > 0 && cuts[b] < cuts[b-1]; b-- {
			cuts[b], cuts[b-1] = cuts[b-1], cuts[b]
		}
	}
	for s := 0; s < n; s++ {
		shards = append(shards, write(fmt.Sprintf("part-%02d%s", s, ext), lines[cuts[s]:cuts[s+1]], gzipSome && rng.IntN(2) == 1))
	}
	return whole, shards
}

// propCase is one draw of TestStreamReliabProperty.
type propCase struct {
	streamCase
	seed          uint64
	m             int
	shards        int
	chunk         int
	workers       int
	split         int64 // splitBytes for the run (0: no byte ranges)
	labelOnly     bool
	binary        bool
	basisRows     bool
	lambdas       []float64
	ordinalLambda bool
}

func (c propCase) String() string {
	return fmt.Sprintf("seed%d/%s/%s/%s/m%d/t%d/sparse%v/std%v/bias%g/shards%d/chunk%d/workers%d/split%d/labelonly%v",
		c.seed, c.learner, c.cv, c.meas, c.m, c.t, !c.csv, c.std, c.bias, c.shards, c.chunk, c.workers, c.split, c.labelOnly)
}

// drawPropCase draws a learner, a CV scheme of those it streams, a measure,
// sparse or dense rows, standardization, the bias, the shards, the chunk
// size, the workers and, for one plain svmlight file, byte-range cuts.
func drawPropCase(seed uint64) propCase {
	rng := rand.New(rand.NewPCG(seed, 11))
	c := propCase{seed: seed}
	c.learner = []learn.Name{learn.RLS, learn.GlobalRank, learn.QueryRank}[rng.IntN(3)]
	c.csv = rng.IntN(3) == 0
	c.std = rng.IntN(2) == 0
	c.t = 1
	switch c.learner {
	case learn.RLS:
		c.cv = []string{"none", "loo", "kfold:" + strconv.Itoa(2+rng.IntN(6)), "lgo"}[rng.IntN(4)]
		c.meas = []string{"mse", "mse", "cindex", "auc"}[rng.IntN(4)]
		c.bias = []float64{0, 1, 2.5}[rng.IntN(3)]
		if c.meas == "mse" {
			c.t = 1 + rng.IntN(2)
		}
		c.binary = c.meas == "auc"
	case learn.GlobalRank:
		c.cv = []string{"none", "loo", "kfold:" + strconv.Itoa(2+rng.IntN(6)), "lgo"}[rng.IntN(4)]
		c.meas = []string{"mse", "cindex"}[rng.IntN(2)]
	case learn.QueryRank:
		c.cv = []string{"none", "loo", "kfold:" + strconv.Itoa(2+rng.IntN(4)), "lqo"}[rng.IntN(4)]
		c.meas = []string{"mse", "disagreement"}[rng.IntN(2)]
		c.normalize = rng.IntN(3) == 0
	}
	c.m = 40 + rng.IntN(160)
	if rng.IntN(4) == 0 {
		c.m = 1030 + rng.IntN(300) // beyond the pilot of 1024 rows
	}
	c.shards = 1 + rng.IntN(5)
	c.chunk = []int{1, 2, 3, 7, 16, 50, 2048}[rng.IntN(7)]
	c.workers = 1 + rng.IntN(4)
	if !c.csv && rng.IntN(2) == 0 {
		c.shards = 1
		c.workers = 2 + rng.IntN(3)
		c.split = int64(256 + rng.IntN(2048))
	}
	c.labelOnly = !c.csv && rng.IntN(3) == 0
	c.lambdas = []float64{1e-3, 0.1, 1, 10, 300}
	if c.cv == "none" {
		c.lambdas = []float64{[]float64{0.01, 0.5, 20}[rng.IntN(3)]}
	}
	return c
}

// TestStreamReliabProperty: for random shardings (1–5 shards cut at random
// rows, empty ones too, some gzipped), random chunk sizes (1 row to 2048),
// workers, byte-range cuts of one plain file, sparse rows of every width
// (features only in the first rows — within the pilot and beyond it — only
// in the last rows, in one row, index gaps, label-only rows) and dense CSV,
// standardized or not, every streaming learner and CV scheme, the streamed
// fit equals the in-memory learner (rls.Fit, rank.FitGlobal,
// rank.FitQuery[Normalized]) cross-validated by package selection on the
// same folds: the curve to 1e-9 relative (and the same indistinguishable
// points), the final model's weights and its predictions to 1e-9 of their
// largest magnitude.
func TestStreamReliabProperty(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	defer func(b int64) { splitBytes = b }(splitBytes)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		c := drawPropCase(seed)
		t.Run(c.String(), func(t *testing.T) {
			checkPropCase(t, c)
		})
	}
}

func checkPropCase(t *testing.T, c propCase) {
	t.Helper()
	rng := rand.New(rand.NewPCG(c.seed, 13))
	graded := c.learner != learn.RLS && c.meas != "mse" || c.meas == "cindex"
	// A row alone carrying a feature makes leave-one-out's shortcut, streamed
	// or in memory, ill-conditioned at small λ: it divides by 1 − h_i ≈
	// λ/(n·v²) (v the row's value of the feature, √n when standardized), so
	// the rounding of the statistics comes back amplified — 1.3e-8 of the mse
	// at λ = 1e-3 on 1307 rows, 1e-7 on 138 standardized rows, whatever the
	// sharding — and, through the one tie rule, as tie tolerances large
	// enough to tie real pairs. Under leave-one-out every feature is in two
	// rows or more; the other schemes solve every training set anew and
	// take rows alone carrying a feature.
	twoRows := c.cv == "loo"
	pd := drawProp(rng, c.m, c.t, graded, c.binary, c.labelOnly, twoRows)
	dir := t.TempDir()
	whole, shards := writeProp(t, dir, pd, c.csv, rng, c.shards, c.split == 0)
	if c.split > 0 {
		shards = []string{whole}
	}
	format := "svmlight"
	var csvOpt dataset.CSVOptions
	if c.csv {
		format = "csv"
		for k := 0; k < c.t; k++ {
			csvOpt.Labels = append(csvOpt.Labels, "y"+strconv.Itoa(k))
		}
		csvOpt.Qid = "qid"
	}
	meas, err := measure.ByName(c.meas)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Learner: c.learner, Kernel: kernel.Spec{Name: "linear", Bias: c.bias}, CV: c.cv, Seed: c.seed, Lambdas: c.lambdas,
		Measure: meas, Standardize: c.std, QueryNormalize: c.normalize}
	splitBytes = 1 << 62
	if c.split > 0 {
		splitBytes = c.split
		if ps, _ := parts(Source{Files: shards, Format: format}, []FileStats{{Name: whole}}, c.workers); len(ps) < 2 {
			t.Fatalf("%d byte ranges", len(ps))
		}
	}
	got, err := Run(context.Background(), opt, Source{Files: shards, Format: format, CSV: csvOpt}, RunOptions{Workers: c.workers, ChunkRows: c.chunk})
	splitBytes = 1 << 62
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	d, err := dataset.ReadFile(whole, format, csvOpt, dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != d.Rows() {
		t.Errorf("rows %d, want %d", got.Rows, d.Rows())
	}

	// 1. the same fit of the whole file in one chunk by one worker: the
	// sharding, the chunks and the byte ranges change only the order of the
	// double-double sums
	one, err := Run(context.Background(), opt, Source{Files: []string{whole}, Format: format, CSV: csvOpt}, RunOptions{Workers: 1, ChunkRows: 1 << 20})
	if err != nil {
		t.Fatalf("stream of one chunk: %v", err)
	}
	for l, pt := range one.Curve {
		a := got.Curve[l]
		tol := 1e-11
		if c.cv == "loo" {
			tol = 1e-9 // the shortcut divides by 1 − h_i: the sums' rounding comes back larger
		}
		if !(math.Abs(a.Value-pt.Value) <= tol*math.Abs(pt.Value)) && !(math.IsNaN(a.Value) && math.IsNaN(pt.Value)) || a.Indistinguishable != pt.Indistinguishable {
			t.Errorf("λ = %g: %s %.15g (indistinguishable %v); one chunk %.15g (%v)", pt.Lambda, c.meas, a.Value, a.Indistinguishable, pt.Value, pt.Indistinguishable)
		}
	}
	if got.BestIndex != one.BestIndex {
		t.Errorf("best λ %g; one chunk %g", got.Best.Lambda, one.Best.Lambda)
	} else if e := relDiff(fullWeights(got.Predictor), fullWeights(one.Predictor)); !(e <= 1e-11) {
		t.Errorf("final model weights differ from one chunk's by %.1e of the largest", e)
	}

	// 2. the in-memory learner cross-validated by package selection. The
	// in-memory rankers' hold-out shortcuts lose digits as λ falls (the
	// k-fold mse of globalrank off by 3.6e-9 at λ = 1e-3 and 1.9e-9 at
	// λ = 0.1 on 1158 and 1273 rows, queryrank's by 8.9e-9 at λ = 1e-3, where
	// the direct retraining below agrees with the stream to 1e-15): there
	// the direct oracle alone holds the stream.
	// Their forward error also sets their tie tolerance: on 1258 rows at
	// λ = 1 globalrank's ties a pair 1e-6 apart that the stream (and the
	// direct retraining) order, so ordinal measures of the rankers are held
	// to it on fewer rows.
	trusted := func(lambda float64) bool {
		return c.learner == learn.RLS || lambda >= 1 && (c.meas == "mse" || c.m < 1024)
	}
	want := inMemory(t, c.streamCase, d, opt, got.Basis)
	compareFits(t, c.cv, c.meas, got, want, d, trusted)

	// 3. every training set retrained directly
	compareDirect(t, c.streamCase, c.seed, meas, got, d)
}

// compareDirect holds a streamed fit to the direct oracle (directFit):
// every training set retrained, its hold-out rows predicted and scored
// exactly — an ordinal measure only where no pair it compares is within
// 1e-7 of the predictions' magnitude: there the stream's tie tolerance, a
// forward error far below, ties no pair — to 1e-9, and the final model
// solved directly to 1e-9 of its largest weight.
func compareDirect(t *testing.T, c streamCase, seed uint64, meas measure.Measure, got *RunResult, d *dataset.Data) {
	t.Helper()
	df := newDirectFit(c, d)
	if c.cv != "none" {
		holds := df.holdOuts(c.cv, seed)
		lambdas := make([]float64, len(got.Curve))
		for l, pt := range got.Curve {
			lambdas[l] = pt.Lambda
		}
		preds := df.predictions(holds, lambdas)
		y, q := df.labels()
		for l, pt := range got.Curve {
			ref, err := meas.Score(y, preds[l], q)
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if meas.Name != "mse" {
				if gap := nearestPair(y, preds[l], q, meas.NeedsQueries); !(gap > 1e-7*mat.Norm(preds[l], math.Inf(1))) {
					continue
				}
				if pt.Indistinguishable {
					t.Errorf("λ = %g: indistinguishable, the predictions retrained directly are not", pt.Lambda)
				}
			}
			if !(math.Abs(pt.Value-ref) <= tol*math.Abs(ref)) {
				t.Errorf("λ = %g: %s %.15g, retrained directly %.15g", pt.Lambda, meas.Name, pt.Value, ref)
			}
		}
	}
	all := make([]int, len(df.z))
	for i := range all {
		all[i] = i
	}
	ws, bs := df.weights(all, []float64{got.Best.Lambda})
	r, tt := ws[0].Dims()
	ref := mat.NewDense(r+1, tt, nil)
	ref.Slice(0, r, 0, tt).(*mat.Dense).Copy(ws[0])
	ref.SetRow(r, bs[0])
	if gw := fullWeights(got.Predictor); !sameDims(gw, ref) {
		t.Errorf("weights %v, solved directly %v", gw.RawMatrix(), ref.RawMatrix())
	} else if e := relDiff(gw, ref); !(e <= 1e-9) {
		t.Errorf("final model weights differ from the direct solve by %.1e of the largest:\n stream %v\n direct %v", e, gw.RawMatrix().Data, ref.RawMatrix().Data)
	}
}

// compareFits holds a streamed fit to the in-memory one at the λ trusted:
// the curve to 1e-9 relative with the same indistinguishable points and,
// when both choose the same trusted λ (they must when every λ is trusted),
// the final model's weights and its predictions of the data to 1e-9 of
// their largest magnitude.
func compareFits(t *testing.T, cv, meas string, got *RunResult, want *memResult, d *dataset.Data, trusted func(lambda float64) bool) {
	t.Helper()
	if len(want.Curve) != len(got.Curve) {
		t.Fatalf("curve of %d points, want %d", len(got.Curve), len(want.Curve))
	}
	all := true
	for l := range want.Curve {
		a, b := got.Curve[l].Value, want.Curve[l].Value
		if cv == "none" {
			if !math.IsNaN(a) {
				t.Errorf("value %v without CV", a)
			}
			continue
		}
		if !trusted(got.Curve[l].Lambda) {
			all = false
			continue
		}
		if rel := math.Abs(a-b) / math.Max(math.Abs(b), 1e-300); !(rel <= 1e-9) {
			t.Errorf("λ = %g: %s %.15g, in memory %.15g (relative %.1e)", got.Curve[l].Lambda, meas, a, b, rel)
		}
		if got.Curve[l].Indistinguishable != want.Curve[l].Indistinguishable {
			t.Errorf("λ = %g: indistinguishable %v, in memory %v", got.Curve[l].Lambda, got.Curve[l].Indistinguishable, want.Curve[l].Indistinguishable)
		}
	}
	if got.Best.Lambda != want.Predictor.Lambda {
		if all {
			t.Errorf("best λ %g, in memory %g", got.Best.Lambda, want.Predictor.Lambda)
		}
		return
	}
	if !trusted(got.Best.Lambda) {
		return
	}
	if got.Predictor.W == nil || want.Predictor.W == nil {
		t.Errorf("linear weights: stream %v, in memory %v", got.Predictor.W != nil, want.Predictor.W != nil)
	} else if gw, ww := fullWeights(got.Predictor), fullWeights(want.Predictor); !sameDims(gw, ww) {
		t.Errorf("weights %v, in memory %v", gw.RawMatrix(), ww.RawMatrix())
	} else if e := relDiff(gw, ww); !(e <= 1e-9) {
		t.Errorf("final model weights differ by %.1e of the largest:\n stream %v\n memory %v", e, gw.RawMatrix().Data, ww.RawMatrix().Data)
	}
	pw, err := want.Predictor.Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := got.Predictor.Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	if e := relDiff(pg, pw); !(e <= 1e-9) {
		t.Errorf("final model predictions differ by %.1e relative", e)
	}
}

// fullWeights is a linear predictor's weights, every feature's row (WIndex
// expanded) followed by the bias row B.
func fullWeights(p *model.Predictor) *mat.Dense {
	_, t := p.W.Dims()
	out := mat.NewDense(p.Width+1, t, nil)
	r, _ := p.W.Dims()
	for k := 0; k < r; k++ {
		j := k
		if p.WIndex != nil {
			j = p.WIndex[k]
		}
		out.SetRow(j, p.W.RawRowView(k))
	}
	if p.B != nil {
		out.SetRow(p.Width, p.B)
	}
	return out
}

func sameDims(a, b *mat.Dense) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	return ar == br && ac == bc
}

// directFit is the independent oracle of TestStreamReliabProperty: every
// training set solved anew in float64 from its rows — RLS as ridge on
// [z, √bias] with every weight penalized, GlobalRankRLS from the centred
// scatter (n·C + λI)w = n·c, QueryRankRLS from (H + λI)w = B summed query by
// query about each query's mean (weighted 1/n_q when normalized) — and its
// hold-out rows predicted: no shortcut, no shared factorization.
type directFit struct {
	x      [][]float64 // the rows as read (for the fold hash)
	z      [][]float64 // the rows as read, standardized: the data's width
	y      [][]float64
	q      []string
	bias   float64
	loss   learn.Loss
	normal bool
}

func newDirectFit(c streamCase, d *dataset.Data) directFit {
	df := directFit{bias: c.bias, normal: c.normalize}
	df.loss, _ = LossOf(c.learner)
	z := d.X
	if c.std {
		var err error
		if z, err = model.FitScaler(d.X).Transform(d.X); err != nil {
			panic(err)
		}
	}
	r, w := z.Dims()
	_, t := d.Y.Dims()
	for i := 0; i < r; i++ {
		row, raw := make([]float64, w), make([]float64, w)
		for j := range row {
			row[j], raw[j] = z.At(i, j), d.X.At(i, j)
		}
		df.z, df.x = append(df.z, row), append(df.x, raw)
		df.y = append(df.y, mat.Row(nil, i, d.Y)[:t])
		q := ""
		if d.Queries != nil {
			q = d.QueryNames[d.Queries[i]]
		}
		df.q = append(df.q, q)
	}
	return df
}

func (df directFit) rawRow(i int) []float64 { return df.x[i] }

// weights solves the training set of rows tr at every λ: W is d×t, b the
// bias, per λ.
func (df directFit) weights(tr []int, lambdas []float64) (ws []*mat.Dense, bs [][]float64) {
	d, t := len(df.z[0]), len(df.y[0])
	a := mat.NewDense(d+1, d+1, nil)
	rhs := mat.NewDense(d+1, t, nil)
	add := func(zr, yr []float64, wt float64) {
		for j := 0; j <= d; j++ {
			if zr[j] == 0 {
				continue
			}
			for k := 0; k <= d; k++ {
				a.Set(j, k, a.At(j, k)+wt*zr[j]*zr[k])
			}
			for c := 0; c < t; c++ {
				rhs.Set(j, c, rhs.At(j, c)+wt*zr[j]*yr[c])
			}
		}
	}
	centre := func(rows []int) ([]float64, []float64) {
		mu, ybar := make([]float64, d+1), make([]float64, t)
		for _, i := range rows {
			for j, v := range df.z[i] {
				mu[j] += v / float64(len(rows))
			}
			for c, v := range df.y[i] {
				ybar[c] += v / float64(len(rows))
			}
		}
		return mu, ybar
	}
	diff := func(i int, mu, ybar []float64) ([]float64, []float64) {
		zr, yr := make([]float64, d+1), make([]float64, t)
		for j, v := range df.z[i] {
			zr[j] = v - mu[j]
		}
		for c, v := range df.y[i] {
			yr[c] = v - ybar[c]
		}
		return zr, yr
	}
	switch df.loss {
	case learn.Squared:
		for _, i := range tr {
			zr := append(append([]float64(nil), df.z[i]...), math.Sqrt(df.bias))
			add(zr, df.y[i], 1)
		}
	case learn.AllPairs:
		mu, ybar := centre(tr)
		for _, i := range tr {
			zr, yr := diff(i, mu, ybar)
			add(zr, yr, float64(len(tr)))
		}
	case learn.QueryPairs:
		byQ := map[string][]int{}
		for _, i := range tr {
			byQ[df.q[i]] = append(byQ[df.q[i]], i)
		}
		for _, rows := range byQ {
			mu, ybar := centre(rows)
			wt := float64(len(rows))
			if df.normal {
				wt = 1
			}
			for _, i := range rows {
				zr, yr := diff(i, mu, ybar)
				add(zr, yr, wt)
			}
		}
	}
	for _, lambda := range lambdas {
		al := mat.DenseCopyOf(a)
		for j := 0; j <= d; j++ {
			al.Set(j, j, al.At(j, j)+lambda)
		}
		var sol mat.Dense
		if err := sol.Solve(al, rhs); err != nil {
			panic(err)
		}
		b := make([]float64, t)
		if df.loss == learn.Squared {
			for c := range b {
				b[c] = sol.At(d, c) * math.Sqrt(df.bias)
			}
		}
		ws, bs = append(ws, mat.DenseCopyOf(sol.Slice(0, d, 0, t))), append(bs, b)
	}
	return ws, bs
}

// holdOuts returns the hold-out sets of the scheme (k-fold by the stream's
// hash folds, whole queries for the query loss).
func (df directFit) holdOuts(cv string, seed uint64) [][]int {
	m := len(df.z)
	var out [][]int
	switch {
	case cv == "loo":
		for i := 0; i < m; i++ {
			out = append(out, []int{i})
		}
	case cv == "lgo" || cv == "lqo":
		idx := map[string]int{}
		for i, g := range df.q {
			if _, ok := idx[g]; !ok {
				idx[g] = len(out)
				out = append(out, nil)
			}
			out[idx[g]] = append(out[idx[g]], i)
		}
	case strings.HasPrefix(cv, "kfold:"):
		k, _ := strconv.Atoi(strings.TrimPrefix(cv, "kfold:"))
		out = make([][]int, k)
		for i := 0; i < m; i++ {
			var f int
			if df.loss == learn.QueryPairs {
				f = GroupFold(df.q[i], seed, k)
			} else {
				f = Fold(Row{Value: df.rawRow(i), Y: df.y[i], Group: df.q[i]}, seed, k)
			}
			out[f] = append(out[f], i)
		}
	}
	return out
}

// predictions returns, per λ, every row's prediction by the model trained
// without its hold-out set (m×t).
func (df directFit) predictions(holds [][]int, lambdas []float64) []*mat.Dense {
	m, t := len(df.z), len(df.y[0])
	out := make([]*mat.Dense, len(lambdas))
	for l := range out {
		out[l] = mat.NewDense(m, t, nil)
	}
	in := make([]bool, m)
	for _, h := range holds {
		if len(h) == 0 {
			continue
		}
		for i := range in {
			in[i] = true
		}
		for _, i := range h {
			in[i] = false
		}
		var tr []int
		for i, ok := range in {
			if ok {
				tr = append(tr, i)
			}
		}
		ws, bs := df.weights(tr, lambdas)
		for l := range lambdas {
			for _, i := range h {
				for c := 0; c < t; c++ {
					f := bs[l][c]
					for j, v := range df.z[i] {
						f += v * ws[l].At(j, c)
					}
					out[l].Set(i, c, f)
				}
			}
		}
	}
	return out
}

// labels returns Y (m×t) and the query codes.
func (df directFit) labels() (*mat.Dense, []int) {
	m, t := len(df.y), len(df.y[0])
	y := mat.NewDense(m, t, nil)
	codes := map[string]int{}
	q := make([]int, m)
	for i := range df.y {
		y.SetRow(i, df.y[i])
		if _, ok := codes[df.q[i]]; !ok {
			codes[df.q[i]] = len(codes)
		}
		q[i] = codes[df.q[i]]
	}
	return y, q
}

// nearestPair is the smallest difference between the predictions of two
// rows that an ordinal measure compares (different labels; the same query
// when the measure works within queries), over every output.
func nearestPair(y, p *mat.Dense, q []int, withinQueries bool) float64 {
	m, t := y.Dims()
	best := math.Inf(1)
	for c := 0; c < t; c++ {
		for i := 0; i < m; i++ {
			for j := i + 1; j < m; j++ {
				if y.At(i, c) != y.At(j, c) && (!withinQueries || q[i] == q[j]) {
					best = math.Min(best, math.Abs(p.At(i, c)-p.At(j, c)))
				}
			}
		}
	}
	return best
}
