package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/pairkernel"
)

// planPairKernel checks --pair-kernel and --pair-kernel-weights after the
// rest of a plan of pairs: the pairwise kernel of package pairkernel trains
// the Kronecker RLS loss by conjugate gradients (a learner of pairs that
// declares learn.CanCG) at one λ without cross-validation, from features
// (not a precomputed kernel, not standardized: the model file keeps the
// training objects as given). symmetric, antisymmetric and ranking compare
// a pair's row object with the other pair's column object, so they need one
// object set (--cols same); sum takes one weight w_i ≥ 0 per term
// k_i⊗g_i, k_i the i-th kernel of the --kernel grid and g_i of the
// --col-kernel grid (the row grid again for --cols same), a side with one
// kernel sharing it with every term; several weight vectors separated by
// ':' are a grid chosen from by cross-validation over row or column object
// folds (planWeightSearch). It sets PairKernel, PairWeights (one vector)
// or PairWeightGrid, PairRowKernels and PairColKernels, and clears Setting
// unless a grid is searched. O(number of flags).
func planPairKernel(f *Flags, p *PairPlan, changed func(string) bool) error {
	if f.PairKernel == "" {
		if changed("pair-kernel-weights") {
			return errors.New("--pair-kernel-weights goes with --pair-kernel sum")
		}
		if changed("pair-kernel") {
			return errors.New("--pair-kernel \"\": want kronecker, cartesian, symmetric, antisymmetric, ranking or sum")
		}
		return nil
	}
	flag := "--pair-kernel " + f.PairKernel
	kind, err := pairkernel.ParseKind(f.PairKernel)
	if err != nil {
		return fmt.Errorf("--pair-kernel: %w", err)
	}
	switch {
	case !kronCG(p.Learner):
		return fmt.Errorf("%s trains --learner %s by conjugate gradients, not %s", flag, kronCGNames(), p.Learner.Name)
	case kind.Homogeneous() && !p.Homogeneous:
		return fmt.Errorf("%s compares a pair's row object with the other pair's column object: the rows and columns must be one set of objects (--cols same), not --cols %s", flag, f.Cols)
	case changed("symmetry"):
		return fmt.Errorf("--symmetry %s with %s: the pairwise kernel is the symmetry (symmetric, antisymmetric)", f.Symmetry, flag)
	case len(p.Lambdas) != 1:
		return fmt.Errorf("%s fits one model: give one --lambda, not a grid of %d", flag, len(p.Lambdas))
	case f.ValidationPairs != "":
		return fmt.Errorf("--validation-pairs %s with %s: early stopping is not available for the pairwise kernels", f.ValidationPairs, flag)
	case f.Standardize:
		return fmt.Errorf("--standardize with %s: its model keeps the objects as given; standardize them beforehand", flag)
	case f.CVPredictions != "":
		return fmt.Errorf("--cv-predictions with %s: the pairwise kernels write no cross-validation predictions", flag)
	case f.Interval != "":
		return fmt.Errorf("--interval %s with %s: there is no cross-validation to build it from", f.Interval, flag)
	case changed("outer-folds"):
		return fmt.Errorf("--outer-folds %s with %s: nested cross-validation is not available for the pairwise kernels", f.OuterFoldsArg, flag)
	}
	rows, cols := p.RowKernels, p.ColKernels
	if p.Homogeneous {
		cols = rows
	}
	for _, s := range append(append([]kernel.Spec(nil), rows...), cols...) {
		if s.Name == "precomputed" {
			return fmt.Errorf("--kernel precomputed with %s: its model predicts for new objects from their features; give features and a kernel", flag)
		}
	}
	var grid [][]float64
	if kind == pairkernel.Sum {
		if f.PairKernelWeights == "" {
			return fmt.Errorf("%s needs --pair-kernel-weights w1,w2,…: one weight per term (or a grid w1,w2,…:w1',w2',…)", flag)
		}
		var err error
		if grid, err = parseWeightGrid(f.PairKernelWeights); err != nil {
			return err
		}
		if err := planWeightSearch(f, p, len(grid)); err != nil {
			return err
		}
		n := len(grid[0])
		for _, side := range []struct {
			flag  string
			specs *[]kernel.Spec
		}{{"--kernel", &rows}, {"--col-kernel", &cols}} {
			switch len(*side.specs) {
			case n:
			case 1:
				one := (*side.specs)[0]
				*side.specs = make([]kernel.Spec, n)
				for i := range *side.specs {
					(*side.specs)[i] = one
				}
			default:
				return fmt.Errorf("--pair-kernel-weights %s: %d weights, but the %s grid has %d kernels (want %d, or 1 shared by every term)", f.PairKernelWeights, n, side.flag, len(*side.specs), n)
			}
		}
	} else {
		if p.CVGiven && p.CVSpec != "none" {
			return fmt.Errorf("--cv %s with %s: it trains by conjugate gradients at one λ, without cross-validation (--cv none); only --pair-kernel sum cross-validates, to choose its weights from a grid", p.CVSpec, flag)
		}
		if changed("pair-kernel-weights") {
			return fmt.Errorf("--pair-kernel-weights %s: only --pair-kernel sum takes weights, not %s", f.PairKernelWeights, f.PairKernel)
		}
		if len(rows) != 1 || len(cols) != 1 {
			return fmt.Errorf("%s fits one model: give one kernel setting (no --gamma-grid, --col-gamma-grid, …), or --pair-kernel sum with weights", flag)
		}
		if kind.Homogeneous() {
			cols = nil
		}
	}
	p.PairKernel, p.PairRowKernels, p.PairColKernels = kind, rows, cols
	if len(grid) > 1 {
		p.PairWeightGrid = grid // the search keeps the setting planCV chose
		return nil
	}
	if len(grid) == 1 {
		p.PairWeights = grid[0]
	}
	p.Setting, p.CVSpec = "", "none"
	return nil
}

