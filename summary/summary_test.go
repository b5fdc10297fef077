package summary_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/greedy"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	_ "github.com/rlskit/rlskit/learners" // the registry
	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/model"
	"github.com/rlskit/rlskit/pairwise"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/stream"
	"github.com/rlskit/rlskit/summary"
)

// jsonOf is v as the JSON a front end prints, decoded into maps.
func jsonOf(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// keys are a JSON object's names, sorted and comma-joined.
func keys(v any) string {
	m, _ := v.(map[string]any)
	return strings.Join(slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}), ",")
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }

// jsonEqual says a and b marshal to the same JSON.
func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// sine is a noisy sine of m rows with two features (the second noise) and
// feature names.
func sine(m int, seed uint64) *dataset.Data {
	rng := rand.New(rand.NewPCG(seed, 7))
	x, y := mat.NewDense(m, 2, nil), mat.NewDense(m, 1, nil)
	for i := range m {
		v := 6*rng.Float64() - 3
		x.Set(i, 0, v)
		x.Set(i, 1, rng.NormFloat64())
		y.Set(i, 0, math.Sin(v)+0.3*rng.NormFloat64())
	}
	return &dataset.Data{X: x, Y: y, LabelNames: []string{"y"}, FeatureNames: []string{"x", "noise"}}
}

// measureNamed is a registered measure (a test's name: no error).
func measureNamed(name string) measure.Measure {
	m, err := measure.ByName(name)
	if err != nil {
		panic(err)
	}
	return m
}

