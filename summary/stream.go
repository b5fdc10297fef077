package summary

import (
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/stream"
)

// Stream is the JSON summary of a streamed fit (rlskit fit --stream): the
// fit's and what the passes over the files did.
type Stream struct {
	Fit
	Stream StreamInfo `json:"stream"`
}

// StreamInfo reports the passes of a streamed fit over its files.
type StreamInfo struct {
	Files  []stream.FileStats `json:"files"`
	Bytes  int64              `json:"bytes"`
	Passes []Pass             `json:"passes"`
	// RowsPerSecond is the rows of one pass per second of pass time, over all passes.
	RowsPerSecond float64 `json:"rows_per_s"`
	Workers       int     `json:"workers"`
	BasisRows     []int   `json:"basis_rows,omitempty"`
}

// Pass is one pass over the files: its kind, whether its rows were grouped
// by query, and its wall time.
type Pass struct {
	Kind    string  `json:"kind"`
	Grouped bool    `json:"grouped,omitempty"`
	Seconds float64 `json:"seconds"`
}

// StreamFit is the summary of a streamed fit with the options opt (however
// its passes ran: stream.Run, rlskit-beam's pipelines): the chosen λ, the
// data's shape and queries, the basis ("sparse" form with one, else
// "linear"), and unless opt.CV is "none" the curve and best point with its
// edges. The timing is left to the caller.
func StreamFit(opt stream.Options, res *stream.Result) Fit {
	out := Fit{Learner: string(opt.Learner), Kernel: opt.Kernel, Form: "linear", Lambda: res.Best.Lambda,
		NTrain: res.Rows, NFeatures: res.Width, Outputs: res.Predictor.Outputs, NBasis: len(res.Basis), Backend: linalg.Backend()}
	if res.Basis != nil {
		out.Form = "sparse"
	}
	if res.Groups > 0 {
		out.Queries = &Queries{Count: res.Groups, WithoutPairs: res.SingleRowGroups}
	}
	if opt.CV == "none" {
		return out
	}
	out.CV = &CV{Strategy: opt.CV, Measure: opt.Measure.Name, Best: Point(res.Best, opt.Kernel, false)}
	for _, pt := range res.Curve {
		out.CV.Curve = append(out.CV.Curve, Point(pt, opt.Kernel, false))
	}
	out.CV.Best.OnEdge = res.OnEdge
	if res.Basis != nil {
		out.CV.BasisHoldOut = "keep"
	}
	return out
}

// StreamRun is the summary of stream.Run's fit with the options opt, on
// workers goroutines, that took total seconds: StreamFit, the passes and
// their rate, and the timing (load: the passes' time; train: the rest).
func StreamRun(opt stream.Options, res *stream.RunResult, workers int, total float64) *Stream {
	out := &Stream{Fit: StreamFit(opt, res.Result)}
	var passTime float64
	for n, ps := range res.Passes {
		out.Stream.Passes = append(out.Stream.Passes, Pass{Kind: ps.Kind.String(), Grouped: ps.Grouped, Seconds: res.PassSeconds[n]})
		passTime += res.PassSeconds[n]
	}
	out.Timing = Timing{Load: passTime, Train: total - passTime, Total: total}
	out.Stream.Files, out.Stream.Bytes, out.Stream.Workers, out.Stream.BasisRows = res.Files, res.Bytes, workers, res.Basis
	if passTime > 0 {
		out.Stream.RowsPerSecond = float64(res.Rows) * float64(len(res.Passes)) / passTime
	}
	return out
}
