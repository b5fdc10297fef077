package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/stream"
)

// planStream checks the flags of a streaming fit (--stream), after New's own
// checks and before any work.
func planStream(f *Flags, changed func(string) bool, le *learn.Descriptor, cvName string) error {
	if err := le.Require(learn.CanStream); err != nil {
		return fmt.Errorf("--stream trains a learner whose loss streams (--learner %s), not %s: %w", streamLearners(), le.Name, err)
	}
	if f.Data == "-" {
		return errors.New("--stream reads its data more than once: give files (--data 'dir/part-*.svm.gz'), not standard input")
	}
	sparse := f.Basis > 0 || f.BasisRows != ""
	switch {
	case f.Kernel == "precomputed":
		return errors.New("--stream: a precomputed kernel does not stream")
	case f.Kernel != "linear" && !sparse:
		return fmt.Errorf("--stream: the %s kernel streams over a fixed basis: give --basis N or --basis-rows FILE", f.Kernel)
	case f.GammaGrid != "" || f.DegreeGrid != "" || f.Coef0Grid != "":
		return errors.New("--stream takes one kernel setting (every setting would need passes of its own): no --gamma-grid, --degree-grid or --coef0-grid")
	case cvName == "lpo" || cvName == "folds":
		return fmt.Errorf("--stream cross-validates by none, loo, kfold:K (folds by a hash of each row), lgo or lqo, not %s", cvName)
	case f.Solver != "direct":
		return errors.New("--stream solves directly from the statistics: no --solver cg")
	case f.Permutations > 0 || f.Report != "" || f.OneVsAll || f.CVPredictions != "":
		return errors.New("--stream does not take --permutations, --report, --one-vs-all or --cv-predictions (each would hold every row)")
	case f.BasisSelect != "random" || f.BasisDesign != 0:
		return errors.New("--stream draws a random basis from the first rows, or reads --basis-rows: no --basis-select or --basis-design")
	case changed("basis-holdout") && f.BasisHoldOut != "keep":
		return errors.New("--stream keeps the basis in hold-outs: --basis-holdout keep")
	case f.FoldScore != "pooled":
		return errors.New("--stream scores the pooled CV predictions: no --fold-score mean")
	case f.GreedyLambda != 1 && changed("greedy-lambda"):
		return errors.New("--greedy-lambda applies to --basis-select greedy")
	case f.In.Labels != "":
		return fmt.Errorf("--stream reads svmlight or CSV shards, which carry their labels: --labels %s applies to .npy data", f.In.Labels)
	}
	if f.BasisHoldOut != "" {
		f.BasisHoldOut = "keep"
	}
	return nil
}

// streamLearners lists the registered learners that declare
// learn.CanStream, in the order of their losses: "rls, globalrank or
// queryrank".
func streamLearners() string {
	var ds []*learn.Descriptor
	for _, d := range learn.Descriptors() {
		if d.Can(learn.CanStream) {
			ds = append(ds, d)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Loss < ds[j].Loss })
	var names []string
	for _, d := range ds {
		names = append(names, string(d.Name))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// StreamOptions returns the options of a streaming fit (package stream, and
// rlskit-beam's pipelines) for a plan of --stream: the learner and the loss
// its descriptor declares, the kernel, the basis (--basis N, or the rows of
// --basis-rows, read here), the scheme, seed, λ grid and measure,
// --intercept, --standardize and --query-normalize. Its errors are failures (a basis file
// that cannot be read), not usage errors.
func (p *Plan) StreamOptions() (stream.Options, error) {
	f := p.flags
	if p.Pairwise != nil || !f.Stream {
		return stream.Options{}, fmt.Errorf("%w: the plan of --learner %s is not a streaming fit", stream.ErrOptions, f.Learner)
	}
	opt := stream.Options{Learner: p.Learner.Name, Loss: p.Learner.Loss, Kernel: p.Kernels[0], BasisN: f.Basis, CV: p.CVSpec,
		Seed: f.Seed, Lambdas: p.Lambdas, Measure: p.Measure, Intercept: f.Intercept, Standardize: f.Standardize, QueryNormalize: f.QueryNormalize,
		Interval: f.Interval}
	if f.BasisRows != "" {
		fh, err := dataset.OpenData(f.BasisRows)
		if err != nil {
			return opt, err
		}
		defer fh.Close()
		if opt.BasisRows, err = dataset.ReadIndices(fh, f.BasisRows, math.MaxInt32); err != nil {
			return opt, err
		}
	}
	return opt, nil
}

// StreamSource returns the reader options of a streaming fit over files (or
// file patterns; the first one's name decides the format unless --format
// gives it, as fit's reader does: dataset.FormatOf): svmlight or CSV (.csv,
// .tsv), the CSV delimiter, label and query columns, and the svmlight index
// base — 1-based unless --zero-based true, since shards are read apart and
// an automatic base could differ between them. A NumPy or Parquet file is
// an error saying so. Its errors are failures of the input, not usage
// errors.
func (p *Plan) StreamSource(files []string) (stream.Source, error) {
	f := p.flags
	if len(files) == 0 {
		return stream.Source{}, fmt.Errorf("--data %s: no files", f.Data)
	}
	format := f.Format
	if format != "" && format != "csv" && format != "svmlight" {
		return stream.Source{}, fmt.Errorf("--format %q: want svmlight or csv", format)
	}
	if format == "" {
		// the reader fit's would choose (dataset.FormatOf): a NumPy or
		// Parquet file is refused as what it is, not read as svmlight
		for _, name := range files {
			switch k := dataset.FormatOf(strings.TrimSuffix(name, ".gzip")); k {
			case "npy", "npz", "parquet":
				what := map[string]string{"npy": "a NumPy .npy file", "npz": "a NumPy .npz archive", "parquet": "a Parquet file"}[k]
				return stream.Source{}, fmt.Errorf("%s is %s: --stream reads svmlight or CSV shards, a row a line, in passes; fit it in memory (without --stream), or convert it to CSV or svmlight", name, what)
			}
		}
		format = dataset.FormatOf(strings.TrimSuffix(files[0], ".gzip"))
	}
	src := stream.Source{Files: files, Format: format}
	if f.In.ZeroBased == "true" {
		src.SVM.Base = dataset.ZeroBased
	} else if _, err := f.In.Base(nil); err != nil {
		return src, err
	}
	comma, err := f.In.Comma()
	if err != nil {
		return src, err
	}
	src.CSV.Comma = comma
	if format == "csv" {
		for _, l := range strings.Split(f.Label, ",") {
			if l = strings.TrimSpace(l); l != "" {
				src.CSV.Labels = append(src.CSV.Labels, l)
			}
		}
		if len(src.CSV.Labels) == 0 {
			return src, fmt.Errorf("%s: no labels (name the label column(s) with --label)", f.Data)
		}
		src.CSV.Qid = f.Qid
		src.CSV.Columns = f.In.Columns()
	} else if f.Label != "" || f.Qid != "" {
		return src, fmt.Errorf("%s: --label and --qid apply to CSV data; svmlight files carry their labels and qid: fields", f.Data)
	} else if f.In.Features != "" || f.In.Ignore != "" {
		return src, fmt.Errorf("%s: --features and --ignore choose CSV columns; svmlight files have no columns to choose", f.Data)
	}
	return src, nil
}
