package model

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pairWithInterval is the "kronrls dense" test model (4×5) with a setting-
// both interval of 2×2 fold blocks.
func pairWithInterval(t *testing.T) *PairPredictor {
	rng := rand.New(rand.NewPCG(5, 6))
	p := testPairPredictors(t)["kronrls dense"]
	iv := &PairInterval{Method: CVPlus, Setting: PairSettingBoth, RowFold: []int{0, 1, 0, 1}, ColFold: []int{1, 0, 0, 1, 0},
		Residuals: mat.NewDense(4, 5, nil)}
	for i := range iv.Residuals.RawMatrix().Data {
		iv.Residuals.RawMatrix().Data[i] = rng.Float64()
	}
	for k := 0; k < 4; k++ {
		iv.Models = append(iv.Models, randDense(rng, 4, 5))
	}
	p.Interval = iv
	return p
}

// TestLoadPairIntervalCorrupt: a pairwise interval that round-trips bit for
// bit is read back; each inconsistent one is refused as corrupt, naming the
// reason.
func TestLoadPairIntervalCorrupt(t *testing.T) {
	var buf bytes.Buffer
	if err := pairWithInterval(t).Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	q, err := LoadPairwise(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := q.Save(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != good {
		t.Fatal("the interval does not round-trip")
	}
	cases := map[string][2]string{
		"method":         {`"method":"cv+"`, `"method":"jackknife+"`},
		"setting":        {`"setting":"both"`, `"setting":"pairs"`},
		"row fold range": {`"row_fold":[0,1,0,1]`, `"row_fold":[0,1,0,7]`},
		"row fold count": {`"row_fold":[0,1,0,1]`, `"row_fold":[0,1,0]`},
		"unused fold":    {`"col_fold":[1,0,0,1,0]`, `"col_fold":[2,0,0,2,0]`},
		"one fold":       {`"row_fold":[0,1,0,1]`, `"row_fold":[0,0,0,0]`},
		"no col folds":   {`,"col_fold":[1,0,0,1,0]`, ``},
		"rows with cols": {`"setting":"both"`, `"setting":"rows"`},
		"residual":       {`"residuals":[[`, `"residuals":[[-1,`},
	}
	for name, c := range cases {
		bad := strings.Replace(good, c[0], c[1], 1)
		if bad == good {
			t.Fatalf("%s: %q not in the file", name, c[0])
		}
		if _, err := LoadPairwise(strings.NewReader(bad)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "interval") {
			t.Errorf("%s: %v, want a corrupt interval", name, err)
		}
	}
	// an interval on a model of entries is refused
	p := testPairPredictors(t)["entries"]
	p.Interval = pairWithInterval(t).Interval
	buf.Reset()
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPairwise(&buf); !errors.Is(err, ErrCorrupt) {
		t.Errorf("interval with entries: %v", err)
	}
	// an interval of setting both needs new rows and new columns
	if _, _, _, err := q.PredictInterval(randDense(rand.New(rand.NewPCG(1, 1)), 2, 3), nil, []int{0}, []int{0}, 0.9); err == nil {
		t.Error("setting both without new columns: no error")
	}
}

// TestKthShifted: the r-th smallest of μ_b ± R over sorted blocks equals
// the r-th of all the values sorted, for every r, on random blocks with
// repeated residuals, zeros and empty blocks.
func TestKthShifted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		nb := 1 + rng.IntN(6)
		blocks := make([][]float64, nb)
		mu := make([]float64, nb)
		for b := range blocks {
			mu[b] = rng.NormFloat64() * 3
			if trial%7 == 0 {
				mu[b] = 0
			}
			for range rng.IntN(9) {
				v := math.Round(rng.Float64()*8) / 4 // ties
				blocks[b] = append(blocks[b], v)
			}
			slices.Sort(blocks[b])
		}
		for _, s := range []float64{-1, 1} {
			var all []float64
			for b, rs := range blocks {
				for _, r := range rs {
					all = append(all, mu[b]+s*r)
				}
			}
			slices.Sort(all)
			for r := 1; r <= len(all); r++ {
				if got := kthShifted(blocks, mu, s, r); got != all[r-1] {
					t.Fatalf("trial %d, s %g, r %d: %v, want %v (%v)", trial, s, r, got, all[r-1], all)
				}
			}
		}
	}
}

// TestLoadPairIntervalCols: an interval of setting cols (column folds only,
// K models) round-trips bit for bit; row folds with it, a row-fold-free
// file of another setting, a model count for other folds and a bad column
// fold are refused as corrupt, and it predicts for training rows with new
// columns only.
func TestLoadPairIntervalCols(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := testPairPredictors(t)["kronrls dense"]
	iv := &PairInterval{Method: CVPlus, Setting: PairSettingCols, ColFold: []int{1, 0, 2, 1, 0}, Residuals: mat.NewDense(4, 5, nil)}
	for i := range iv.Residuals.RawMatrix().Data {
		iv.Residuals.RawMatrix().Data[i] = rng.Float64()
	}
	for k := 0; k < 3; k++ {
		iv.Models = append(iv.Models, randDense(rng, 4, 5))
	}
	p.Interval = iv
	var buf bytes.Buffer
	if err := p.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	q, err := LoadPairwise(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := q.Save(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != good {
		t.Fatal("the interval does not round-trip")
	}
	if q.Interval.Setting != PairSettingCols || q.Interval.RowFold != nil || len(q.Interval.Models) != 3 {
		t.Fatalf("read back setting %q, row folds %v, %d models", q.Interval.Setting, q.Interval.RowFold, len(q.Interval.Models))
	}
	for name, c := range map[string][2]string{
		"row folds":      {`"setting":"cols",`, `"setting":"cols","row_fold":[0,1,0,1],`},
		"rows setting":   {`"setting":"cols"`, `"setting":"rows"`},
		"both setting":   {`"setting":"cols"`, `"setting":"both"`},
		"model count":    {`"col_fold":[1,0,2,1,0]`, `"col_fold":[1,0,1,1,0]`},
		"col fold range": {`"col_fold":[1,0,2,1,0]`, `"col_fold":[1,0,9,1,0]`},
		"no col folds":   {`,"col_fold":[1,0,2,1,0]`, ``},
	} {
		bad := strings.Replace(good, c[0], c[1], 1)
		if bad == good {
			t.Fatalf("%s: %q not in the file", name, c[0])
		}
		if _, err := LoadPairwise(strings.NewReader(bad)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "interval") {
			t.Errorf("%s: %v, want a corrupt interval", name, err)
		}
	}
	x := randDense(rand.New(rand.NewPCG(1, 1)), 2, 3)
	if _, _, _, err := q.PredictInterval(x, nil, []int{0}, []int{0}, 0.9); err == nil || !strings.Contains(err.Error(), "setting cols") {
		t.Errorf("setting cols given new rows: %v", err)
	}
}
