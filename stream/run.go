package stream

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/progress"
)

// Source is a data set stored in files, read with package dataset's readers.
type Source struct {
	// Files are read in order (dataset.ExpandFiles expands patterns).
	Files []string
	// Format is "svmlight" or "csv"; the options are the readers'.
	Format string
	CSV    dataset.CSVOptions
	SVM    dataset.SVMLightOptions
	// Open, when set, opens a file by name (a distributed file system);
	// otherwise the local file is opened. Either way gzip is detected and read through.
	Open func(name string) (io.ReadCloser, error)
	// Header, when set, is the CSV feature columns every file must have
	// (ReadShard checks it); FirstRows returns the first file's.
	Header []string
}

// ReadShard reads one file of the source in chunks of chunkRows rows, calling
// fn with each chunk and the number of rows before it; counter, when set, is
// told the bytes read from disk as they are (local files). A file without data
// rows is a shard without rows (no error); a malformed row, or a truncated
// gzip member, is the reader's positioned error (file:line); a CSV file whose
// feature columns differ from Source.Header is an error.
func ReadShard(src Source, name string, chunkRows int, counter func(int64), fn func(d *dataset.Data, off int) error) error {
	_, err := ReadShardFingerprint(src, name, chunkRows, counter, fn)
	return err
}

// ReadShardFingerprint is ReadShard, returning the file's Fingerprint: every
// byte of it as stored (compressed bytes for gzip), read to its end.
func ReadShardFingerprint(src Source, name string, chunkRows int, counter func(int64), fn func(d *dataset.Data, off int) error) (Fingerprint, error) {
	return readRange(src, name, 0, -1, chunkRows, counter, fn)
}

// Fingerprint is what one read of a file (or of a byte range of it) saw:
// the bytes read from where it is stored — compressed bytes for gzip — and
// their CRC-32C (Castagnoli). The passes of a fit compare their
// fingerprints of every file: a file that changed between them, or while
// one read it, is ErrChanged.
type Fingerprint struct {
	Bytes int64  `json:"bytes"`
	CRC   uint32 `json:"crc32c"`
}

// ErrChanged is returned when an input file changed between the passes of a
// fit (or during one): its statistics would mix two data sets.
var ErrChanged = errors.New("stream: an input file changed between passes")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sumReader counts and checksums the bytes read through it.
type sumReader struct {
	r io.Reader
	n atomic.Int64
	h hash.Hash32
}

func newSumReader(r io.Reader) *sumReader { return &sumReader{r: r, h: crc32.New(castagnoli)} }

func (s *sumReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.h.Write(p[:n])
	s.n.Add(int64(n))
	return n, err
}

// fingerprint reads what is left of the source (so that the fingerprint
// covers it whole) and returns it.
func (s *sumReader) fingerprint() (Fingerprint, error) {
	if _, err := io.Copy(io.Discard, s); err != nil {
		return Fingerprint{}, err
	}
	return Fingerprint{Bytes: s.n.Load(), CRC: s.h.Sum32()}, nil
}

// FingerprintOf reads r to its end and returns its Fingerprint — what a
// pass reading the same bytes records.
func FingerprintOf(r io.Reader) (Fingerprint, error) { return newSumReader(r).fingerprint() }

// CheckFingerprint compares a file's fingerprint in pass n with the first
// pass's: a difference is ErrChanged naming the file.
func CheckFingerprint(name string, first Fingerprint, n int, got Fingerprint) error {
	if first == got {
		return nil
	}
	return fmt.Errorf("%w: %s: pass 1 read %d bytes (CRC-32C %08x), pass %d read %d bytes (CRC-32C %08x): the files of a streaming fit must not change while it runs",
		ErrChanged, name, first.Bytes, first.CRC, n, got.Bytes, got.CRC)
}

