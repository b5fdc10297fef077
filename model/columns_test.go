package model

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// TestFeatureColumns: the columns of an unnamed array a model was trained on
// round-trip through its file (version 3; a model without them stays version
// 2), and Load refuses them where they cannot be.
func TestFeatureColumns(t *testing.T) {
	p := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 2, Outputs: []string{"y"},
		W: mat.NewDense(2, 1, []float64{2, -1}), B: []float64{0.5}, FeatureColumns: []int{1, 3}}
	var b bytes.Buffer
	if err := p.Save(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, `"version":3`) || !strings.Contains(text, `"feature_columns":[1,3]`) {
		t.Fatalf("saved %s", text)
	}
	q, err := Load(strings.NewReader(text))
	if err != nil || !slices.Equal(q.FeatureColumns, []int{1, 3}) {
		t.Fatalf("loaded %v, %v", q, err)
	}
	p.FeatureColumns = nil
	b.Reset()
	p.Save(&b)
	if strings.Contains(b.String(), "feature_columns") || !strings.Contains(b.String(), `"version":2`) {
		t.Errorf("without columns: %s", b.String())
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"version 2", `"version":3`, `"version":2`, "feature_columns in a version 2 model: they came with version 3"},
		{"with names", `"feature_columns"`, `"features":["a","b"],"feature_columns"`, "both features (names) and feature_columns (numbers)"},
		{"too few", `[1,3]`, `[1]`, "1 feature columns for 2 features"},
		{"decreasing", `[1,3]`, `[3,1]`, "feature_columns: entry 1 (1) is not increasing from 0"},
		{"repeated", `[1,3]`, `[1,1]`, "feature_columns: entry 1 (1) is not increasing from 0"},
		{"negative", `[1,3]`, `[-1,3]`, "feature_columns: entry 0 (-1) is not increasing from 0"},
	} {
		bad := strings.Replace(text, c.from, c.to, 1)
		if bad == text {
			t.Fatalf("%s: %q not in %s", c.name, c.from, text)
		}
		_, err := Load(strings.NewReader(bad))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
