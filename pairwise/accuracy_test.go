package pairwise

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// The accuracy docs/performance.md states ("Pairwise learning"): every
// shortcut agrees with retraining on the explicit pairwise kernel matrix or
// the two ridge steps (oracle_test.go) to at most 2.4·10⁻¹⁰ relative, and
// conjugate gradients with a direct solve to 2.4·10⁻¹⁰ — the largest
// differences these tests measure (the cgo and run-time OpenBLAS builds and
// pure Go alike; the worst: Kronecker training, linear kernel, λ = 10⁻⁴, and
// CG on complete data). tol (oracle_test.go) asserts both within 10×, so an
// order-of-magnitude loss of accuracy fails. `go test -v` prints the
// largest difference of each class at the end.
//
// One comparison has its own bound: two-step predictions formed from the
// coefficients, K·A·G, carry the forward error of the products,
// 16ε‖K‖‖A‖‖G‖/‖F‖, which reaches 5·10⁻⁷ for the rank-deficient linear kernel
// at λ_r = λ_c = 10⁻⁴ (TestTwoStepTraining); that class is reported apart.

// Classes of comparison, reported apart.
const (
	classRetraining   = "shortcuts vs retraining"
	classCG           = "conjugate gradients vs a direct solve"
	classCoefficients = "two-step K·A·G vs retraining (its forward-error bound)"
)

// accuracy holds the largest relative difference of each class and where.
var accuracy = struct {
	sync.Mutex
	worst map[string]float64
	where map[string]string
}{worst: map[string]float64{}, where: map[string]string{}}

// classOf is the class of a comparison made in the test t: conjugate
// gradients (the tests of KronCG and its vec trick) or a shortcut.
func classOf(t *testing.T) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	if strings.Contains(top, "CG") || strings.Contains(top, "VecTrick") {
		return classCG
	}
	return classRetraining
}

// agree records e, the relative difference of what from its reference, under
// the test's class and fails the test when e exceeds limit.
func agree(t *testing.T, what string, e, limit float64) {
	t.Helper()
	agreeAs(t, classOf(t), what, e, limit)
}

func agreeAs(t *testing.T, class, what string, e, limit float64) {
	t.Helper()
	accuracy.Lock()
	if _, seen := accuracy.where[class]; !seen || e > accuracy.worst[class] {
		accuracy.worst[class], accuracy.where[class] = e, t.Name()+": "+what
	}
	accuracy.Unlock()
	if e > limit {
		t.Errorf("%s: relative error %.3g > %.3g", what, e, limit)
	}
}

// TestMain prints, with -v, the largest difference of each class.
func TestMain(m *testing.M) {
	code := m.Run()
	if testing.Verbose() {
		for _, c := range []string{classRetraining, classCG, classCoefficients, classPath} {
			if w, ok := accuracy.where[c]; ok {
				fmt.Printf("accuracy: %s: largest relative difference %.2g (%s)\n", c, accuracy.worst[c], w)
			}
		}
	}
	os.Exit(code)
}
