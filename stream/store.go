package stream

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/measure"
	"github.com/rlskit/rlskit/selection"
)

// Prediction is the hold-out prediction of one row at every λ of the grid:
// P[l·t + c] is output c at λ_l, Y the row's labels, Group its query id.
type Prediction struct {
	Y     []float64
	Group string
	P     []float64
}

// Store keeps hold-out predictions on disk for measures that need them all
// at once (auc, cindex, disagreement, spearman, accuracy): each writer appends
// its rows' labels and query codes to one file and its predictions to one file
// per λ, so that scoring λ_l reads m·t values of one file. Memory while
// scoring one λ: the labels, query codes and predictions of every row,
// O(m·t) — not O(m·Λ·t). Writers are used by one goroutine each; Score
// after every writer is closed. Files live in a temporary directory that
// Close removes.
type Store struct {
	dir     string
	lambdas int
	t       int
	mu      sync.Mutex
	codes   map[string]int32
	names   []string
	writers []*StoreWriter
	ctx     context.Context
	release func()
}

// NewStore creates a store for a grid of lambdas λ values and t outputs in a
// new temporary directory under dir ("" for the system's).
func NewStore(dir string, lambdas, t int) (*Store, error) {
	return NewStoreContext(context.Background(), dir, lambdas, t)
}

// NewStoreContext is NewStore for a fit under ctx: scoring stops when ctx is
// cancelled (between λ values), and under a context of NotifyContext the
// store is registered (HoldCleanup) until Close has removed it.
func NewStoreContext(ctx context.Context, dir string, lambdas, t int) (*Store, error) {
	d, err := os.MkdirTemp(dir, "rlskit-predictions-")
	if err != nil {
		return nil, fmt.Errorf("stream: prediction store: %w", err)
	}
	return &Store{dir: d, lambdas: lambdas, t: t, codes: map[string]int32{}, ctx: ctx, release: HoldCleanup(ctx)}, nil
}

// StoreWriter appends rows to a store.
type StoreWriter struct {
	s     *Store
	files []*os.File
	bufs  []*bufio.Writer
	rows  int
	err   error
}

// Writer returns a new writer (one per goroutine).
func (s *Store) Writer() (*StoreWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &StoreWriter{s: s}
	n := len(s.writers)
	for l := -1; l < s.lambdas; l++ {
		name := filepath.Join(s.dir, fmt.Sprintf("w%d.meta", n))
		if l >= 0 {
			name = filepath.Join(s.dir, fmt.Sprintf("w%d.l%d", n, l))
		}
		f, err := os.Create(name)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("stream: prediction store: %w", err)
		}
		w.files = append(w.files, f)
		w.bufs = append(w.bufs, bufio.NewWriterSize(f, 32<<10))
	}
	s.writers = append(s.writers, w)
	return w, nil
}

func (s *Store) code(g string) int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.codes[g]
	if !ok {
		c = int32(len(s.names))
		s.codes[g] = c
		s.names = append(s.names, g)
	}
	return c
}

// Write appends one row.
func (w *StoreWriter) Write(p Prediction) error {
	if w.err != nil {
		return w.err
	}
	s := w.s
	if len(p.Y) != s.t || len(p.P) != s.lambdas*s.t {
		return fmt.Errorf("%w: prediction of %d labels and %d values for %d outputs and %d λ", ErrShape, len(p.Y), len(p.P), s.t, s.lambdas)
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(s.code(p.Group)))
	w.bufs[0].Write(b[:4])
	for _, v := range p.Y {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		w.bufs[0].Write(b[:])
	}
	for l := 0; l < s.lambdas; l++ {
		for _, v := range p.P[l*s.t : (l+1)*s.t] {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			w.bufs[l+1].Write(b[:])
		}
	}
	w.rows++
	return nil
}

// Close flushes the writer's files.
func (w *StoreWriter) Close() error {
	for _, b := range w.bufs {
		if err := b.Flush(); err != nil && w.err == nil {
			w.err = fmt.Errorf("stream: prediction store: %w", err)
		}
	}
	w.close()
	return w.err
}

func (w *StoreWriter) close() {
	for _, f := range w.files {
		f.Close()
	}
	w.files = nil
}

