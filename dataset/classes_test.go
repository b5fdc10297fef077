package dataset

import (
	"errors"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestOneVsAll(t *testing.T) {
	y, classes, err := OneVsAll([]float64{2, 0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(4, 3, []float64{-1, -1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1})
	if !mat.Equal(y, want) || !reflect.DeepEqual(classes, []float64{0, 1, 2}) {
		t.Fatalf("got %v %v", mat.Formatted(y), classes)
	}
	if got := ClassNames([]float64{0, 1.5}); !reflect.DeepEqual(got, []string{"0", "1.5"}) {
		t.Errorf("names %v", got)
	}
	if _, _, err := OneVsAll([]float64{1, 1}); !errors.Is(err, ErrOptions) {
		t.Errorf("one class: %v", err)
	}
	if _, err := EncodeClasses([]float64{0, 7}, classes); !errors.Is(err, ErrOptions) {
		t.Errorf("unknown class: %v", err)
	}
}
