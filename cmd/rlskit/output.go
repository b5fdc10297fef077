package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/selection"
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
