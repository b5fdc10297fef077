package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
)

// PairVersion is the pairwise model file format version this build writes
// and reads. Pairwise models have their own format name, so a build reads
// both kinds of file and tells them apart (IsPairwise).
const PairVersion = 1

const pairFormatName = "rlskit-pairwise-model"

// PairSide is one object set of a pairwise model: its kernel, the width of
// an object's features, the standardization and the training objects the
// kernel is evaluated against.
type PairSide struct {
	Kernel   kernel.Spec
	Width    int
	Features []string
	// ZeroBased records that the side's svmlight objects were read with
	// 0-based feature indices (scikit-learn's dump_svmlight_file), so that
	// new objects are read the same way.
	ZeroBased bool
	Scaler    *Scaler
	// Points are the (standardized) training objects: *mat.Dense,
	// *matrix.CSR, or the unit rows of a precomputed kernel.
	Points mat.Matrix
}

// Len returns the number of training objects.
func (s *PairSide) Len() int { r, _ := s.Points.Dims(); return r }

// Block returns the kernel between the objects X (raw features, or kernel
// values against the training objects for a precomputed kernel) and the
// training objects. O(|X|·n·d).
func (s *PairSide) Block(x mat.Matrix) (*mat.Dense, error) {
	_, d := x.Dims()
	if d != s.Width {
		return nil, fmt.Errorf("%w: objects have %d features, the model %d", ErrWidth, d, s.Width)
	}
	if err := kernel.CheckFinite(s.Kernel, x); err != nil {
		return nil, err
	}
	k, err := kernel.New(s.Kernel)
	if err != nil {
		return nil, err
	}
	if s.Scaler != nil {
		if x, err = s.Scaler.Transform(x); err != nil {
			return nil, err
		}
	}
	return k.Block(x, s.Points)
}

// training returns the kernel between the training objects idx and all
// training objects (the points are stored standardized). A precomputed
// kernel's training matrix is not stored: nil.
func (s *PairSide) training(idx []int) (*mat.Dense, error) {
	if s.Kernel.Name == "precomputed" {
		return nil, nil
	}
	k, err := kernel.New(s.Kernel)
	if err != nil {
		return nil, err
	}
	return k.Block(kernel.Rows(s.Points, idx), s.Points)
}

// PairEntry is one coefficient of a model trained on incomplete data: the
// weight of an observed (row, column) pair.
type PairEntry struct {
	Row, Col int
	Value    float64
}

// PairPredictor is a trained pairwise model,
//
//	f(u, v) = k(u)ᵀ A g(v) = Σ_ij A_ij k(u, u_i) g(v, v_j),
//
// with A dense (m×q, complete data) or given by its non-zero Entries (the
// observed pairs of a model trained by conjugate gradients). On a
// homogeneous network Rows and Cols are the same side.
type PairPredictor struct {
	// Learner is "kronrls", "twostep", "kronrank" or "kronsvm" (the
	// support vector machine: Entries, two sets of objects).
	Learner string
	// Lambda is λ (two-step: the row λ); ColLambda two-step's column λ.
	Lambda, ColLambda float64
	// Symmetry is "", "symmetric" or "antisymmetric".
	Symmetry string
	// Output names the label.
	Output     string
	Rows, Cols *PairSide
	A          *mat.Dense
	Entries    []PairEntry
	// Interval, when set, holds the hold-out models of CV+ intervals for
	// new rows or new rows and columns (pair_interval.go); only with A
	// dense on two sets of objects.
	Interval *PairInterval
}

// Homogeneous reports whether rows and columns are the same objects.
func (p *PairPredictor) Homogeneous() bool { return p.Symmetry != "" }