// parseWeightGrid reads --pair-kernel-weights: one weight vector
// w1,w2,… (each a finite number ≥ 0, not all 0), or several separated by
// ':' — a grid to choose from by cross-validation — all of one length.
func parseWeightGrid(arg string) ([][]float64, error) {
	var grid [][]float64
	vecs := strings.Split(arg, ":")
	for g, vec := range vecs {
		of := "" // which vector, in a grid
		if len(vecs) > 1 {
			of = fmt.Sprintf(" of vector %d", g+1)
		}
		var weights []float64
		allZero := true
		for i, s := range strings.Split(vec, ",") {
			w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
				return nil, fmt.Errorf("--pair-kernel-weights %s: weight %d (%q)%s is not a finite number ≥ 0", arg, i+1, s, of)
			}
			weights = append(weights, w)
			allZero = allZero && w == 0
		}
		if allZero {
			return nil, fmt.Errorf("--pair-kernel-weights %s: every weight%s is 0 (the kernel would be 0)", arg, of)
		}
		if g > 0 && len(weights) != len(grid[0]) {
			return nil, fmt.Errorf("--pair-kernel-weights %s: vector %d has %d weights, vector 1 %d", arg, g+1, len(weights), len(grid[0]))
		}
		grid = append(grid, weights)
	}
	return grid, nil
}

// planWeightSearch checks the cross-validation of a weight grid of n
// vectors: a grid needs --cv rows[:K] or cols[:K] (new row or column
// objects: every model is refitted without the fold's pairs by conjugate
// gradients — there is no closed-form hold-out — so leave-one-pair-out
// would refit once per pair, and the settings both and vertices do not
// split the pairs into folds); one vector takes no cross-validation.
func planWeightSearch(f *Flags, p *PairPlan, n int) error {
	name, _, _ := strings.Cut(p.CVSpec, ":")
	switch {
	case n == 1 && p.CVGiven && p.CVSpec != "none":
		return fmt.Errorf("--cv %s with one weight vector (--pair-kernel-weights %s): cross-validation chooses from a grid of them (w1,w2,…:w1',w2',…); one trains without it (--cv none)", p.CVSpec, f.PairKernelWeights)
	case n == 1:
		return nil
	case !p.CVGiven || p.CVSpec == "none":
		return fmt.Errorf("--pair-kernel-weights %s: a grid of %d weight vectors is chosen from by cross-validation: give --cv rows[:K] or cols[:K]", f.PairKernelWeights, n)
	case name != "rows" && name != "cols":
		return fmt.Errorf("--cv %s with a weight grid: the weights are chosen by refitting without each fold of row objects (--cv rows[:K]) or column objects (--cv cols[:K]); %s has no such folds", p.CVSpec, name)
	}
	return nil
}

// pairKernelNames are the values of --pair-kernel (completion).
func pairKernelNames() []string {
	var out []string
	for _, k := range pairkernel.Kinds() {
		out = append(out, string(k))
	}
	return out
}
