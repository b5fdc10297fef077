package measure

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sklearnScript reads labels and predictions as JSON on stdin and prints
// scikit-learn's values of the five measures. rmse uses
// root_mean_squared_error where it exists (scikit-learn ≥ 1.4), else
// mean_squared_error(squared=False): both take the root per output, then the
// mean. The binary measures get the classes as rlskit reads them, y > 0 and
// p > 0; f1 of several outputs is the macro average over the columns of the
// multilabel indicator matrices.
const sklearnScript = `
import json, sys
import numpy as np
from sklearn import metrics
d = json.load(sys.stdin)
out = []
for c in d:
    Y, P = np.array(c["y"]), np.array(c["p"])
    if c["kind"] == "regression":
        if hasattr(metrics, "root_mean_squared_error"):
            rmse = metrics.root_mean_squared_error(Y, P)
        else:
            rmse = metrics.mean_squared_error(Y, P, squared=False)
        out.append({"r2": metrics.r2_score(Y, P), "mae": metrics.mean_absolute_error(Y, P), "rmse": rmse})
    else:
        yb, pb = Y > 0, P > 0
        ba = np.mean([metrics.balanced_accuracy_score(yb[:, j], pb[:, j]) for j in range(Y.shape[1])])
        out.append({"balanced-accuracy": ba, "f1": metrics.f1_score(yb, pb, average="macro") if Y.shape[1] > 1 else metrics.f1_score(yb[:, 0], pb[:, 0])})
print(json.dumps(out))
`

// sklearnPython returns /usr/bin/python3 when it imports scikit-learn. It
// skips the test otherwise — except under CI (the CI environment variable
// set), where .ci/run installs python3-sklearn and a skip would hide an
// unchecked convention.
func sklearnPython(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy, sklearn").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s with numpy and scikit-learn is missing under CI (.ci/run installs python3-sklearn): %v", py, err)
		}
		t.Skipf("%s with numpy and scikit-learn is not available: the measures are not compared with sklearn.metrics (%v)", py, err)
	}
	return py
}

// TestMeasuresMatchSklearn scores random labels and predictions — one and
// three outputs, continuous for r2, mae and rmse; ±1, 0/1 and real labels
// with predictions tied at 0 for balanced-accuracy and f1 — with Score and
// with sklearn.metrics, and requires agreement to 1e-12 relative.
func TestMeasuresMatchSklearn(t *testing.T) {
	py := sklearnPython(t)
	rnd := rand.New(rand.NewPCG(24, 9))
	type matCase struct {
		Kind string      `json:"kind"`
		Y    [][]float64 `json:"y"`
		P    [][]float64 `json:"p"`
	}
	var cases []matCase
	for k := range 12 {
		m, outs := 5+rnd.IntN(40), 1+2*(k%2)
		c := matCase{Kind: "regression"}
		if k >= 6 {
			c.Kind = "binary"
		}
		for range m {
			yr, pr := make([]float64, outs), make([]float64, outs)
			for j := range outs {
				switch {
				case c.Kind == "regression":
					yr[j], pr[j] = 100*float64(j)+rnd.NormFloat64()*float64(1+j), 100*float64(j)+rnd.NormFloat64()
				case k%3 == 0: // ±1 labels, predictions in {−1, 0, 1}: ties at 0
					yr[j], pr[j] = float64(2*rnd.IntN(2)-1), float64(rnd.IntN(3)-1)
				case k%3 == 1: // 0/1 labels, real predictions
					yr[j], pr[j] = float64(rnd.IntN(2)), rnd.NormFloat64()
				default: // real labels, imbalanced: about a quarter > 0
					yr[j], pr[j] = rnd.NormFloat64()-0.7, rnd.NormFloat64()-0.5
				}
			}
			c.Y, c.P = append(c.Y, yr), append(c.P, pr)
		}
		cases = append(cases, c)
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", sklearnScript)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	var want []map[string]float64
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(cases) {
		t.Fatalf("python output %q: %v", out, err)
	}
	worst := 0.0
	for k, c := range cases {
		m, outs := len(c.Y), len(c.Y[0])
		Y, P := mat.NewDense(m, outs, nil), mat.NewDense(m, outs, nil)
		for i := range m {
			Y.SetRow(i, c.Y[i])
			P.SetRow(i, c.P[i])
		}
		for name, w := range want[k] {
			meas, err := ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := meas.Score(Y, P, nil)
			if err != nil {
				t.Fatalf("case %d (%s, %d×%d) %s: %v", k, c.Kind, m, outs, name, err)
			}
			rel := math.Abs(got-w) / math.Max(1, math.Abs(w))
			worst = math.Max(worst, rel)
			if !(rel <= 1e-12) {
				t.Errorf("case %d (%s, %d×%d) %s: rlskit %.17g, scikit-learn %.17g", k, c.Kind, m, outs, name, got, w)
			}
		}
	}
	t.Logf("largest relative difference from scikit-learn: %.1e", worst)
}
