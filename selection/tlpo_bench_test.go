package selection_test

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/rank"
	"github.com/rlskit/rlskit/rls"
	"github.com/rlskit/rlskit/selection"
)

// BenchmarkTournament: tournament leave-pair-out of all m(m−1)/2 pairs at
// one λ (the learner's leave-pair-out set-up, the twin's sample, the
// tournament, the curve and the intervals), gaussian kernel, 3 features.
// The factorization is outside the timing.
func BenchmarkTournament(b *testing.B) {
	for _, learner := range []string{"rls", "globalrank"} {
		for _, m := range []int{500, 1000, 2000} {
			b.Run(fmt.Sprintf("%s/m=%d", learner, m), func(b *testing.B) {
				x, y := tlpoData(m, 3, 3)
				xm := mat.NewDense(m, 3, nil)
				for i, row := range x {
					xm.SetRow(i, row)
				}
				ym := mat.NewDense(m, 1, append([]float64(nil), y...))
				opt := learn.Options{Kernel: kernel.Gaussian{Gamma: 0.3}}
				var l learn.Learner
				var err error
				if learner == "rls" {
					l, err = rls.Fit(xm, ym, opt)
				} else {
					l, err = rank.FitGlobal(xm, ym, opt)
				}
				if err != nil {
					b.Fatal(err)
				}
				tw, err := l.(learn.Perturber).Perturbed(selection.TwinScale)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					s, _ := l.At(0.1) // a fresh solution: its m×m set-up is timed
					s2, _ := tw.At(0.1)
					if _, err := selection.Tournament(s, s2, y, 0.95); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