// Predict returns f(u_k, v_k) for the pairs (rows[k], cols[k]), indices into
// the objects rowX and colX — new objects, given as the side's kernel
// takes them — or into the training objects when rowX (colX) is nil. With A
// dense the cost is O(m'·m·(d + q) + n·q) for m' distinct rows and n pairs;
// with Entries O(m'·(m·d + e) + n·q) for e entries. A precomputed-kernel
// side has no stored training kernel, so its objects must be given.
func (p *PairPredictor) Predict(rowX, colX mat.Matrix, rows, cols []int) ([]float64, error) {
	if len(rows) != len(cols) {
		return nil, fmt.Errorf("%w: %d rows for %d columns", ErrWidth, len(rows), len(cols))
	}
	// A homogeneous network's pair is predicted in one orientation, so that
	// f(v, u) = ±f(u, v) holds exactly, not only to rounding.
	canon := p.Homogeneous() && rowX == colX
	var kr, kc *mat.Dense
	var rmap, cmap map[int]int
	var err error
	if canon {
		all := append(append([]int(nil), rows...), cols...)
		if kr, rmap, err = sideKernel(p.Rows, rowX, all, "row"); err != nil {
			return nil, err
		}
		kc, cmap = kr, rmap
	} else {
		if kr, rmap, err = sideKernel(p.Rows, rowX, rows, "row"); err != nil {
			return nil, err
		}
		if kc, cmap, err = sideKernel(p.Cols, colX, cols, "column"); err != nil {
			return nil, err
		}
	}
	q := p.Cols.Len()
	nr, _ := kr.Dims()
	if nr == 0 {
		return []float64{}, nil
	}
	t := mat.NewDense(nr, q, nil) // k(u)ᵀ A for every row object asked
	if p.A != nil {
		t.Mul(kr, p.A)
	} else {
		for a := 0; a < nr; a++ {
			tr, kra := t.RawRowView(a), kr.RawRowView(a)
			for _, e := range p.Entries {
				tr[e.Col] += e.Value * kra[e.Row]
			}
		}
	}
	out := make([]float64, len(rows))
	for k := range rows {
		u, v, sign := rows[k], cols[k], 1.0
		if canon && u > v {
			u, v = v, u
			if p.Symmetry == "antisymmetric" {
				sign = -1
			}
		}
		tr, gr := t.RawRowView(rmap[u]), kc.RawRowView(cmap[v])
		s := 0.0
		for j, x := range tr {
			s += x * gr[j]
		}
		s *= sign
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, &OverflowError{Row: k, Output: p.Output, Value: s}
		}
		out[k] = s
	}
	return out, nil
}

// sideKernel returns the kernel rows of the distinct objects idx refers to,
// and where each object's row is.
func sideKernel(s *PairSide, x mat.Matrix, idx []int, what string) (*mat.Dense, map[int]int, error) {
	n := s.Len()
	if x != nil {
		n, _ = x.Dims()
	}
	pos := map[int]int{}
	var uniq []int
	for _, i := range idx {
		if i < 0 || i >= n {
			return nil, nil, fmt.Errorf("%w: %s object %d outside [0,%d)", ErrWidth, what, i, n)
		}
		if _, ok := pos[i]; !ok {
			pos[i] = len(uniq)
			uniq = append(uniq, i)
		}
	}
	if len(uniq) == 0 {
		return &mat.Dense{}, pos, nil
	}
	if x == nil {
		k, err := s.training(uniq)
		if err != nil {
			return nil, nil, err
		}
		if k == nil {
			return nil, nil, fmt.Errorf("the %s kernel is precomputed: give the %s objects' kernel values against the training objects", what, what)
		}
		return k, pos, nil
	}
	k, err := s.Block(kernel.Rows(x, uniq))
	if err != nil {
		return nil, nil, err
	}
	return k, pos, nil
}

// pairFile is the JSON form of a PairPredictor.
type pairFile struct {
	Format    string       `json:"format"`
	Version   int          `json:"version"`
	Learner   string       `json:"learner"`
	Lambda    float64      `json:"lambda"`
	ColLambda float64      `json:"col_lambda,omitempty"`
	Symmetry  string       `json:"symmetry,omitempty"`
	Output    string       `json:"output"`
	Rows      *pairSide    `json:"rows"`
	Cols      *pairSide    `json:"cols,omitempty"` // absent: the rows (homogeneous)
	A         [][]float64  `json:"coefficients,omitempty"`
	Entries   *pairEntries `json:"entries,omitempty"`
	// Interval is written only when set: a reader that does not know the
	// field refuses the file.
	Interval *pairIntervalFile `json:"interval,omitempty"`
}

type pairSide struct {
	Kernel   kernel.Spec `json:"kernel"`
	Width    int         `json:"width"`
	Features []string    `json:"features,omitempty"`
	// ZeroBased is written only when true: a file without it is read as
	// before, and a reader that does not know the field refuses the file.
	ZeroBased bool    `json:"zero_based,omitempty"`
	Scaler    *Scaler `json:"scaler,omitempty"`
	Points    *points `json:"points"`
}

