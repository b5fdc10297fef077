package summary

import (
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/mmc"
)

// Cluster is the JSON summary of a fit of a learner that labels unlabelled
// rows (mmc, interactive): its kernel and λ, the rows, the objective J of
// the labelling kept, the cluster sizes, every start (mmc) or step
// (interactive) and one label per row. Every front end prints it.
type Cluster struct {
	Learner   string           `json:"learner"`
	Kernel    string           `json:"kernel"`
	Lambda    float64          `json:"lambda"`
	NTrain    int              `json:"n_train"`
	Clusters  int              `json:"clusters"`
	Objective float64          `json:"objective"`
	Counts    []int            `json:"counts"`
	Best      *int             `json:"best_start,omitempty"`
	Starts    []mmc.Start      `json:"starts,omitempty"`
	Steps     []mmc.StepResult `json:"steps,omitempty"`
	Labels    []int            `json:"labels"`
	Timing    Timing           `json:"timing"`
}

// Clustering builds the summary of the solution sol of the learner named
// learner, at the kernel spec and λ, on m rows. O(1): it shares sol's slices.
func Clustering(learner string, spec kernel.Spec, lambda float64, m int, sol *mmc.Solution) *Cluster {
	out := &Cluster{Learner: learner, Kernel: spec.String(), Lambda: lambda, NTrain: m, Clusters: len(sol.Counts),
		Objective: sol.Objective, Counts: sol.Counts, Starts: sol.Starts, Steps: sol.Trace, Labels: sol.Labels}
	if sol.Starts != nil {
		out.Best = &sol.Best
	}
	return out
}