// readRange is ReadShardFingerprint for the bytes [start, end) of a plain
// local file (end < 0: the whole file, plain or gzip). A range starts at a
// line start; a reader's error in it is given the file's own line number.
func readRange(src Source, name string, start, end int64, chunkRows int, counter func(int64), fn func(d *dataset.Data, off int) error) (Fingerprint, error) {
	var (
		r       io.Reader
		closer  io.Closer
		read    func() int64
		size    int64
		lastPos int64
		sum     *sumReader
	)
	switch {
	case src.Open != nil:
		rc, err := src.Open(name)
		if err != nil {
			return Fingerprint{}, err
		}
		closer, sum = rc, newSumReader(rc)
		if r, err = dataset.Decompress(sum); err != nil {
			rc.Close()
			return Fingerprint{}, fmt.Errorf("%s: %w", name, err)
		}
	case end >= 0:
		f, err := os.Open(name)
		if err != nil {
			return Fingerprint{}, err
		}
		sum = newSumReader(io.NewSectionReader(f, start, end-start))
		r, closer, size, read = sum, f, end-start, sum.n.Load
	default:
		f, err := os.Open(name)
		if err != nil {
			return Fingerprint{}, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return Fingerprint{}, err
		}
		sum = newSumReader(f)
		if r, err = dataset.Decompress(sum); err != nil {
			f.Close()
			return Fingerprint{}, fmt.Errorf("%s: %w", name, err)
		}
		closer, size, read = f, st.Size(), sum.n.Load
	}
	defer closer.Close()
	fnErr := false // the error is fn's (or another reader's, through fn), not this range's
	err := dataset.ReadChunks(r, name, src.Format, src.CSV, src.SVM, chunkRows, func(d *dataset.Data, off int) error {
		if off == 0 && src.Header != nil && !slices.Equal(d.FeatureNames, src.Header) {
			return fmt.Errorf("%w: %s: feature columns %q differ from the first file's %q", ErrData, name, d.FeatureNames, src.Header)
		}
		if counter != nil && read != nil {
			b := read()
			counter(b - lastPos)
			lastPos = b
		}
		err := fn(d, off)
		fnErr = err != nil
		return err
	})
	if counter != nil && read != nil {
		counter(size - lastPos)
	}
	if errors.Is(err, dataset.ErrEmpty) {
		err = nil // a shard without data rows (reported with 0 rows)
	}
	if err == nil {
		return sum.fingerprint()
	}
	if pe, ok := err.(*dataset.ParseError); ok && start > 0 && !fnErr && pe.Line > 0 {
		if before, cerr := countLines(name, start); cerr == nil {
			moved := *pe
			moved.Line += before
			return Fingerprint{}, &moved
		}
	}
	return Fingerprint{}, err
}

