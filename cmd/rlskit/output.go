package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/selection"
	"github.com/rlskit/rlskit/summary"
)

// edgeWarnings warns of each parameter chosen at an end of its grid.
func edgeWarnings(e *env, edges []selection.Edge) {
	for _, edge := range edges {
		fmt.Fprintf(e.stderr, "rlskit: warning: the chosen %s is the %s end of its grid; the best value may lie beyond it: widen the grid\n",
			edge.Parameter, map[string]string{"low": "lower", "high": "upper"}[edge.Side])
	}
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

// curveTable is a CV curve as a table for --curves: a header and one row per
// point of the curve, in the order the summary's JSON lists them.
type curveTable struct {
	header []string
	rows   [][]string
}

// write writes the table tab-separated: the header line, then the rows.
func (t *curveTable) write(w io.Writer) error {
	if t == nil {
		return errors.New("--curves: this fit has no CV curve")
	}
	lw := newLineWriter(w)
	lw.printf("%s\n", strings.Join(t.header, "\t"))
	for _, r := range t.rows {
		lw.printf("%s\n", strings.Join(r, "\t"))
	}
	return lw.flush()
}

// kernelColumns names the parameters of a kernel that a grid can vary (gamma
// of a gaussian kernel; gamma, degree and coef0 of a polynomial one), with
// prefix; nil for kernels without one (linear, precomputed).
func kernelColumns(prefix, name string) []string {
	switch name {
	case "gaussian":
		return []string{prefix + "gamma"}
	case "polynomial":
		return []string{prefix + "gamma", prefix + "degree", prefix + "coef0"}
	}
	return nil
}

// kernelCells formats spec's parameters for kernelColumns(_, spec.Name).
func kernelCells(spec kernel.Spec) []string {
	switch spec.Name {
	case "gaussian":
		return []string{ftoa(spec.Gamma)}
	case "polynomial":
		return []string{ftoa(spec.Gamma), strconv.Itoa(spec.Degree), ftoa(spec.Coef0)}
	}
	return nil
}

// flagCell is a per-point flag as a number: 1 set, 0 not.
func flagCell(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// fitCurveTable is the table of a fit's CV curve cv (summary.Search or
// summary.StreamRun), searched with kernel k (the chosen one; a point of a
// kernel grid carries its own parameters): the kernel's parameters, lambda,
// value and indistinguishable (1 when the point's CV predictions are within
// rounding of each other).
func fitCurveTable(cv *summary.CV, k kernel.Spec) *curveTable {
	t := &curveTable{header: append(kernelColumns("", k.Name), "lambda", "value", "indistinguishable")}
	for _, pt := range cv.Curve {
		spec := k
		if pt.Gamma != nil {
			spec.Gamma = *pt.Gamma
		}
		if pt.Degree != nil {
			spec.Degree = *pt.Degree
		}
		if pt.Coef0 != nil {
			spec.Coef0 = *pt.Coef0
		}
		t.rows = append(t.rows, append(kernelCells(spec), ftoa(pt.Lambda), ftoa(pt.Value), flagCell(pt.Indistinguishable)))
	}
	return t
}

// pairCurveTable is the table of a fit of pairs' CV curve: the row kernel's
// parameters, the column kernel's (col_…, with two sets of objects), lambda,
// col_lambda (twostep), value and indistinguishable. p is the summary, whose
// kernels are those of every point when a single setting was searched.
func pairCurveTable(p *summary.Pair) *curveTable {
	twoLambdas := false // λ > 0: a second λ is one that is set
	for _, pt := range p.CV.Curve {
		twoLambdas = twoLambdas || pt.ColLambda != 0
	}
	header := kernelColumns("", p.Kernel.Name)
	if p.ColKernel != nil {
		header = append(header, kernelColumns("col_", p.ColKernel.Name)...)
	}
	header = append(header, "lambda")
	if twoLambdas {
		header = append(header, "col_lambda")
	}
	t := &curveTable{header: append(header, "value", "indistinguishable")}
	for _, pt := range p.CV.Curve {
		k, col := p.Kernel, p.ColKernel
		if pt.Kernel != nil {
			k, col = *pt.Kernel, pt.ColKernel
		}
		row := kernelCells(k)
		if col != nil {
			row = append(row, kernelCells(*col)...)
		}
		row = append(row, ftoa(pt.Lambda))
		if twoLambdas {
			row = append(row, ftoa(pt.ColLambda))
		}
		t.rows = append(t.rows, append(row, ftoa(pt.Value), flagCell(pt.Indistinguishable)))
	}
	return t
}

// weightSearchTable is the table of a sum kernel's weight search: the
// weights w1, w2, … of each grid point, its cross-validated mean squared
// error and whether it is the one chosen.
func weightSearchTable(s *summary.WeightSearch) *curveTable {
	var header []string
	if len(s.Grid) > 0 {
		for i := range s.Grid[0].Weights {
			header = append(header, fmt.Sprintf("w%d", i+1))
		}
	}
	t := &curveTable{header: append(header, "mse", "best")}
	for g, pt := range s.Grid {
		var row []string
		for _, w := range pt.Weights {
			row = append(row, ftoa(w))
		}
		t.rows = append(t.rows, append(row, ftoa(pt.MSE), flagCell(g == s.Best)))
	}
	return t
}

// greedyCurveTable is the table of a greedy selection's curve: one row per
// step of every path — lambda (when a grid was searched), the number of
// features, the feature added (0-based) and its name, value and
// indistinguishable.
func greedyCurveTable(s *summary.Selection) *curveTable {
	withLambda := len(s.Curve) > 0 && s.Curve[0].Lambda != nil
	var header []string
	if withLambda {
		header = append(header, "lambda")
	}
	t := &curveTable{header: append(header, "features", "feature", "name", "value", "indistinguishable")}
	for _, st := range s.Curve {
		var row []string
		if withLambda {
			row = append(row, ftoa(*st.Lambda))
		}
		feature := ""
		if st.Feature != nil {
			feature = strconv.Itoa(*st.Feature)
		}
		t.rows = append(t.rows, append(row, strconv.Itoa(st.Features), feature, cellText(st.Name), ftoa(st.Value), flagCell(st.Indistinguishable)))
	}
	return t
}

// cellText replaces the tabs and line breaks of a name by spaces.
func cellText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