// Rows returns the number of rows written to the store.
func (s *Store) Rows() int {
	n := 0
	for _, w := range s.writers {
		n += w.rows
	}
	return n
}

// Score scores the predictions at every λ with the measure, comparing them
// exactly: ScoreWithin without tolerances.
func (s *Store) Score(meas measure.Measure) ([]float64, error) {
	v, _, err := s.ScoreWithin(meas, nil)
	return v, err
}

// ScoreWithin scores the predictions at every λ with the measure and the
// one tie rule (selection.ScoreWithin): for an ordinal measure, predictions
// of output c at λ_l within tol[l][c] of each other (chained, in sorted
// order) are ties; indistinct[l] reports that at λ_l every output's
// predictions lie within it. tol nil compares exactly. One read of the
// labels, then one read of each λ's file; query codes are passed to measures
// that need them. A NaN or infinite prediction is ErrNonFinite.
// O(Λ·(m·t log m + the measure's cost)); memory O(m·t).
func (s *Store) ScoreWithin(meas measure.Measure, tol [][]float64) (values []float64, indistinct []bool, err error) {
	m := s.Rows()
	if m == 0 {
		return nil, nil, fmt.Errorf("%w: no predictions to score", ErrShape)
	}
	if tol != nil && len(tol) != s.lambdas {
		return nil, nil, fmt.Errorf("%w: tolerances for %d λ, the store holds %d", ErrShape, len(tol), s.lambdas)
	}
	y := mat.NewDense(m, s.t, nil)
	q := make([]int, m)
	row := 0
	for n, w := range s.writers {
		f, err := os.Open(filepath.Join(s.dir, fmt.Sprintf("w%d.meta", n)))
		if err != nil {
			return nil, nil, err
		}
		br := bufio.NewReaderSize(f, 64<<10)
		buf := make([]byte, 4+8*s.t)
		for i := 0; i < w.rows; i++ {
			if _, err := io.ReadFull(br, buf); err != nil {
				f.Close()
				return nil, nil, fmt.Errorf("stream: prediction store: %w", err)
			}
			q[row] = int(binary.LittleEndian.Uint32(buf))
			yr := y.RawRowView(row)
			for c := range yr {
				yr[c] = math.Float64frombits(binary.LittleEndian.Uint64(buf[4+8*c:]))
			}
			row++
		}
		f.Close()
	}
	values, indistinct = make([]float64, s.lambdas), make([]bool, s.lambdas)
	pred := mat.NewDense(m, s.t, nil)
	for l := range values {
		if s.ctx != nil && s.ctx.Err() != nil {
			return nil, nil, context.Cause(s.ctx)
		}
		row := 0
		for n, w := range s.writers {
			f, err := os.Open(filepath.Join(s.dir, fmt.Sprintf("w%d.l%d", n, l)))
			if err != nil {
				return nil, nil, err
			}
			br := bufio.NewReaderSize(f, 64<<10)
			raw := pred.RawMatrix().Data[row*s.t : (row+w.rows)*s.t]
			buf := make([]byte, 8)
			for k := range raw {
				if _, err := io.ReadFull(br, buf); err != nil {
					f.Close()
					return nil, nil, fmt.Errorf("stream: prediction store: %w", err)
				}
				raw[k] = math.Float64frombits(binary.LittleEndian.Uint64(buf))
			}
			f.Close()
			row += w.rows
		}
		for i, v := range pred.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("%w: row %d of the store, output %d is %v at λ index %d (rescale the features, e.g. standardize them)", ErrNonFinite, i/s.t, i%s.t, v, l)
			}
		}
		var tl []float64
		if tol != nil {
			tl = tol[l]
		}
		if values[l], indistinct[l], err = selection.ScoreWithin(meas, y, pred, q, tl); err != nil {
			return nil, nil, err
		}
	}
	return values, indistinct, nil
}

// ErrNonFinite is returned when a hold-out prediction or squared error is NaN or ±Inf.
var ErrNonFinite = errors.New("stream: non-finite cross-validation prediction")

// Close removes the store's files.
func (s *Store) Close() error {
	for _, w := range s.writers {
		w.close()
	}
	err := os.RemoveAll(s.dir)
	if s.release != nil {
		s.release()
	}
	return err
}
