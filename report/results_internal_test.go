package report

import (
	"strings"
	"testing"

	"github.com/rlskit/rlskit/kernel"
)

// TestKernelLabels: curve labels keep only the kernel parameters that
// differ between the curves.
func TestKernelLabels(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"gamma=1 coef0=1 degree=2", "gamma=1 coef0=2^2 degree=2", "gamma=1 coef0=1 degree=3"},
			[]string{"coef0=1 degree=2", "coef0=2^2 degree=2", "coef0=1 degree=3"}},
		{[]string{"gamma=2^-3", "gamma=2^-2"}, []string{"gamma=2^-3", "gamma=2^-2"}},
		{[]string{"gamma=1", "gamma=1"}, []string{"gamma=1", "gamma=1"}},
		{[]string{"a b", "c"}, []string{"a b", "c"}},
		{[]string{"x"}, []string{"x"}},
	} {
		if got := varyingParts(tc.in); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("varyingParts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSpecLabel: kernel settings named with powers of two as 2^k.
func TestSpecLabel(t *testing.T) {
	for spec, want := range map[kernel.Spec]string{
		{Name: "gaussian", Gamma: 0.125}:                    "gamma=2^-3",
		{Name: "polynomial", Gamma: 1, Coef0: 4, Degree: 3}: "gamma=1 coef0=2^2 degree=3",
		{Name: "linear", Bias: 2}:                           "linear, bias=2",
		{Name: "precomputed"}:                               kernel.Spec{Name: "precomputed"}.String(),
	} {
		if got := specLabel(spec); got != want {
			t.Errorf("%v: %q, want %q", spec, got, want)
		}
	}
}
