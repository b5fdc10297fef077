package matrix

import (
	"errors"
	"testing"
)

func TestNewCSRChecks(t *testing.T) {
	cases := []struct {
		name    string
		r, c    int
		indptr  []int
		indices []int
		values  []float64
	}{
		{"indptr too short", 2, 3, []int{0, 1}, []int{0}, []float64{1}},
		{"indptr not from 0", 1, 3, []int{1, 1}, []int{0}, []float64{1}},
		{"indptr beyond values", 2, 3, []int{0, 5, 2}, []int{0, 1}, []float64{1, 2}},
		{"indptr decreasing", 2, 3, []int{0, 2, 1}, []int{0, 1}, []float64{1, 2}},
		{"column out of range", 1, 3, []int{0, 1}, []int{3}, []float64{1}},
		{"columns not increasing", 1, 3, []int{0, 2}, []int{1, 1}, []float64{1, 2}},
		{"values and indices differ", 1, 3, []int{0, 1}, []int{0}, []float64{1, 2}},
	}
	for _, c := range cases {
		if _, err := NewCSR(c.r, c.c, c.indptr, c.indices, c.values); !errors.Is(err, ErrShape) {
			t.Errorf("%s: err = %v, want ErrShape", c.name, err)
		}
	}
	m, err := NewCSR(2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.At(0, 2) != 2 || m.At(1, 1) != 3 || m.At(1, 0) != 0 {
		t.Error("At")
	}
	tr := m.Transpose()
	if tr.At(2, 0) != 2 || tr.At(1, 1) != 3 {
		t.Error("Transpose")
	}
	if d := m.ToDense(); d.At(0, 0) != 1 || d.At(1, 1) != 3 {
		t.Error("ToDense")
	}
}
