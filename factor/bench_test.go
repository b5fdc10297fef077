package factor

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// BenchmarkBuildLinear: the linear form of m rows of d = 50 standard normal
// features with bias 1 — the data laid out for the thin SVD of the m×51
// matrix, the SVD (O(m·d²)), the leverages. B/op shows the copies of the
// data: U, the column-major matrix the SVD overwrites, and nothing else of
// size m×51.
//
//	go test -run xxx -bench BuildLinear -benchmem ./factor
func BenchmarkBuildLinear(b *testing.B) {
	for _, m := range []int{10000, 50000, 100000} {
		x := randX(rand.New(rand.NewPCG(50, uint64(m))), m, 50)
		b.Run(fmt.Sprintf("m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(x, kernel.Linear{Bias: 1}, Request{Form: Linear}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
