// Package rlsbeam runs a streaming rlskit fit (package stream) as Apache Beam
// pipelines: one pipeline per pass over the data, on any Beam runner — Prism
// in process by default, or Flink, Spark and Dataflow through a job server.
//
// Every number is computed by stream.Plan, the code rlskit fit --stream runs
// on one machine; this package only moves rows and statistics:
//
//	row pass      shards ──ParDo(read, accumulate)──▶ KV<piece key, packed statistics>
//	grouped pass  shards ──ParDo(read)──▶ KV<query id, row> ──GroupByKey──▶ ParDo(AddGroup) ──▶ KV<piece key, …>
//	both          ──CombinePerKey(MergePieces)──▶ textio.Write ──▶ driver: Plan.Join, Plan.Finish
//
// The statistics are combined per key — one key per fold, per group while
// groups are few, plus one for the rest — by a CombineFn whose accumulator is
// the packed statistics (stream.MergePieces), so the reduction of the
// p×p sums runs in parallel and, with combiner lifting, before the shuffle.
// Hold-out predictions that a rank measure needs are written as text by the
// workers and scored on the driver by stream.Store, one λ at a time.
//
// Shards are matched on the driver and each is read whole by one worker
// through package dataset's reader (gzip detected by its magic bytes), so a
// malformed row fails the pipeline with the file and line, as on one
// machine; textio's line elements carry no line numbers, so textio writes the
// results and the predictions but does not parse the data. The worker that
// reads a shard also writes its fingerprint (stream.Fingerprint: its bytes
// and their CRC-32C), and the driver compares every pass's with the first's:
// a shard that changed between passes is stream.ErrChanged naming it.
//
// Each fit writes the passes' results under a directory of its own, made
// with a unique name under Config.TempLocation (or the system's temporary
// directory), and removes it when it returns — done, failed or cancelled, as
// by stream.NotifyContext on SIGINT or SIGTERM — so that jobs sharing a
// temporary location never read each other's files, nor leave the rows'
// labels and predictions behind.
package rlsbeam

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/rlskit/rlskit/dataset"
	"github.com/rlskit/rlskit/progress"
	"github.com/rlskit/rlskit/stream"
)

func init() {
	register.DoFn5x1[context.Context, string, func(string, []byte), func(string), func(string), error](&chunkFn{})
	register.DoFn4x1[context.Context, string, func(string, []byte), func(string), error](&rowsFn{})
	register.DoFn5x1[context.Context, string, func(*[]byte) bool, func(string, []byte), func(string), error](&groupFn{})
	register.Combiner1[[]byte](&pieceCombineFn{})
	register.Function2x1(formatPiece)
	register.Emitter2[string, []byte]()
	register.Emitter1[string]()
	register.Iter1[[]byte]()
	beam.RegisterType(reflect.TypeOf((*chunkFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*rowsFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*groupFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*pieceCombineFn)(nil)).Elem())
}

// Source names the data: file patterns (local paths, or any scheme a Beam
// filesystem is registered for, such as gs://) and the reader's options.
type Source struct {
	Patterns []string
	Format   string // "svmlight" or "csv"
	CSV      dataset.CSVOptions
	// SVM: svmlight options; only Base is used (AutoBase is refused: shards
	// are read apart, and each could decide differently).
	SVM dataset.SVMLightOptions
}

// Config says where the pipelines run.
type Config struct {
	// Run executes a pipeline (beamx.Run honours --runner and --endpoint;
	// nil runs Prism in process).
	Run func(context.Context, *beam.Pipeline) error
	// TempLocation is a directory every worker and the driver can reach
	// (shared by all on a cluster) under which each fit makes a directory of
	// its own, rlskit-beam-<random>, for the passes' results, and removes it
	// when it returns; "" is the system's temporary directory (Prism, or a
	// cluster on this machine).
	TempLocation string
	// ChunkRows is the rows a worker parses at a time (default 2048).
	ChunkRows int
	// Progress, when set, is told of each pass as it starts (a phase:
	// "pass N (kind)").
	Progress progress.Observer
}

// Result is a fit's result and the files read.
type Result struct {
	*stream.Result
	Files        []string
	FeatureNames []string
}

// open opens a file through Beam's filesystems.
func open(name string) (io.ReadCloser, error) {
	ctx := context.Background()
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	rc, err := fs.OpenRead(ctx, name)
	if err != nil {
		fs.Close()
		return nil, err
	}
	return &closeBoth{rc, fs}, nil
}

