package summary

import (
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairwise"
)

// PairSVM reports the training of the Kronecker support vector machine
// (pairwise.SVMResult): its Newton steps, their conjugate-gradient
// iterations in all, the support vectors (labelled pairs inside the
// margin, y_h f_h < 1) at the solution, the objective
// J = ½(Σ_h max(0, 1 − y_h f_h)² + λ aᵀ𝕂a) there, and whether it converged
// (the margin set unchanged by a step after converged conjugate
// gradients, or the optimality residual, relative to ‖y‖, within the
// tolerance).
type PairSVM struct {
	NewtonSteps    int     `json:"newton_steps"`
	CGIterations   int     `json:"cg_iterations"`
	SupportVectors int     `json:"support_vectors"`
	Objective      float64 `json:"objective"`
	Converged      bool    `json:"converged"`
	Residual       float64 `json:"residual"`
}

// PairSupportVectorMachine records in p a fit of the Kronecker support
// vector machine (res) with kernels row and col: form "newton", its λ, no
// cross-validation setting, and the Newton iteration's work and outcome.
func PairSupportVectorMachine(p *Pair, res *pairwise.SVMResult, row, col kernel.Spec) {
	p.Form, p.Kernel, p.ColKernel, p.Lambda, p.Setting = "newton", row, &col, res.Lambda, Setting("")
	p.SVM = &PairSVM{NewtonSteps: res.NewtonSteps, CGIterations: res.CGIterations, SupportVectors: res.SupportVectors,
		Objective: res.Objective, Converged: res.Converged, Residual: res.Residual}
}