type pairEntries struct {
	Rows   []int     `json:"rows"`
	Cols   []int     `json:"cols"`
	Values []float64 `json:"values"`
}

func encodeSide(s *PairSide) *pairSide {
	out := &pairSide{Kernel: s.Kernel, Width: s.Width, Features: s.Features, ZeroBased: s.ZeroBased, Scaler: s.Scaler, Points: &points{}}
	switch q := s.Points.(type) {
	case *matrix.CSR:
		out.Points.Kind, out.Points.Rows, out.Points.Indptr, out.Points.Indices, out.Points.Values = "csr", q.R, q.Indptr, q.Indices, q.Values
	case *kernel.UnitRows:
		out.Points.Kind, out.Points.Rows, out.Points.Unit = "unit", len(q.Index), q.Index
	default:
		r, _ := q.Dims()
		out.Points.Kind, out.Points.Rows, out.Points.Dense = "dense", r, rows(mat.DenseCopyOf(q))
	}
	return out
}

// Save writes the model as one JSON object and a newline.
func (p *PairPredictor) Save(w io.Writer) error {
	f := pairFile{Format: pairFormatName, Version: PairVersion, Learner: p.Learner, Lambda: p.Lambda, ColLambda: p.ColLambda,
		Symmetry: p.Symmetry, Output: p.Output, Rows: encodeSide(p.Rows)}
	if !p.Homogeneous() {
		f.Cols = encodeSide(p.Cols)
	}
	if p.A != nil {
		f.A = rows(p.A)
	} else {
		e := &pairEntries{}
		for _, x := range p.Entries {
			e.Rows, e.Cols, e.Values = append(e.Rows, x.Row), append(e.Cols, x.Col), append(e.Values, x.Value)
		}
		f.Entries = e
	}
	if p.Interval != nil {
		f.Interval = p.Interval.file()
	}
	return json.NewEncoder(w).Encode(&f)
}

// IsPairwise reports whether the start of a model file (a few hundred bytes
// suffice) is a pairwise model.
func IsPairwise(head []byte) bool {
	return bytes.Contains(head, []byte(`"format":"`+pairFormatName+`"`))
}

