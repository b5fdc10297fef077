package dataset_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/model"
)

// Acceptance (reliability issue B): a crafted svmlight file of 30 bytes with
// an index of 9·10¹⁸ costs no more than a few MB from reading through
// standardizing, kernel blocks, building linear and kernel predictors and
// predicting one row — every size comes from the stored entries, not the width.
func TestHugeIndexFileAllocatesLittle(t *testing.T) {
	const file = "1 3:1\n2 9000000000000000000:1\n"
	if len(file) > 40 {
		t.Fatalf("%d bytes", len(file))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	d, err := dataset.ReadSVMLight(strings.NewReader(file), "huge.svm", dataset.SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, width := d.X.Dims()
	sc := model.FitScaler(d.X)
	x, err := sc.Transform(d.X)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []kernel.Spec{{Name: "linear", Bias: 1}, {Name: "gaussian", Gamma: 1}} {
		if err := kernel.CheckFinite(s, x); err != nil {
			t.Fatal(err)
		}
		k, _ := kernel.New(s)
		if _, err := k.Block(x, x); err != nil {
			t.Fatal(err)
		}
	}
	coef := mat.NewDense(2, 1, []float64{0.5, -0.25})
	cols := x.(*matrix.CSR).Columns()
	lin := &model.Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: width, Outputs: []string{"y"},
		Scaler: sc, WIndex: cols.Cols, W: cols.MulTDense(coef), B: []float64{0.1}}
	ker := &model.Predictor{Kernel: kernel.Spec{Name: "gaussian", Gamma: 1}, Lambda: 1, Width: width, Outputs: []string{"y"},
		Scaler: sc, Points: x, A: coef}
	row, err := dataset.ReadSVMLight(strings.NewReader("0 9000000000000000000:1\n"), "row.svm", dataset.SVMLightOptions{Width: width})
	if err != nil {
		t.Fatal(err)
	}
	var preds []float64
	for _, p := range []*model.Predictor{lin, ker} {
		y, err := p.Predict(row.X)
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, y.At(0, 0))
	}

	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
		t.Errorf("a %d-byte file of width %d allocated %d bytes", len(file), width, got)
	}
	// Standardized, the row's value is √2 (the column's RMS is 1/√2): the
	// linear model gives 0.1 − 0.25·2, the gaussian one −0.25 + 0.5·e^−4.
	if width != 9000000000000000000 || math.Abs(preds[0]+0.4) > 1e-12 || math.Abs(preds[1]-(-0.25+0.5*math.Exp(-4))) > 1e-12 {
		t.Errorf("width %d, predictions %v", width, preds)
	}
}
