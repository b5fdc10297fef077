package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/selection"
)

// fitOutput is the JSON printed by fit (the CLI contract).
type fitOutput struct {
	Learner   string      `json:"learner"`
	Kernel    kernel.Spec `json:"kernel"`
	Form      string      `json:"form"`
	Lambda    float64     `json:"lambda"`
	NTrain    int         `json:"n_train"`
	NFeatures int         `json:"n_features"`
	Outputs   []string    `json:"outputs"`
	NBasis    int         `json:"n_basis,omitempty"`
	CG        *cgOutput   `json:"cg,omitempty"`
	Perm      *permOutput `json:"permutation,omitempty"`
	Queries   *queryInfo  `json:"queries,omitempty"`
	CV        *cvOutput   `json:"cv"`
	Timing    timing      `json:"timing"`
	Backend   string      `json:"backend"`

	// Selection and Outer: --learner greedy (cmd/rlskit/greedy.go).
	Selection *selectionOutput `json:"selection,omitempty"`
	Outer     *outerOutput     `json:"outer,omitempty"`
}

// queryInfo reports the queries; those with a single row have no pairs.
type queryInfo struct {
	Count        int `json:"count"`
	WithoutPairs int `json:"without_pairs"`
}

func queryStats(d *dataset.Data) *queryInfo {
	size := map[int]int{}
	for _, q := range d.Queries {
		size[q]++
	}
	info := &queryInfo{Count: len(size)}
	for _, n := range size {
		if n < 2 {
			info.WithoutPairs++
		}
	}
	return info
}

// permOutput reports a permutation test.
type permOutput struct {
	Permutations int     `json:"permutations"`
	PValue       float64 `json:"p_value"`
	Real         float64 `json:"real"`
	NullMean     float64 `json:"null_mean"`
	NullSD       float64 `json:"null_sd"`
}

// cgOutput reports the conjugate-gradient solver per output.
type cgOutput struct {
	Iterations []int     `json:"iterations"`
	Converged  []bool    `json:"converged"`
	Residual   []float64 `json:"residual"`
}

type cvOutput struct {
	Strategy string       `json:"strategy"`
	Measure  string       `json:"measure"`
	Curve    []curvePoint `json:"curve"`
	Best     curvePoint   `json:"best"`
	// BasisHoldOut is the sparse models' basis policy in hold-outs.
	BasisHoldOut string `json:"basis_holdout,omitempty"`
}

type curvePoint struct {
	Lambda float64  `json:"lambda"`
	Value  float64  `json:"value"`
	Gamma  *float64 `json:"gamma,omitempty"`
	Degree *int     `json:"degree,omitempty"`
	Coef0  *float64 `json:"coef0,omitempty"`
	// Indistinguishable marks CV predictions within their rounding error of
	// each other: ordinal measures score them as ties.
	Indistinguishable bool `json:"indistinguishable,omitempty"`
	// OnEdge (on the best point only) lists the parameters chosen at an end of their grid.
	OnEdge []selection.Edge `json:"on_edge,omitempty"`
}

type timing struct {
	Load  float64 `json:"load_s"`
	Train float64 `json:"train_s"`
	CV    float64 `json:"cv_s"`
	Total float64 `json:"total_s"`
}

func point(p selection.Point, spec kernel.Spec, withKernel bool) curvePoint {
	c := curvePoint{Lambda: p.Lambda, Value: p.Value, Indistinguishable: p.Indistinguishable}
	if withKernel {
		switch spec.Name {
		case "gaussian":
			c.Gamma = &spec.Gamma
		case "polynomial":
			c.Gamma, c.Degree, c.Coef0 = &spec.Gamma, &spec.Degree, &spec.Coef0
		}
	}
	return c
}

// writeCVPredictions writes a header line naming the columns, then one line
// per training row with the CV prediction of each output (tab-separated, the
// outputs' names in the header; NaN for rows in no fold), or for leave-pair-out
// one line per pair "i j pred_i pred_j" (0-based rows; preceded by the output's
// index, named in the header as output, when there are several outputs).
func writeCVPredictions(w io.Writer, res *selection.Result, y *mat.Dense, names []string) error {
	if res.Predictions != nil {
		return writeRowPredictions(w, res.Predictions, names)
	}
	_, t := y.Dims()
	bw := newLineWriter(w)
	if t > 1 {
		bw.printf("output\t")
	}
	bw.printf("i\tj\tpred_i\tpred_j\n")
	for _, p := range res.PairPredictions {
		if t > 1 {
			bw.printf("%d\t", p.Output)
		}
		bw.printf("%d\t%d\t%s\t%s\n", p.I, p.J, ftoa(p.PI), ftoa(p.PJ))
	}
	return bw.flush()
}

// writeRowPredictions writes the header line of output names (output1, … when
// a name is missing; tabs and line breaks in a name become spaces), then the
// rows of P tab-separated.
func writeRowPredictions(w io.Writer, p *mat.Dense, names []string) error {
	_, t := p.Dims()
	cols := make([]string, t)
	for j := range cols {
		cols[j] = fmt.Sprintf("output%d", j+1)
		if j < len(names) && names[j] != "" {
			cols[j] = strings.Map(func(r rune) rune {
				if r == '\t' || r == '\n' || r == '\r' {
					return ' '
				}
				return r
			}, names[j])
		}
	}
	if _, err := io.WriteString(w, strings.Join(cols, "\t")+"\n"); err != nil {
		return err
	}
	return dataset.WritePredictions(w, p)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