// LoadPairwise reads a model written by PairPredictor.Save, checking every
// field like Load does; anything inconsistent is an error wrapping
// ErrCorrupt that gives the reason: one JSON object only, no unknown fields,
// the format name and version, λ (and a two-step column λ) positive and
// finite, valid kernels and scalers, points that fit the widths, and either
// an m×q coefficient matrix or entries inside the m×q grid, all finite,
// and an interval's hold-out models as loadPairInterval checks them.
func LoadPairwise(r io.Reader) (*PairPredictor, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no reader", ErrCorrupt)
	}
	var raw json.RawMessage
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	bad := func(format string, args ...any) (*PairPredictor, error) {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if tok, err := dec.Token(); err != io.EOF {
		return bad("data after the model (%v, %v): one model per file", tok, err)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if head.Format == formatName {
		return bad("format %q is a model of rows, not of pairs: predict with --data", head.Format)
	}
	var f pairFile
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if f.Format != pairFormatName {
		return bad("format %q, want %q", f.Format, pairFormatName)
	}
	if f.Version != PairVersion {
		return bad("version %d, this build reads version %d", f.Version, PairVersion)
	}
	if !(f.Lambda > 0) || math.IsInf(f.Lambda, 0) {
		return bad("lambda %v", f.Lambda)
	}
	switch f.Learner {
	case "kronrls", "kronrank", "kronsvm":
		if f.ColLambda != 0 {
			return bad("col_lambda %v for %s", f.ColLambda, f.Learner)
		}
	case "twostep":
		if !(f.ColLambda > 0) || math.IsInf(f.ColLambda, 0) {
			return bad("col_lambda %v", f.ColLambda)
		}
	default:
		return bad("learner %q, want kronrls, twostep, kronrank or kronsvm", f.Learner)
	}
	if f.Learner == "kronsvm" && (f.A != nil || f.Symmetry != "" || f.Interval != nil) {
		// the support vector machine's dual coefficients are per labelled pair, on two sets of objects
		return bad("a kronsvm model has entries, column objects and no interval")
	}
	switch f.Symmetry {
	case "", "symmetric", "antisymmetric":
	default:
		return bad("symmetry %q", f.Symmetry)
	}
	if f.Rows == nil || (f.Cols == nil) != (f.Symmetry != "") {
		return bad("a model has rows, and columns unless it is a homogeneous network")
	}
	p := &PairPredictor{Learner: f.Learner, Lambda: f.Lambda, ColLambda: f.ColLambda, Symmetry: f.Symmetry, Output: f.Output}
	var err error
	if p.Rows, err = decodeSide(f.Rows); err != nil {
		return bad("rows: %v", err)
	}
	p.Cols = p.Rows
	if f.Cols != nil {
		if p.Cols, err = decodeSide(f.Cols); err != nil {
			return bad("cols: %v", err)
		}
	}
	m, q := p.Rows.Len(), p.Cols.Len()
	switch {
	case f.A != nil && f.Entries == nil:
		if p.A, err = fromRows(f.A, m, q); err != nil {
			return bad("coefficients: %v", err)
		}
	case f.A == nil && f.Entries != nil:
		e := f.Entries
		if len(e.Cols) != len(e.Rows) || len(e.Values) != len(e.Rows) || len(e.Rows) == 0 {
			return bad("entries: %d rows, %d cols, %d values", len(e.Rows), len(e.Cols), len(e.Values))
		}
		for k := range e.Rows {
			if e.Rows[k] < 0 || e.Rows[k] >= m || e.Cols[k] < 0 || e.Cols[k] >= q {
				return bad("entry %d (%d, %d) outside %d×%d", k, e.Rows[k], e.Cols[k], m, q)
			}
			if math.IsNaN(e.Values[k]) || math.IsInf(e.Values[k], 0) {
				return bad("entry %d is %v", k, e.Values[k])
			}
			p.Entries = append(p.Entries, PairEntry{e.Rows[k], e.Cols[k], e.Values[k]})
		}
	default:
		return bad("want either coefficients or entries")
	}
	if f.Interval != nil {
		if p.A == nil || p.Homogeneous() {
			return bad("interval: only for dense coefficients on two sets of objects")
		}
		if p.Interval, err = loadPairInterval(f.Interval, m, q); err != nil {
			return bad("%v", err)
		}
	}
	return p, nil
}

func decodeSide(s *pairSide) (*PairSide, error) {
	if _, err := kernel.New(s.Kernel); err != nil {
		return nil, err
	}
	if s.Width < 0 || s.Points == nil {
		return nil, fmt.Errorf("width %d, points %v", s.Width, s.Points)
	}
	if s.Features != nil && len(s.Features) != s.Width {
		return nil, fmt.Errorf("%d feature names for %d features", len(s.Features), s.Width)
	}
	if s.Scaler != nil {
		if err := s.Scaler.check(s.Width); err != nil {
			return nil, err
		}
	}
	out := &PairSide{Kernel: s.Kernel, Width: s.Width, Features: s.Features, ZeroBased: s.ZeroBased, Scaler: s.Scaler}
	n := s.Points.Rows
	if n <= 0 {
		return nil, fmt.Errorf("%d points", n)
	}
	switch s.Points.Kind {
	case "dense":
		if s.Width == 0 {
			return nil, fmt.Errorf("dense points of no features")
		}
		d, err := fromRows(s.Points.Dense, n, s.Width)
		if err != nil {
			return nil, err
		}
		out.Points = d
	case "csr":
		c, err := matrix.NewCSR(n, s.Width, s.Points.Indptr, s.Points.Indices, s.Points.Values)
		if err != nil {
			return nil, err
		}
		if !allFinite(s.Points.Values) {
			return nil, fmt.Errorf("a point value is not finite")
		}
		out.Points = c
	case "unit":
		if len(s.Points.Unit) != n {
			return nil, fmt.Errorf("%d unit points for %d rows", len(s.Points.Unit), n)
		}
		for _, j := range s.Points.Unit {
			if j < 0 || j >= s.Width {
				return nil, fmt.Errorf("unit point %d outside [0,%d)", j, s.Width)
			}
		}
		out.Points = &kernel.UnitRows{Index: s.Points.Unit, N: s.Width}
	default:
		return nil, fmt.Errorf("points kind %q", s.Points.Kind)
	}
	if (s.Kernel.Name == "precomputed") != (s.Points.Kind == "unit") {
		return nil, fmt.Errorf("points kind %q for a %s kernel", s.Points.Kind, s.Kernel.Name)
	}
	if err := kernel.CheckFinite(s.Kernel, out.Points); err != nil {
		return nil, err
	}
	return out, nil
}