// countLines counts the line breaks in the first n bytes of a file.
func countLines(name string, n int64) (int, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	lines := 0
	r := io.LimitReader(f, n)
	for {
		k, err := r.Read(buf)
		lines += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// splitBytes is the size above which a plain local svmlight file is read as
// several byte ranges in parallel (cut at line starts).
var splitBytes int64 = 32 << 20

// part is what one reader goroutine reads: a whole file, or a byte range of one.
type part struct {
	file       int
	start, end int64 // end < 0: the whole file
}

// parts cuts the files into what the readers read: a plain svmlight file
// above splitBytes into up to 4·workers ranges of about equal size, each
// starting after a line break; anything else whole.
func parts(src Source, files []FileStats, workers int) ([]part, error) {
	var out []part
	for i, f := range files {
		n := int64(0)
		if src.Open == nil && src.Format == "svmlight" && workers > 1 {
			st, err := os.Stat(f.Name)
			if err != nil {
				return nil, err
			}
			if st.Size() >= splitBytes && !isGzip(f.Name) {
				n = min(int64(4*workers), st.Size()/max(splitBytes/4, 1))
			}
			if n > 1 {
				cuts, err := lineCuts(f.Name, st.Size(), n)
				if err != nil {
					return nil, err
				}
				for k := 0; k+1 < len(cuts); k++ {
					if cuts[k] < cuts[k+1] {
						out = append(out, part{file: i, start: cuts[k], end: cuts[k+1]})
					}
				}
				continue
			}
		}
		out = append(out, part{file: i, end: -1})
	}
	return out, nil
}

func isGzip(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [2]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 2 && b[0] == 0x1f && b[1] == 0x8b
}

// lineCuts returns 0, the n−1 positions just after the first line break at or
// after k·size/n, and size.
func lineCuts(name string, size, n int64) ([]int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cuts := []int64{0}
	buf := make([]byte, 64<<10)
	for k := int64(1); k < n; k++ {
		pos := k * size / n
		for pos < size {
			m, err := f.ReadAt(buf, pos)
			if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
				pos += int64(i) + 1
				break
			}
			pos += int64(m)
			if err != nil {
				break
			}
		}
		cuts = append(cuts, max(min(pos, size), cuts[len(cuts)-1]))
	}
	return append(cuts, size), nil
}

// FirstRows reads the first n rows of the source, files in order (the
// pilot), and returns them with the first file's CSV feature columns and its
// label names.
func FirstRows(src Source, n int) (rows []Row, header, labels []string, err error) {
	seen := false
	for _, name := range src.Files {
		_, err := readRange(src, name, 0, -1, min(n, 2048), nil, func(d *dataset.Data, _ int) error {
			if !seen {
				header, labels, seen = d.FeatureNames, d.LabelNames, true
			}
			for _, r := range Rows(d) {
				rows = append(rows, r)
				if len(rows) == n {
					return errStop
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			return nil, nil, nil, err
		}
		if len(rows) == n {
			break
		}
	}
	if len(rows) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: no data rows in %d file(s)", ErrData, len(src.Files))
	}
	return rows, header, labels, nil
}

// RunOptions tune Run.
type RunOptions struct {
	// Workers is the number of goroutines that parse and accumulate
	// (default GOMAXPROCS).
	Workers int
	// ChunkRows is the number of rows parsed at a time (default 2048).
	ChunkRows int
	// TempDir holds the prediction store of measures that need every
	// prediction ("" for the system's).
	TempDir string
	// GroupMemory bounds the bytes of rows a grouped pass may hold while
	// their groups are incomplete (default 4 GiB): the rows of one group
	// need not be adjacent, but the farther apart they lie, the more rows wait.
	GroupMemory int64
	// Progress, when set, is told as the bytes of a pass are read: stage
	// "pass N (kind)" (N 1-based), the bytes read of the files' total.
	Progress progress.Observer
}

// FileStats describes one input file after a fit.
type FileStats struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// RunResult is Run's result: the fit and the files read.
type RunResult struct {
	*Result
	Files []FileStats
	// FeatureNames are the CSV header's feature columns (nil for svmlight).
	FeatureNames []string
	// Bytes is the total size of the files; Read is the bytes read in all passes.
	Bytes, Read int64
	// PassSeconds is the wall time of each pass (Result.Passes).
	PassSeconds []float64
}

// Run fits on the files of src on this machine: the pilot rows, then every
// pass of the plan, each one a parallel read of all files — each file parsed
// by one goroutine, its chunks accumulated by Workers goroutines (grouped
// passes route each row to the worker that owns its group, which buffers the
// group's rows until it is complete). A malformed row, a truncated gzip
// member or an unreadable file fails the whole fit with the reader's
// positioned error (file:line); an empty file is a shard without rows.
// Memory: the plan's statistics (O(K·p² + p·t) per worker), Workers chunks
// of rows, and for grouped passes the rows of incomplete groups.
func Run(ctx context.Context, opt Options, src Source, ro RunOptions) (*RunResult, error) {
	if len(src.Files) == 0 {
		return nil, fmt.Errorf("%w: no input files", ErrOptions)
	}
	if ro.Workers <= 0 {
		ro.Workers = runtime.GOMAXPROCS(0)
	}
	if ro.ChunkRows <= 0 {
		ro.ChunkRows = 2048
	}
	if ro.GroupMemory <= 0 {
		ro.GroupMemory = 4 << 30
	}
	plan, err := NewPlan(opt)
	if err != nil {
		return nil, err
	}
	e := &engine{src: src, ro: ro, plan: plan}
	for _, f := range src.Files {
		e.files = append(e.files, FileStats{Name: f})
	}
	pilot, header, labels, err := FirstRows(src, plan.PilotRows())
	if err != nil {
		return nil, err
	}
	if src.Format == "csv" {
		e.src.Header, e.header = header, header
	}
	if len(plan.opt.Outputs) == 0 {
		plan.opt.Outputs = labels
	}
	if err := plan.SetPilot(pilot); err != nil {
		return nil, err
	}
	out := &RunResult{}
	n := 0
	// Every pass uses the cores through its workers: BLAS threads on top would only contend.
	var runErr error
	linalg.SerialBLAS(func() {
		for {
			pass, more := plan.Next()
			if !more {
				break
			}
			n++
			t0 := time.Now()
			if runErr = e.pass(ctx, pass, n); runErr != nil {
				return
			}
			out.PassSeconds = append(out.PassSeconds, time.Since(t0).Seconds())
		}
	})
	if runErr != nil {
		return nil, runErr
	}
	res, err := plan.Result()
	if err != nil {
		return nil, err
	}
	out.Result, out.Files, out.Read, out.FeatureNames = res, e.files, e.read.Load(), e.header
	for _, f := range e.files {
		out.Bytes += f.Bytes
	}
	return out, nil
}

type engine struct {
	src    Source
	ro     RunOptions
	plan   *Plan
	files  []FileStats
	read   atomic.Int64
	header []string // the first file's CSV feature columns
	// seen is every file's fingerprint in the first pass (nil before it)
	seen []Fingerprint
}

// partPrint is the fingerprint of one part of a file read in a pass.
type partPrint struct {
	start int64
	fp    Fingerprint
}

// filePrint combines the fingerprints of a file's parts (byte ranges, or
// the whole file) into the file's: the sum of their bytes and a CRC-32C of
// their starts, sizes and CRCs in order.
func filePrint(ps []partPrint) Fingerprint {
	if len(ps) == 1 && ps[0].start == 0 {
		return ps[0].fp
	}
	sort.Slice(ps, func(a, b int) bool { return ps[a].start < ps[b].start })
	var out Fingerprint
	h := crc32.New(castagnoli)
	var b [20]byte
	for _, p := range ps {
		out.Bytes += p.fp.Bytes
		binary.LittleEndian.PutUint64(b[:], uint64(p.start))
		binary.LittleEndian.PutUint64(b[8:], uint64(p.fp.Bytes))
		binary.LittleEndian.PutUint32(b[16:], p.fp.CRC)
		h.Write(b[:])
	}
	out.CRC = h.Sum32()
	return out
}

// errStop ends a read early.
var errStop = errors.New("stop")

// pass runs one pass over every file.
func (e *engine) pass(parent context.Context, pass Pass, n int) error {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	plan, ro := e.plan, e.ro
	var store *Store
	if pass.Predictions {
		var err error
		if store, err = NewStoreContext(ctx, ro.TempDir, len(plan.Lambdas()), plan.Outputs()); err != nil {
			return err
		}
		defer store.Close()
	}
	var total int64
	for i := range e.files {
		e.files[i].Rows = 0
	}
	for i, f := range e.files {
		st, err := os.Stat(f.Name)
		if err != nil {
			return err
		}
		if e.seen != nil && st.Size() != e.seen[i].Bytes {
			return fmt.Errorf("%w: %s: pass 1 read %d bytes, pass %d finds %d: the files of a streaming fit must not change while it runs", ErrChanged, f.Name, e.seen[i].Bytes, n, st.Size())
		}
		e.files[i].Bytes = st.Size()
		total += st.Size()
	}
	var done atomic.Int64
	var report sync.Mutex // the readers report from several goroutines; an Observer is called serially
	stage := fmt.Sprintf("pass %d (%s)", n, pass.Kind)
	progress := func(b int64) {
		e.read.Add(b)
		if ro.Progress == nil {
			done.Add(b)
			return
		}
		report.Lock() // the count taken under the lock too, so that reports never go back
		ro.Progress(progress.Event{Stage: stage, Done: done.Add(b), Total: total})
		report.Unlock()
	}
	fail := func(err error) { cancel(err) }

	W := ro.Workers
	accs := make([]*Accumulator, W)
	writers := make([]*StoreWriter, W)
	for w := range accs {
		a, err := plan.NewAccumulator()
		if err != nil {
			return err
		}
		if store != nil {
			if writers[w], err = store.Writer(); err != nil {
				return err
			}
			a.Emit = writers[w].Write
		}
		accs[w] = a
	}
	type chunk struct {
		where string
		d     *dataset.Data
		off   int
	}
	var (
		chunks = make(chan chunk, W)
		groups []chan []Row
		wg     sync.WaitGroup
		gb     *groupBuffers
	)
	if pass.Grouped {
		gb = &groupBuffers{sizes: plan.GroupSizes(), limit: ro.GroupMemory}
		for range W {
			groups = append(groups, make(chan []Row, 4))
		}
	}
	// workers
	for w := 0; w < W; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := accs[w]
			if pass.Grouped {
				pending := map[string][]Row{}
				for batch := range groups[w] {
					if ctx.Err() != nil {
						continue
					}
					for _, r := range batch {
						pending[r.Group] = append(pending[r.Group], r)
						rs := pending[r.Group]
						if int64(len(rs)) < gb.sizes[r.Group] {
							continue
						}
						delete(pending, r.Group)
						gb.release(rs)
						if err := a.AddGroup(rs); err != nil {
							fail(err)
							break
						}
					}
				}
				if ctx.Err() == nil && len(pending) > 0 {
					for _, g := range sortedKeys(pending) {
						fail(fmt.Errorf("%w: query %q has %d rows in this pass, %d in the first (the data changed between passes)", ErrData, g, len(pending[g]), gb.sizes[g]))
						break
					}
				}
				return
			}
			for c := range chunks {
				if ctx.Err() != nil {
					continue
				}
				if err := a.AddChunk(c.d); err != nil {
					m := c.d.Rows()
					fail(fmt.Errorf("%s: data rows %d–%d: %w", c.where, c.off+1, c.off+m, err))
				}
			}
		}()
	}
	// readers: one goroutine per file or byte range, at most W at once
	ps, err := parts(e.src, e.files, W)
	if err != nil {
		return err
	}
	fileRows := make([]atomic.Int64, len(e.files))
	prints := make([][]partPrint, len(e.files))
	var printsMu sync.Mutex
	var rg sync.WaitGroup
	sem := make(chan struct{}, W)
	for _, pt := range ps {
		i := pt.file
		where := e.files[i].Name
		if pt.end >= 0 {
			where = fmt.Sprintf("%s (bytes %d–%d)", where, pt.start, pt.end)
		}
		rg.Add(1)
		go func() {
			defer rg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			fp, err := readRange(e.src, e.files[i].Name, pt.start, pt.end, ro.ChunkRows, progress, func(d *dataset.Data, off int) error {
				if ctx.Err() != nil {
					return context.Cause(ctx)
				}
				fileRows[i].Add(int64(d.Rows()))
				if !pass.Grouped {
					select {
					case chunks <- chunk{where: where, d: d, off: off}:
						return nil
					case <-ctx.Done():
						return context.Cause(ctx)
					}
				}
				if d.Queries == nil {
					return fmt.Errorf("%s: data rows %d–%d: %w: rows without query ids", where, off+1, off+d.Rows(), ErrData)
				}
				batches := make([][]Row, W)
				for k := 0; k < d.Rows(); k++ { // views: every chunk is the reader's own
					r := rowView(d, k)
					w := shard(r.Group, W)
					batches[w] = append(batches[w], r)
				}
				for w, b := range batches {
					if len(b) == 0 {
						continue
					}
					if err := gb.hold(b); err != nil {
						return err
					}
					select {
					case groups[w] <- b:
					case <-ctx.Done():
						return context.Cause(ctx)
					}
				}
				return nil
			})
			if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
				fail(err)
			}
			if err == nil {
				printsMu.Lock()
				prints[i] = append(prints[i], partPrint{start: max(pt.start, 0), fp: fp})
				printsMu.Unlock()
			}
		}()
	}
	rg.Wait()
	for i := range e.files {
		e.files[i].Rows = fileRows[i].Load()
	}
	if ctx.Err() == nil {
		// every file read whole: the same bytes as the first pass (and as
		// its size when this pass began), or the data changed
		fps := make([]Fingerprint, len(e.files))
		for i, f := range e.files {
			fps[i] = filePrint(prints[i])
			var err error
			switch {
			case fps[i].Bytes != f.Bytes:
				err = fmt.Errorf("%w: %s: %d bytes when pass %d began, %d read by its end: the files of a streaming fit must not change while it runs", ErrChanged, f.Name, f.Bytes, n, fps[i].Bytes)
			case e.seen != nil:
				err = CheckFingerprint(f.Name, e.seen[i], n, fps[i])
			}
			if err != nil {
				fail(err)
				break
			}
		}
		if e.seen == nil && ctx.Err() == nil {
			e.seen = fps
		}
	}
	close(chunks)
	for _, g := range groups {
		close(g)
	}
	wg.Wait()
	for _, w := range writers {
		if w != nil {
			if err := w.Close(); err != nil && ctx.Err() == nil {
				fail(err)
			}
		}
	}
	if err := context.Cause(ctx); err != nil {
		if parent.Err() == nil && e.seen != nil && !errors.Is(err, ErrChanged) {
			// data that changed since the first pass fail in many ways (a
			// malformed line, a query of another size): name the file
			if verr := e.verify(n); verr != nil {
				return verr
			}
		}
		return err
	}
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	merged := accs[0]
	for _, a := range accs[1:] {
		if err := merged.Merge(a); err != nil {
			return err
		}
	}
	if err := plan.Finish(merged, store); err != nil {
		return err
	}
	return nil
}

