package plan

import (
	"strings"
	"testing"

	_ "github.com/rlskit/rlskit/mmc" // registers mmc and interactive
)

// TestPlanCluster: the plan of a clustering fit is one kernel and one λ
// (1 unless --lambda), and a streaming front end (rlskit-beam sets Stream
// without the flag) is refused for it.
func TestPlanCluster(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, g := range names {
				if g == n {
					return true
				}
			}
			return false
		}
	}
	f := &Flags{Data: "d.csv", Learner: "mmc", Kernel: "gaussian", Gamma: 0.5, Clusters: 3, Solver: "direct", BasisSelect: "random"}
	p, err := New(f, given("clusters"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Kernels) != 1 || len(p.Lambdas) != 1 || p.Lambdas[0] != 1 || p.CVSpec != "none" {
		t.Fatalf("plan %+v", p)
	}
	f.Lambda = 0.25
	if p, err = New(f, given("clusters", "lambda")); err != nil || p.Lambdas[0] != 0.25 {
		t.Fatalf("--lambda 0.25: %v, %v", p, err)
	}
	f.Stream = true
	if _, err := New(f, given("clusters")); err == nil || !strings.Contains(err.Error(), "does not stream") {
		t.Fatalf("streaming mmc: %v", err)
	}
}