type closeBoth struct {
	io.ReadCloser
	fs io.Closer
}

// Close closes the file and its filesystem.
func (c *closeBoth) Close() error {
	err := c.ReadCloser.Close()
	c.fs.Close()
	return err
}

// match expands the patterns through Beam's filesystems, each pattern's
// matches sorted, in order, without repeats — a local file named twice (a
// symbolic or hard link next to it) kept once, under its first name; a
// pattern matching nothing is an error.
func match(ctx context.Context, patterns []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	var local []os.FileInfo // the local files kept
	for _, pat := range patterns {
		fs, err := filesystem.New(ctx, pat)
		if err != nil {
			return nil, err
		}
		files, err := fs.List(ctx, pat)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pat, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%w: %s: no such file (nor files matching it)", dataset.ErrEmpty, pat)
		}
		sort.Strings(files)
		for _, f := range files {
			if seen[f] {
				continue
			}
			seen[f] = true
			if !strings.Contains(f, "://") {
				if st, err := os.Stat(f); err == nil {
					if slices.ContainsFunc(local, func(fi os.FileInfo) bool { return os.SameFile(fi, st) }) {
						continue
					}
					local = append(local, st)
				}
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// Fit runs a streaming fit as Beam pipelines: the driver reads the pilot
// rows, then runs one pipeline per pass of the plan and joins its combined
// statistics. The result equals stream.Run's on the same data to rounding
// (the same Plan; sums in a different order, in double-double).
func Fit(ctx context.Context, opt stream.Options, src Source, cfg Config) (res *Result, err error) {
	if cfg.Run == nil {
		cfg.Run = runPrism
	}
	if cfg.ChunkRows <= 0 {
		cfg.ChunkRows = 2048
	}
	if src.SVM.Base == dataset.AutoBase {
		return nil, fmt.Errorf("%w: svmlight shards are read apart: give their index base (one- or zero-based), not automatic", stream.ErrOptions)
	}
	files, err := match(ctx, src.Patterns)
	if err != nil {
		return nil, err
	}
	plan, err := stream.NewPlan(opt)
	if err != nil {
		return nil, err
	}
	ssrc := stream.Source{Files: files, Format: src.Format, CSV: src.CSV, SVM: dataset.SVMLightOptions{Base: src.SVM.Base}, Open: open}
	pilot, header, labels, err := stream.FirstRows(ssrc, plan.PilotRows())
	if err != nil {
		return nil, err
	}
	if len(opt.Outputs) == 0 && len(labels) > 0 {
		opt.Outputs = labels
		if plan, err = stream.NewPlan(opt); err != nil {
			return nil, err
		}
	}
	if err := plan.SetPilot(pilot); err != nil {
		return nil, err
	}
	temp, err := jobDir(cfg.TempLocation)
	if err != nil {
		return nil, err
	}
	release := stream.HoldCleanup(ctx)
	defer func() {
		if rerr := removeJobDir(temp); rerr != nil && err == nil {
			res, err = nil, rerr
		}
		release()
	}()
	ws := workerSource{Format: src.Format, Labels: src.CSV.Labels, Qid: src.CSV.Qid, Comma: src.CSV.Comma, Columns: src.CSV.Columns, ChunkRows: cfg.ChunkRows,
		ZeroBased: src.SVM.Base == dataset.ZeroBased}
	if src.Format == "csv" {
		ws.Header, ws.HasHeader = header, true
	}
	n := 0
	var seen map[string]stream.Fingerprint // the first pass's
	for pass, more := plan.Next(); more; pass, more = plan.Next() {
		n++
		cfg.Progress.Phase(fmt.Sprintf("pass %d (%s)", n, pass.Kind), "", 0)
		prints, err := runPass(ctx, cfg, plan, pass, files, ws, fmt.Sprintf("%s/pass-%d", strings.TrimSuffix(temp, "/"), n), seen, n)
		if err != nil && seen != nil && ctx.Err() == nil && !errors.Is(err, stream.ErrChanged) {
			// data that changed fail in many ways: name the shard
			if verr := verifyShards(files, seen, n); verr != nil {
				err = verr
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
			}
			return nil, fmt.Errorf("pass %d (%s): %w", n, pass.Kind, err)
		}
		if seen == nil {
			seen = prints
		}
	}
	sres, err := plan.Result()
	if err != nil {
		return nil, err
	}
	return &Result{Result: sres, Files: files, FeatureNames: header}, nil
}

// jobDir makes the fit's own directory under the temporary location (""
// for the system's): rlskit-beam-<random> — created at once on a local file
// system, named by 128 random bits on another (gs://…), whose objects
// need no directory.
func jobDir(location string) (string, error) {
	if location == "" || !strings.Contains(location, "://") {
		if location != "" {
			if err := os.MkdirAll(location, 0o755); err != nil {
				return "", err
			}
		}
		return os.MkdirTemp(location, "rlskit-beam-")
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return strings.TrimSuffix(location, "/") + "/rlskit-beam-" + hex.EncodeToString(b[:]), nil
}

// removeJobDir removes the fit's directory and every file in it (through
// Beam's filesystems on another file system). It runs when the fit's
// context may be cancelled, so it uses its own.
func removeJobDir(dir string) error {
	if !strings.Contains(dir, "://") {
		return os.RemoveAll(dir)
	}
	ctx := context.Background()
	fs, err := filesystem.New(ctx, dir)
	if err != nil {
		return err
	}
	defer fs.Close()
	files, err := fs.List(ctx, dir+"/*")
	if err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	rm, ok := fs.(filesystem.Remover)
	if !ok {
		if len(files) > 0 {
			return fmt.Errorf("removing %s: its file system cannot remove files", dir)
		}
		return nil
	}
	for _, f := range files {
		if err := rm.Remove(ctx, f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", f, err)
		}
	}
	return nil
}

// shardPrint is a shard's fingerprint as the workers write it.
type shardPrint struct {
	File string `json:"file"`
	stream.Fingerprint
}

// comparePrints checks that the pass read every shard once and, after the
// first pass, the same bytes as the first.
func comparePrints(files []string, seen map[string]stream.Fingerprint, n int, prints map[string]stream.Fingerprint) error {
	for _, f := range files {
		fp, ok := prints[f]
		if !ok {
			return fmt.Errorf("%w: %s: no fingerprint from pass %d's workers", stream.ErrChanged, f, n)
		}
		if seen != nil {
			if err := stream.CheckFingerprint(f, seen[f], n, fp); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifyShards reads every shard's bytes again on the driver, without
// parsing them, and compares their fingerprints with the first pass's: the
// stream.ErrChanged of the first that differs, or nil.
func verifyShards(files []string, seen map[string]stream.Fingerprint, n int) error {
	for _, f := range files {
		rc, err := open(f)
		if err != nil {
			return nil
		}
		fp, err := stream.FingerprintOf(rc)
		rc.Close()
		if err != nil {
			return nil
		}
		if err := stream.CheckFingerprint(f, seen[f], n, fp); err != nil {
			return err
		}
	}
	return nil
}

// workerSource is what workers need to read the shards (JSON in the DoFns).
type workerSource struct {
	Format    string
	Labels    []string
	Qid       string
	Comma     rune
	Columns   dataset.Columns // the feature columns chosen (--features, --ignore)
	Header    []string
	HasHeader bool
	ChunkRows int
	ZeroBased bool
}

func (w workerSource) source() stream.Source {
	s := stream.Source{Format: w.Format, CSV: dataset.CSVOptions{Labels: w.Labels, Qid: w.Qid, Comma: w.Comma, Columns: w.Columns}, Open: open}
	if w.ZeroBased {
		s.SVM.Base = dataset.ZeroBased
	}
	if w.HasHeader {
		s.Header = w.Header
		if s.Header == nil {
			s.Header = []string{}
		}
	}
	return s
}

// runPass builds and runs the pipeline of pass n, checks the shards'
// fingerprints against the first pass's (seen; nil in the first pass), then
// joins its pieces and finishes the pass on the driver's plan. It returns
// the fingerprints.
func runPass(ctx context.Context, cfg Config, plan *stream.Plan, pass stream.Pass, files []string, ws workerSource, dir string, seen map[string]stream.Fingerprint, n int) (map[string]stream.Fingerprint, error) {
	cp, err := plan.Checkpoint()
	if err != nil {
		return nil, err
	}
	p, s := beam.NewPipelineWithRoot()
	shards := beam.CreateList(s, files)
	var pieces, preds, prints beam.PCollection
	if pass.Grouped {
		var rows beam.PCollection
		rows, prints = beam.ParDo2(s, &rowsFn{Source: ws}, shards)
		groups := beam.GroupByKey(s, rows)
		pieces, preds = beam.ParDo2(s, &groupFn{Checkpoint: cp, Predictions: pass.Predictions}, groups)
	} else {
		pieces, preds, prints = beam.ParDo3(s, &chunkFn{Checkpoint: cp, Source: ws, Predictions: pass.Predictions}, shards)
	}
	combined := beam.CombinePerKey(s, &pieceCombineFn{}, pieces)
	piecesFile, predsFile, printsFile := dir+"-pieces.txt", dir+"-predictions.txt", dir+"-shards.txt"
	textio.Write(s, piecesFile, beam.ParDo(s, formatPiece, combined))
	textio.Write(s, printsFile, prints)
	if pass.Predictions {
		textio.Write(s, predsFile, preds)
	}
	if err := cfg.Run(ctx, p); err != nil {
		return nil, err
	}
	fps := map[string]stream.Fingerprint{}
	if err := readLines(ctx, printsFile, func(line string) error {
		var sp shardPrint
		if err := json.Unmarshal([]byte(line), &sp); err != nil {
			return fmt.Errorf("%s: %w", printsFile, err)
		}
		if fp, ok := fps[sp.File]; ok && fp != sp.Fingerprint {
			return stream.CheckFingerprint(sp.File, fp, n, sp.Fingerprint)
		}
		fps[sp.File] = sp.Fingerprint
		return nil
	}); err != nil {
		return nil, err
	}
	if err := comparePrints(files, seen, n, fps); err != nil {
		return nil, err
	}
	var all []stream.Piece
	if err := readLines(ctx, piecesFile, func(line string) error {
		key, enc, ok := strings.Cut(line, "\t")
		if !ok {
			return fmt.Errorf("%s: a malformed line", piecesFile)
		}
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return fmt.Errorf("%s: %w", piecesFile, err)
		}
		all = append(all, stream.Piece{Key: key, Data: b})
		return nil
	}); err != nil {
		return nil, err
	}
	acc, err := plan.Join(all)
	if err != nil {
		return nil, err
	}
	var store *stream.Store
	if pass.Predictions {
		if store, err = stream.NewStoreContext(ctx, "", len(plan.Lambdas()), plan.Outputs()); err != nil {
			return nil, err
		}
		defer store.Close()
		w, err := store.Writer()
		if err != nil {
			return nil, err
		}
		if err := readLines(ctx, predsFile, func(line string) error {
			b, err := base64.StdEncoding.DecodeString(line)
			if err != nil {
				return fmt.Errorf("%s: %w", predsFile, err)
			}
			pr, err := stream.DecodePrediction(b)
			if err != nil {
				return fmt.Errorf("%s: %w", predsFile, err)
			}
			return w.Write(pr)
		}); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	}
	return fps, plan.Finish(acc, store)
}

// readLines reads a text file through Beam's filesystems (an empty
// PCollection writes no file: no lines).
func readLines(ctx context.Context, name string, fn func(string) error) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		if err := fn(sc.Text()); err != nil {
			return err
		}
	}
	return sc.Err()
}

// resume rebuilds the driver's plan on a worker (replaying its solves).
func resume(cp []byte) (*stream.Plan, error) { return stream.Resume(cp) }

// chunkFn reads one shard and accumulates its rows (a row pass).
type chunkFn struct {
	Checkpoint  []byte
	Source      workerSource
	Predictions bool
	plan        *stream.Plan
}

// Setup rebuilds the driver's plan from the checkpoint, once per worker instance.
func (fn *chunkFn) Setup() error {
	var err error
	fn.plan, err = resume(fn.Checkpoint)
	return err
}

// ProcessElement reads one shard, accumulates its rows and emits the pieces
// (and, for rank measures, the hold-out predictions) and the shard's
// fingerprint. O(rows·p²).
func (fn *chunkFn) ProcessElement(ctx context.Context, file string, emit func(string, []byte), emitPred func(string), emitPrint func(string)) error {
	a, err := fn.plan.NewAccumulator()
	if err != nil {
		return err
	}
	if fn.Predictions {
		a.Emit = func(p stream.Prediction) error {
			emitPred(base64.StdEncoding.EncodeToString(stream.EncodePrediction(p)))
			return nil
		}
	}
	fp, err := stream.ReadShardFingerprint(fn.Source.source(), file, fn.Source.ChunkRows, nil, func(d *dataset.Data, off int) error {
		if err := a.AddChunk(d); err != nil {
			return fmt.Errorf("%s: data rows %d–%d: %w", file, off+1, off+d.Rows(), err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := emitFingerprint(emitPrint, file, fp); err != nil {
		return err
	}
	pieces, err := a.Pieces()
	if err != nil {
		return err
	}
	for _, pc := range pieces {
		emit(pc.Key, pc.Data)
	}
	return nil
}

// rowsFn reads one shard and keys its rows by query id (a grouped pass).
type rowsFn struct {
	Source workerSource
}

// ProcessElement emits every row of one shard keyed by its query id, and
// the shard's fingerprint.
func (fn *rowsFn) ProcessElement(ctx context.Context, file string, emit func(string, []byte), emitPrint func(string)) error {
	fp, err := stream.ReadShardFingerprint(fn.Source.source(), file, fn.Source.ChunkRows, nil, func(d *dataset.Data, off int) error {
		if d.Queries == nil {
			return fmt.Errorf("%s: data rows %d–%d: %w: rows without query ids", file, off+1, off+d.Rows(), stream.ErrData)
		}
		for _, r := range stream.Rows(d) {
			emit(r.Group, stream.EncodeRow(r))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return emitFingerprint(emitPrint, file, fp)
}

// emitFingerprint emits a shard's fingerprint as a JSON line.
func emitFingerprint(emit func(string), file string, fp stream.Fingerprint) error {
	b, err := json.Marshal(shardPrint{File: file, Fingerprint: fp})
	if err != nil {
		return err
	}
	emit(string(b))
	return nil
}

// groupFn accumulates whole groups (a grouped pass).
type groupFn struct {
	Checkpoint  []byte
	Predictions bool
	plan        *stream.Plan
	acc         *stream.Accumulator
}

// Setup rebuilds the driver's plan from the checkpoint, once per worker instance.
func (fn *groupFn) Setup() error {
	var err error
	fn.plan, err = resume(fn.Checkpoint)
	return err
}

// ProcessElement accumulates one whole group and emits its pieces (and predictions).
func (fn *groupFn) ProcessElement(ctx context.Context, key string, rows func(*[]byte) bool, emit func(string, []byte), emitPred func(string)) error {
	if fn.acc == nil {
		var err error
		if fn.acc, err = fn.plan.NewAccumulator(); err != nil {
			return err
		}
	}
	fn.acc.Emit = nil
	if fn.Predictions {
		fn.acc.Emit = func(p stream.Prediction) error {
			emitPred(base64.StdEncoding.EncodeToString(stream.EncodePrediction(p)))
			return nil
		}
	}
	var group []stream.Row
	var b []byte
	for rows(&b) {
		r, err := stream.DecodeRow(b)
		if err != nil {
			return err
		}
		group = append(group, r)
	}
	// a group's rows arrive in any order; only rounding depends on it
	if err := fn.acc.AddGroup(group); err != nil {
		return fmt.Errorf("query %q: %w", key, err)
	}
	pieces, err := fn.acc.TakePieces()
	if err != nil {
		return err
	}
	for _, pc := range pieces {
		emit(pc.Key, pc.Data)
	}
	return nil
}

// pieceCombineFn combines the pieces of one key: its accumulator is the
// packed statistics.
type pieceCombineFn struct{}

// MergeAccumulators merges two packed pieces of one key (stream.MergePieces).
func (pieceCombineFn) MergeAccumulators(a, b []byte) ([]byte, error) { return stream.MergePieces(a, b) }

func formatPiece(key string, b []byte) string {
	return key + "\t" + base64.StdEncoding.EncodeToString(b)
}

// prismMu serializes job submissions to the in-process Prism runner: its
// artifact service (Beam v2.77.0, jobservices ReverseArtifactRetrievalService)
// writes a map without a lock, so two jobs submitted at once — two Fits in
// one process — crash the process with "concurrent map writes".
var prismMu sync.Mutex

// runPrism runs the pipeline on the in-process Prism runner, one job at a
// time (prismMu).
func runPrism(ctx context.Context, p *beam.Pipeline) error {
	prismMu.Lock()
	defer prismMu.Unlock()
	_, err := prism.Execute(ctx, p)
	return err
}