// search runs rls on d over the kernels and λ grid by leave-one-out (with
// permutations when perms > 0).
func search(t *testing.T, d *dataset.Data, kernels []kernel.Spec, lambdas []float64, perms int) (*selection.SearchResult, selection.Scheme) {
	t.Helper()
	scheme := selection.Scheme{Kind: selection.LOO, Name: "loo"}
	le, err := learn.Lookup("rls")
	if err != nil {
		t.Fatal(err)
	}
	res, err := selection.Search(selection.Problem{Learner: le, Input: &learn.Input{X: d.X, Y: d.Y, Outputs: d.LabelNames}},
		selection.Settings{Kernels: kernels, Lambdas: lambdas, Scheme: scheme, Measure: measureNamed("mse"), Permutations: perms, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res, scheme
}

// TestSearch: a search over two gaussian kernels and three λ gives fit's
// JSON — its names, the chosen point, every setting's points with their
// gamma, the best point with its edges, the permutation test — and without
// cross-validation no "cv".
func TestSearch(t *testing.T) {
	d := sine(30, 1)
	kernels := []kernel.Spec{{Name: "gaussian", Gamma: 2}, {Name: "gaussian", Gamma: 0.5}}
	lambdas := []float64{1.0 / 16, 1, 16}
	res, scheme := search(t, d, kernels, lambdas, 5)
	out := summary.Search("rls", d, res, scheme, measureNamed("mse"), "")
	out.Timing = summary.Timing{Load: 1, Train: 2, CV: 3, Total: 6}
	j := jsonOf(t, out)
	if got, want := keys(j), "backend,cv,form,kernel,lambda,learner,n_features,n_train,outputs,permutation,timing"; got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	if j["learner"] != "rls" || j["form"] != "dual" || j["lambda"] != res.Lambda || j["n_train"] != 30.0 || j["n_features"] != 2.0 ||
		!reflect.DeepEqual(j["outputs"], []any{"y"}) || j["backend"] == "" {
		t.Errorf("fit %v", j)
	}
	if !reflect.DeepEqual(obj(j["kernel"]), map[string]any{"name": "gaussian", "gamma": res.Kernel.Gamma}) {
		t.Errorf("kernel %v, want %v", j["kernel"], res.Kernel)
	}
	if got := obj(j["timing"]); !reflect.DeepEqual(got, map[string]any{"load_s": 1.0, "train_s": 2.0, "cv_s": 3.0, "total_s": 6.0}) {
		t.Errorf("timing %v", got)
	}
	pr := res.Permutation
	if got := obj(j["permutation"]); !reflect.DeepEqual(got, map[string]any{"permutations": 5.0, "p_value": pr.PValue, "real": pr.Real,
		"null_mean": pr.NullMean, "null_sd": pr.NullSD}) {
		t.Errorf("permutation %v, want %+v", got, pr)
	}
	cv := obj(j["cv"])
	if keys(cv) != "best,choose,chosen,curve,measure,strategy" || cv["strategy"] != "loo" || cv["measure"] != "mse" || cv["choose"] != "best" {
		t.Errorf("cv %v", cv)
	}
	curve := arr(cv["curve"])
	if len(curve) != 6 {
		t.Fatalf("%d points, want 6", len(curve))
	}
	for n, p := range curve {
		c, k := res.Curves[n/3], n%3
		want := map[string]any{"lambda": c.Curve[k].Lambda, "value": c.Curve[k].Value, "gamma": c.Kernel.Gamma}
		if c.Curve[k].Indistinguishable {
			want["indistinguishable"] = true
		}
		if c.Curve[k].NFolds != 30 { // leave-one-out with mse: the spread of the 30 rows' losses
			t.Errorf("point %d: %d per-row values, want 30", n, c.Curve[k].NFolds)
		}
		want["se"], want["fold_mean"] = c.Curve[k].SE, c.Curve[k].FoldMean
		if !reflect.DeepEqual(p, want) {
			t.Errorf("point %d: %v, want %v", n, p, want)
		}
	}
	best := obj(cv["best"])
	bp := res.Curves[res.Best].Best
	if best["lambda"] != bp.Lambda || best["value"] != bp.Value || best["gamma"] != res.Kernel.Gamma || bp.Lambda != res.Lambda {
		t.Errorf("best %v, want %+v with %v", best, bp, res.Kernel)
	}
	if len(res.OnEdge) == 0 || res.Best == 0 {
		t.Fatalf("the test wants a point on an edge (%v) in the second kernel setting (%d)", res.OnEdge, res.Best)
	}
	if !jsonEqual(t, best["on_edge"], res.OnEdge) {
		t.Errorf("on_edge %v, want %v", best["on_edge"], res.OnEdge)
	}
	if !reflect.DeepEqual(obj(cv["chosen"]), best) { // the rule "best" chooses the best point
		t.Errorf("chosen %v, best %v", cv["chosen"], best)
	}

	// one kernel setting: no gamma on the points; no cross-validation: no "cv"
	res, scheme = search(t, d, kernels[:1], lambdas, 0)
	cv = obj(jsonOf(t, summary.Search("rls", d, res, scheme, measureNamed("mse"), "keep"))["cv"])
	for _, p := range append(arr(cv["curve"]), cv["best"]) {
		if _, ok := obj(p)["gamma"]; ok {
			t.Errorf("one kernel setting: %v has gamma", p)
		}
	}
	if cv["basis_holdout"] != "keep" {
		t.Errorf("basis_holdout %v", cv["basis_holdout"])
	}
	j = jsonOf(t, summary.Search("rls", d, res, selection.Scheme{Kind: selection.None, Name: "none"}, measureNamed("mse"), ""))
	if v, ok := j["cv"]; !ok || v != nil {
		t.Errorf("no cross-validation: cv %v (present %v), want null", v, ok)
	}
	if _, ok := j["permutation"]; ok {
		t.Error("no permutation test: permutation in the JSON")
	}
}

// TestPoint: a point names gamma of a gaussian kernel, gamma, degree and
// coef0 of a polynomial one, nothing of a linear one or without a grid.
func TestPoint(t *testing.T) {
	p := selection.Point{Lambda: 2, Value: 0.5, Indistinguishable: true, Features: 3, ColLambda: 4}
	for _, tc := range []struct {
		spec kernel.Spec
		with bool
		want string
	}{
		{kernel.Spec{Name: "gaussian", Gamma: 0.25}, true, `{"lambda":2,"value":0.5,"gamma":0.25,"indistinguishable":true}`},
		{kernel.Spec{Name: "polynomial", Gamma: 0.25, Degree: 3, Coef0: 1}, true, `{"lambda":2,"value":0.5,"gamma":0.25,"degree":3,"coef0":1,"indistinguishable":true}`},
		{kernel.Spec{Name: "linear", Bias: 1}, true, `{"lambda":2,"value":0.5,"indistinguishable":true}`},
		{kernel.Spec{Name: "polynomial", Gamma: 0.25, Degree: 3, Coef0: 1}, false, `{"lambda":2,"value":0.5,"indistinguishable":true}`},
	} {
		b, _ := json.Marshal(summary.Point(p, tc.spec, tc.with))
		if string(b) != tc.want {
			t.Errorf("%v (kernel grid %v): %s, want %s", tc.spec, tc.with, b, tc.want)
		}
	}
}

// TestQueryStats: queries counted, those of one row without pairs; none
// without queries.
func TestQueryStats(t *testing.T) {
	q := summary.QueryStats(&dataset.Data{Queries: []int{0, 0, 1, 2, 2, 2, 3}})
	if q == nil || *q != (summary.Queries{Count: 4, WithoutPairs: 2}) {
		t.Errorf("%+v, want 4 queries, 2 without pairs", q)
	}
	if q := summary.QueryStats(&dataset.Data{}); q != nil {
		t.Errorf("no queries: %+v", q)
	}
}

// dyadic are 6 row and 5 column objects and every pair's label.
func dyadic() *learn.Input {
	rng := rand.New(rand.NewPCG(5, 6))
	rx, cx := mat.NewDense(6, 2, nil), mat.NewDense(5, 2, nil)
	for _, x := range []*mat.Dense{rx, cx} {
		r, c := x.Dims()
		for i := range r {
			for j := range c {
				x.Set(i, j, rng.NormFloat64())
			}
		}
	}
	in := &learn.Input{X: rx, Cols: cx, Y: mat.NewDense(30, 1, nil), Outputs: []string{"y"}}
	for i := range 6 {
		for j := range 5 {
			in.Pairs = append(in.Pairs, learn.ObjectPair{Row: i, Col: j})
			in.Y.Set(len(in.Pairs)-1, 0, rx.At(i, 0)*cx.At(j, 1)+0.1*rng.NormFloat64())
		}
	}
	return in
}

// TestPairSearch: Kronecker RLS over two row kernels and a λ grid by rows
// gives its points each with its kernels, the best with its edges, the
// chosen kernels and λ; without a strategy no "cv".
func TestPairSearch(t *testing.T) {
	le, err := learn.Lookup("kronrls")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := selection.NewScheme("rows", selection.SchemeOptions{RowObjects: 6, ColObjects: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows := []kernel.Spec{{Name: "gaussian", Gamma: 0.5}, {Name: "gaussian", Gamma: 1}}
	cols := []kernel.Spec{{Name: "gaussian", Gamma: 0.25}}
	res, err := selection.Search(selection.Problem{Learner: le, Input: dyadic()}, selection.Settings{Kernels: rows, ColKernels: cols,
		Lambdas: []float64{0.01, 0.1, 1}, Scheme: sc, Measure: measureNamed("mse")})
	if err != nil {
		t.Fatal(err)
	}
	p := summary.Pair{Learner: "kronrls", Setting: summary.Setting(pairwise.Rows)}
	summary.PairSearch(&p, res, "rows", measureNamed("mse"))
	j := jsonOf(t, p)
	if got, want := keys(j), "backend,col_kernel,cols,complete,cv,form,kernel,lambda,learner,n_train,pairs,rows,setting,timing"; got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	if j["form"] != "eigen" || j["lambda"] != res.Lambda || j["setting"] != "B (rows)" || obj(j["kernel"])["gamma"] != res.Kernel.Gamma ||
		obj(j["col_kernel"])["gamma"] != 0.25 {
		t.Errorf("pair fit %v, want the chosen %v λ %v", j, res.Kernel, res.Lambda)
	}
	cv := obj(j["cv"])
	if cv["strategy"] != "rows" || cv["measure"] != "mse" || len(arr(cv["curve"])) != 6 {
		t.Fatalf("cv %v", cv)
	}
	for n, pt := range arr(cv["curve"]) {
		c, k := res.Curves[n/3], n%3
		want := map[string]any{"lambda": c.Curve[k].Lambda, "value": c.Curve[k].Value,
			"kernel": map[string]any{"name": "gaussian", "gamma": c.Kernel.Gamma}, "col_kernel": map[string]any{"name": "gaussian", "gamma": 0.25}}
		if !reflect.DeepEqual(pt, want) {
			t.Errorf("point %d: %v, want %v", n, pt, want)
		}
	}
	best := obj(cv["best"])
	if best["lambda"] != res.Lambda || best["value"] != res.Value || obj(best["kernel"])["gamma"] != res.Kernel.Gamma {
		t.Errorf("best %v, want λ %v value %v %v", best, res.Lambda, res.Value, res.Kernel)
	}
	if len(res.OnEdge) == 0 || !jsonEqual(t, best["on_edge"], res.OnEdge) {
		t.Errorf("on_edge %v, want %v (the test wants one)", best["on_edge"], res.OnEdge)
	}
	q := summary.Pair{}
	summary.PairSearch(&q, res, "", measureNamed("mse"))
	if q.CV != nil || q.Form != "eigen" || q.Lambda != res.Lambda {
		t.Errorf("no strategy: %+v", q)
	}
}

// TestPairConjugateGradients: form cg, λ and kernels, no setting, the
// solver's counts; the early stop's iteration and error only with a
// validation set.
func TestPairConjugateGradients(t *testing.T) {
	res := &pairwise.CGResult{Lambda: 0.5, Iterations: 40, Converged: false, Residual: 1e-3, EarlyStopped: true, BestIteration: 12, ValidationMSE: 0.25}
	col := kernel.Spec{Name: "gaussian", Gamma: 2}
	for _, validation := range []bool{false, true} {
		p := summary.Pair{Setting: "B (rows)"}
		summary.PairConjugateGradients(&p, res, kernel.Spec{Name: "linear"}, &col, validation)
		j := jsonOf(t, p)
		want := `{"iterations":40,"converged":false,"residual":0.001,"early_stopped":true}`
		if validation {
			want = `{"iterations":40,"converged":false,"residual":0.001,"early_stopped":true,"best_iteration":12,"validation_mse":0.25}`
		}
		if b, _ := json.Marshal(p.CG); string(b) != want {
			t.Errorf("validation %v: cg %s, want %s", validation, b, want)
		}
		if j["form"] != "cg" || j["lambda"] != 0.5 || j["setting"] != "none" || obj(j["kernel"])["name"] != "linear" || obj(j["col_kernel"])["gamma"] != 2.0 {
			t.Errorf("validation %v: %v", validation, j)
		}
	}
	p := summary.Pair{}
	summary.PairConjugateGradients(&p, res, kernel.Spec{Name: "linear"}, nil, false)
	if _, ok := jsonOf(t, p)["col_kernel"]; ok {
		t.Error("one set of objects: col_kernel in the JSON")
	}
}

// TestSetting: the settings' names in fit's JSON.
func TestSetting(t *testing.T) {
	for s, want := range map[pairwise.Setting]string{pairwise.Pairs: "A (pairs)", pairwise.Rows: "B (rows)", pairwise.Cols: "C (cols)",
		pairwise.Both: "D (both)", pairwise.Vertices: "vertices", "": "none"} {
		if got := summary.Setting(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}

// streamResult is a streamed fit's result of three λ, two groups (one of a
// single row) and a basis, as stream.Run returns it.
func streamResult() *stream.RunResult {
	curve := []selection.Point{{Lambda: 0.1, Value: 3}, {Lambda: 1, Value: 2, Indistinguishable: true}, {Lambda: 10, Value: 4}}
	return &stream.RunResult{
		Result: &stream.Result{Curve: curve, Best: curve[1], BestIndex: 1, Rows: 100, Width: 7, Groups: 2, SingleRowGroups: 1,
			Basis: []int{3, 5}, OnEdge: []selection.Edge{{Parameter: "lambda", Side: "low"}},
			Predictor: &model.Predictor{Outputs: []string{"label"}},
			Passes:    []stream.Pass{{Kind: stream.StatsPass}, {Kind: stream.PredictPass, Grouped: true}}},
		Files: []stream.FileStats{{Name: "a.svm", Rows: 100, Bytes: 1000}}, Bytes: 1000, PassSeconds: []float64{1, 3},
	}
}

// TestStream: a streamed fit's JSON — fit's (the sparse form of a basis,
// the queries, the curve without kernel parameters, the best point with its
// edges, the basis policy "keep"), the passes and their rate, the timing
// (load: the passes; train: the rest); without cross-validation no "cv".
func TestStream(t *testing.T) {
	opt := stream.Options{Learner: "rls", Kernel: kernel.Spec{Name: "gaussian", Gamma: 0.5}, CV: "kfold:5", Measure: measureNamed("mse")}
	res := streamResult()
	b, err := json.Marshal(summary.StreamRun(opt, res, 4, 10))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"learner":"rls","kernel":{"name":"gaussian","gamma":0.5},"form":"sparse","lambda":1,"n_train":100,"n_features":7,` +
		`"outputs":["label"],"n_basis":2,"queries":{"count":2,"without_pairs":1},"cv":{"strategy":"kfold:5","measure":"mse",` +
		`"curve":[{"lambda":0.1,"value":3},{"lambda":1,"value":2,"indistinguishable":true},{"lambda":10,"value":4}],` +
		`"best":{"lambda":1,"value":2,"indistinguishable":true,"on_edge":[{"parameter":"lambda","side":"low"}]},"basis_holdout":"keep"},` +
		`"timing":{"load_s":4,"train_s":6,"cv_s":0,"total_s":10},"backend":"BACKEND",` +
		`"stream":{"files":[{"name":"a.svm","rows":100,"bytes":1000}],"bytes":1000,` +
		`"passes":[{"kind":"statistics","seconds":1},{"kind":"hold-out predictions","grouped":true,"seconds":3}],` +
		`"rows_per_s":50,"workers":4,"basis_rows":[3,5]}}`
	want = strings.Replace(want, "BACKEND", jsonOf(t, summary.StreamFit(opt, res.Result))["backend"].(string), 1)
	if string(b) != want {
		t.Errorf("stream summary\n%s\nwant\n%s", b, want)
	}
	res.Groups, res.SingleRowGroups = 1, 0
	if q := summary.StreamFit(opt, res.Result).Queries; q == nil || *q != (summary.Queries{Count: 1}) {
		t.Errorf("one group: %+v", q)
	}
	res.Basis, res.Groups, opt.CV = nil, 0, "none"
	j := jsonOf(t, summary.StreamFit(opt, res.Result))
	if j["form"] != "linear" || j["cv"] != nil || j["queries"] != nil || j["n_basis"] != nil {
		t.Errorf("no basis, groups or cross-validation: %v", j)
	}
}

// selectGreedy selects up to 3 of five features (a sine's argument and
// another that counts, three of noise) over the λ grid by leave-one-out.
func selectGreedy(t *testing.T, lambdas []float64) (*dataset.Data, *greedy.Result, greedy.Options) {
	t.Helper()
	d := sine(40, 3)
	rng := rand.New(rand.NewPCG(9, 9))
	x := mat.NewDense(40, 5, nil)
	for i := range 40 {
		x.Set(i, 0, d.X.At(i, 1))
		x.Set(i, 1, rng.NormFloat64())
		x.Set(i, 2, d.X.At(i, 0))
		x.Set(i, 3, rng.NormFloat64())
		x.Set(i, 4, rng.NormFloat64())
		d.Y.Set(i, 0, d.Y.At(i, 0)+x.At(i, 3)) // a second feature that counts
	}
	d.X, d.FeatureNames = x, []string{"a", "b", "sine", "c", "d"}
	opt := greedy.Options{Lambdas: lambdas, Bias: 1, K: 3, Measure: measureNamed("mse")}
	res, err := greedy.Select(d.X, d.Y, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d, res, opt
}

// TestGreedy: a greedy selection's JSON — the linear kernel with its bias,
// the features and names, every path's steps (λ on each of a grid's), the
// best point, the curve over λ (the best over k, ascending λ), the outer
// folds.
func TestGreedy(t *testing.T) {
	lambdas := []float64{4, 0.25}
	d, res, opt := selectGreedy(t, lambdas)
	folds := [][]int{}
	for f := range 2 {
		var fold []int
		for i := f; i < 40; i += 2 {
			fold = append(fold, i)
		}
		folds = append(folds, fold)
	}
	outer, err := greedy.Outer(d.X, d.Y, opt, folds)
	if err != nil {
		t.Fatal(err)
	}
	if res.K < 2 || res.Best == 0 {
		t.Fatalf("the test wants a choice of several features (%d) on the second path (%d)", res.K, res.Best)
	}
	j := jsonOf(t, summary.Greedy("greedy", d, res, opt, "loo", outer))
	if got, want := keys(j), "backend,cv,form,kernel,lambda,learner,n_features,n_train,outer,outputs,selection,timing"; got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	if j["learner"] != "greedy" || j["form"] != "linear" || j["lambda"] != res.Lambda || j["n_features"] != 5.0 ||
		!reflect.DeepEqual(j["kernel"], map[string]any{"name": "linear", "bias": 1.0}) {
		t.Errorf("fit %v", j)
	}
	sel := obj(j["selection"])
	var names []any
	for _, f := range res.Selected {
		names = append(names, d.FeatureNames[f])
	}
	if !jsonEqual(t, sel["selected"], res.Selected) || !reflect.DeepEqual(sel["names"], names) || sel["memory"] != "cached" && sel["memory"] != "lean" {
		t.Errorf("selection %v, want %v %v", sel, res.Selected, names)
	}
	if !slices.Contains(names[:2], "sine") || !slices.Contains(names[:2], "c") {
		t.Errorf("features %v, want sine and c first", names)
	}
	var curve []any
	for _, p := range res.Paths {
		for n, st := range p.Steps {
			pt := map[string]any{"lambda": p.Lambda, "features": float64(n + 1), "value": st.Value, "feature": float64(st.Feature), "name": d.FeatureNames[st.Feature]}
			if st.Indistinguishable {
				pt["indistinguishable"] = true
			}
			curve = append(curve, pt)
		}
	}
	if len(curve) != 6 || !reflect.DeepEqual(sel["curve"], curve) {
		t.Errorf("selection curve\n%v\nwant\n%v", sel["curve"], curve)
	}
	if want := map[string]any{"lambda": res.Lambda, "features": float64(res.K), "value": res.Value}; !reflect.DeepEqual(sel["best"], want) {
		t.Errorf("selection best %v, want %v", sel["best"], want)
	}
	cv := obj(j["cv"])
	var lc []any
	for _, l := range []float64{0.25, 4} { // ascending
		p := res.Paths[slices.Index(lambdas, l)]
		best := p.Steps[0].Value
		for _, st := range p.Steps {
			best = math.Min(best, st.Value) // mse: lower is better
		}
		lc = append(lc, map[string]any{"lambda": l, "value": best})
	}
	if cv["strategy"] != "loo" || cv["measure"] != "mse" || !reflect.DeepEqual(cv["curve"], lc) ||
		!reflect.DeepEqual(cv["best"], map[string]any{"lambda": res.Lambda, "value": res.Value}) {
		t.Errorf("cv %v, want curve %v and best λ %v value %v", cv, lc, res.Lambda, res.Value)
	}
	o := obj(j["outer"])
	if o["folds"] != 2.0 || o["measure"] != "mse" || o["value"] != outer.Value || len(arr(o["per_fold"])) != 2 {
		t.Fatalf("outer %v", o)
	}
	for n, f := range arr(o["per_fold"]) {
		of := outer.Folds[n]
		if obj(f)["lambda"] != of.Lambda || obj(f)["features"] != float64(of.K) || obj(f)["inner"] != of.Inner || !jsonEqual(t, obj(f)["selected"], of.Selected) {
			t.Errorf("outer fold %d: %v, want %+v", n, f, of)
		}
	}

	// one λ: no λ on the steps; no names without names; no outer
	d, res, opt = selectGreedy(t, []float64{1})
	d.FeatureNames = nil
	j = jsonOf(t, summary.Greedy("greedy", d, res, opt, "loo", nil))
	sel = obj(j["selection"])
	if _, ok := sel["names"]; ok {
		t.Errorf("no feature names: names %v", sel["names"])
	}
	for _, p := range arr(sel["curve"]) {
		if _, ok := obj(p)["lambda"]; ok || obj(p)["name"] != nil {
			t.Errorf("one λ, no names: step %v", p)
		}
	}
	if obj(sel["best"])["lambda"] != 1.0 || j["outer"] != nil {
		t.Errorf("best %v (λ always), outer %v", sel["best"], j["outer"])
	}
}

// TestLambdaCurve: the best value over k at each λ, ascending, a λ given
// twice keeping its first path, by the measure's direction.
func TestLambdaCurve(t *testing.T) {
	path := func(l float64, v ...float64) greedy.Path {
		p := greedy.Path{Lambda: l}
		for _, x := range v {
			p.Steps = append(p.Steps, greedy.Step{Value: x})
		}
		return p
	}
	res := &greedy.Result{Paths: []greedy.Path{path(4, 3, 1, 2), path(1, 5, 6, 4), path(4, 0, 0, 0)}}
	for name, want := range map[string][]selection.Point{
		"mse":    {{Lambda: 1, Value: 4}, {Lambda: 4, Value: 1}},
		"cindex": {{Lambda: 1, Value: 6}, {Lambda: 4, Value: 3}},
	} {
		if got := summary.LambdaCurve(res, measureNamed(name)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
