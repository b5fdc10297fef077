package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// diabetesGammaScale computes scikit-learn's gamma="scale" of the diabetes
// features by hand: 1/(d·Var X), Var the population variance of all m·d
// entries, every column but the label progression.
func diabetesGammaScale(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var vals []float64
	d := 0
	for _, r := range recs[1:] {
		d = 0
		for j, s := range r {
			if recs[0][j] == "progression" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			vals, d = append(vals, v), d+1
		}
	}
	var sum, ss float64
	for _, v := range vals {
		sum += v
	}
	mu := sum / float64(len(vals))
	for _, v := range vals {
		ss += (v - mu) * (v - mu)
	}
	return 1 / (float64(d) * ss / float64(len(vals)))
}

// fit --kernel gaussian --gamma scale is the fit with γ = 1/(d·Var X)
// computed by hand: the same γ in the summary and the model, the same CV
// curve; with --gamma-grid the values are multiples of it. γ = 1 on the
// unscaled diabetes data makes K ≈ I, and fit warns (with --quiet too),
// naming γ and the remedies; --standardize --gamma scale does not.
// --gamma-grid with the linear kernel is refused suggesting --kernel gaussian.
func TestGammaScale(t *testing.T) {
	const data = "../../docs/data/diabetes.csv"
	dir := t.TempDir()
	g := diabetesGammaScale(t, data)
	common := []string{"fit", "--data", data, "--label", "progression", "--kernel", "gaussian", "--lambda-grid", "2^-12..2^4", "--quiet"}
	model := filepath.Join(dir, "m.json")
	stdout, stderr, err := run(t, "", append(common, "--gamma", "scale", "--model", model)...)
	if err != nil {
		t.Fatalf("--gamma scale: %v\n%s", err, stderr)
	}
	scaled := decodeFit(t, stdout)
	if math.Abs(scaled.GammaScale-g) > 1e-14*g || scaled.Kernel.Gamma != scaled.GammaScale {
		t.Errorf("--gamma scale: gamma_scale %.17g, kernel γ %.17g; by hand %.17g", scaled.GammaScale, scaled.Kernel.Gamma, g)
	}
	if strings.Contains(stderr, "warning: the chosen kernel") || scaled.KernelDegenerate != "" {
		t.Errorf("--gamma scale on raw diabetes: a degenerate-kernel warning %q (%q)", stderr, scaled.KernelDegenerate)
	}
	raw, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Kernel struct{ Gamma float64 } `json:"kernel"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Kernel.Gamma != scaled.Kernel.Gamma {
		t.Errorf("model kernel γ %v (%v), want the resolved %v", m.Kernel.Gamma, err, scaled.Kernel.Gamma)
	}
	stdout, _, err = run(t, "", append(common, "--gamma", strconv.FormatFloat(scaled.Kernel.Gamma, 'g', -1, 64))...)
	if err != nil {
		t.Fatal(err)
	}
	byHand := decodeFit(t, stdout)
	if len(byHand.CV.Curve) != len(scaled.CV.Curve) || byHand.GammaScale != 0 {
		t.Fatalf("curves of %d and %d points, gamma_scale %v without scale", len(byHand.CV.Curve), len(scaled.CV.Curve), byHand.GammaScale)
	}
	for k, pt := range byHand.CV.Curve {
		if q := scaled.CV.Curve[k]; q.Lambda != pt.Lambda || q.Value != pt.Value || q.Indistinguishable != pt.Indistinguishable {
			t.Errorf("λ = %g: --gamma scale %+v, --gamma %g %+v", pt.Lambda, scaled.CV.Curve[k], scaled.Kernel.Gamma, pt)
		}
	}

	// multiples of the scale value
	stdout, _, err = run(t, "", append(common, "--gamma", "scale", "--gamma-grid", "0.5,2")...)
	if err != nil {
		t.Fatal(err)
	}
	grid := decodeFit(t, stdout)
	seen := map[float64]bool{}
	for _, pt := range grid.CV.Curve {
		seen[*pt.Gamma] = true
	}
	if len(seen) != 2 || !seen[0.5*grid.GammaScale] || !seen[2*grid.GammaScale] || grid.GammaScale != scaled.GammaScale {
		t.Errorf("--gamma scale --gamma-grid 0.5,2: γ values %v, scale %v", seen, grid.GammaScale)
	}

	// γ = 1 on unscaled data: K ≈ I
	stdout, stderr, err = run(t, "", append(common, "--gamma", "1")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rlskit: warning: the chosen kernel gaussian(gamma=1) is numerically the identity", "--standardize", "--gamma scale", "--gamma-grid of smaller values"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--gamma 1 on unscaled diabetes, --quiet: stderr %q does not say %q", stderr, want)
		}
	}
	if o := decodeFit(t, stdout); o.KernelDegenerate != "identity" {
		t.Errorf("kernel_degenerate %q, want identity", o.KernelDegenerate)
	}
	// a tiny γ: K ≈ 11ᵀ
	_, stderr, err = run(t, "", append(common, "--gamma", "1e-20")...)
	if err != nil || !strings.Contains(stderr, "is numerically a constant") || !strings.Contains(stderr, "--gamma-grid of larger values") {
		t.Errorf("--gamma 1e-20: %v, stderr %q", err, stderr)
	}
	// standardized, γ = scale = 1/d: no warning
	stdout, stderr, err = run(t, "", append(common, "--standardize", "--gamma", "scale")...)
	if err != nil {
		t.Fatal(err)
	}
	if o := decodeFit(t, stdout); strings.Contains(stderr, "numerically") || o.KernelDegenerate != "" || math.Abs(o.GammaScale-0.1) > 1e-12 {
		t.Errorf("--standardize --gamma scale: gamma_scale %v (want 1/d = 0.1), stderr %q", o.GammaScale, stderr)
	}

	// kernel parameters of another kernel
	for _, args := range [][]string{{"--gamma-grid", "0.1,1"}, {"--gamma", "scale"}} {
		_, _, err = run(t, "", append([]string{"fit", "--data", data, "--label", "progression"}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "does not apply to the linear kernel") || !strings.Contains(err.Error(), "--kernel gaussian") {
			t.Errorf("%v with the linear kernel: %v", args, err)
		}
	}
	_, _, err = run(t, "", "fit", "--data", data, "--label", "progression", "--kernel", "gaussian", "--gamma", "scal")
	if err == nil || !strings.Contains(err.Error(), `--gamma "scal": want a number > 0 or scale`) {
		t.Errorf("--gamma scal: %v", err)
	}
}