// verify reads every file's bytes again, without parsing them, and compares
// their fingerprints with the first pass's: the ErrChanged of the first file
// that differs, or nil.
func (e *engine) verify(n int) error {
	ps, err := parts(e.src, e.files, e.ro.Workers)
	if err != nil {
		return nil
	}
	prints := make([][]partPrint, len(e.files))
	for _, pt := range ps {
		f, err := os.Open(e.files[pt.file].Name)
		if err != nil {
			return nil
		}
		var r io.Reader = f
		if pt.end >= 0 {
			r = io.NewSectionReader(f, pt.start, pt.end-pt.start)
		}
		fp, err := newSumReader(r).fingerprint()
		f.Close()
		if err != nil {
			return nil
		}
		prints[pt.file] = append(prints[pt.file], partPrint{start: max(pt.start, 0), fp: fp})
	}
	for i, f := range e.files {
		if err := CheckFingerprint(f.Name, e.seen[i], n, filePrint(prints[i])); err != nil {
			return err
		}
	}
	return nil
}

// shard is the worker that owns a group.
func shard(g string, w int) int {
	h := fnv.New64a()
	h.Write([]byte(g))
	return int(h.Sum64() % uint64(w))
}

// groupBuffers accounts for the rows held while their groups are incomplete.
type groupBuffers struct {
	sizes map[string]int64
	limit int64
	held  atomic.Int64
}

func rowBytes(r Row) int64 { return int64(16*len(r.Value) + 8*len(r.Y) + len(r.Group) + 96) }

func (g *groupBuffers) hold(rows []Row) error {
	var b int64
	for _, r := range rows {
		b += rowBytes(r)
	}
	if n := g.held.Add(b); n > g.limit {
		return fmt.Errorf("%w: %d MB of rows wait for the rest of their groups (limit %d MB): the rows of a group lie far apart in the data — sort it by query id, or raise the limit", ErrData, n>>20, g.limit>>20)
	}
	return nil
}

func (g *groupBuffers) release(rows []Row) {
	var b int64
	for _, r := range rows {
		b += rowBytes(r)
	}
	g.held.Add(-b)
}
