package cv_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/rlskit/rlskit/cv"
)

// TestComplement checks Complement against the definition: the rows of
// 0…m-1 that h does not contain, ascending. Indices of h outside [0,m)
// name no row and are ignored.
func TestComplement(t *testing.T) {
	for _, tc := range []struct {
		h    []int
		m    int
		want []int
	}{
		{[]int{1, 3}, 5, []int{0, 2, 4}},
		{[]int{0}, 3, []int{1, 2}},
		{[]int{2}, 3, []int{0, 1}},
		{nil, 3, []int{0, 1, 2}},
		{[]int{2, 0, 1}, 3, nil},
		{[]int{-1, 3, 4, 7}, 4, []int{0, 1, 2}},
		{[]int{-2, 0}, 2, []int{1}},
	} {
		t.Run(fmt.Sprint(tc.h, tc.m), func(t *testing.T) {
			if got := cv.Complement(tc.h, tc.m); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Complement(%v, %d) = %v, want %v", tc.h, tc.m, got, tc.want)
			}
		})
	}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 50; trial++ {
		m := 1 + r.IntN(20)
		var h []int
		for n := r.IntN(m + 3); n > 0; n-- {
			h = append(h, r.IntN(m+4)-2)
		}
		var want []int
		for i := 0; i < m; i++ {
			if !slices.Contains(h, i) {
				want = append(want, i)
			}
		}
		if got := cv.Complement(h, m); !reflect.DeepEqual(got, want) {
			t.Errorf("Complement(%v, %d) = %v, want %v", h, m, got, want)
		}
	}
}
