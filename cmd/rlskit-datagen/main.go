// Command rlskit-datagen writes synthetic data sets for rlskit's streaming
// benchmarks and tutorial, in svmlight format, sharded and optionally gzipped.
//
//	rlskit-datagen -kind letor -rows 2000000 -features 136 -queries 20000 -shards 16 -gzip -out /data/letor
//	rlskit-datagen -kind regression -rows 5000000 -features 50 -shards 1 -out /data/ridge
//
// letor is shaped like the public LETOR sets (MSLR-WEB: 136 features, graded
// relevance 0–4, tens to hundreds of documents per query): every query's
// feature values are scaled to [0, 1] within the query (LETOR's QueryLevelNorm),
// relevance is a noisy monotone function of a hidden linear score plus a
// query effect, and queries follow each other in the files — one query is
// split across every shard boundary, as when a large file is cut into parts.
// regression is y = xᵀβ + 2 + noise with x ~ N(0, 1) per feature, every feature
// stored. Both are deterministic in -seed. Shards are named part-00000.svm[.gz].
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	kind := flag.String("kind", "letor", "letor or regression")
	rows := flag.Int("rows", 100000, "rows")
	features := flag.Int("features", 136, "features per row")
	queries := flag.Int("queries", 1000, "letor: queries")
	shards := flag.Int("shards", 4, "output files")
	gz := flag.Bool("gzip", false, "gzip every shard")
	digits := flag.Int("digits", 6, "significant digits of the feature values")
	seed := flag.Uint64("seed", 1, "random seed")
	betaSeed := flag.Uint64("beta-seed", 0, "seed of the hidden weights (default -seed): a test set drawn with another -seed and the same -beta-seed follows the same model")
	out := flag.String("out", "", "output directory (created)")
	flag.Parse()
	if *out == "" || *rows < 1 || *features < 1 || *shards < 1 || *queries < 1 || *kind != "letor" && *kind != "regression" {
		flag.Usage()
		os.Exit(2)
	}
	if *betaSeed == 0 {
		*betaSeed = *seed
	}
	if err := run(*kind, *rows, *features, *queries, *shards, *gz, *digits, *seed, *betaSeed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "rlskit-datagen:", err)
		os.Exit(1)
	}
}

type shardWriter struct {
	f  *os.File
	zw *gzip.Writer
	bw *bufio.Writer
}

func create(dir string, n int, gz bool) (*shardWriter, error) {
	name := filepath.Join(dir, fmt.Sprintf("part-%05d.svm", n))
	if gz {
		name += ".gz"
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	s := &shardWriter{f: f}
	var w io.Writer = f
	if gz {
		s.zw = gzip.NewWriter(f)
		w = s.zw
	}
	s.bw = bufio.NewWriterSize(w, 1<<20)
	return s, nil
}

func (s *shardWriter) close() error {
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if s.zw != nil {
		if err := s.zw.Close(); err != nil {
			return err
		}
	}
	return s.f.Close()
}

func run(kind string, rows, d, queries, shards int, gz bool, digits int, seed, betaSeed uint64, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	brng := rand.New(rand.NewPCG(betaSeed, 0xbe7a))
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = brng.NormFloat64() / math.Sqrt(float64(d))
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	per := (rows + shards - 1) / shards
	shard, written := 0, 0
	w, err := create(out, 0, gz)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 32*d)
	emit := func(label float64, qid int, x []float64) error {
		if written == per*(shard+1) && shard+1 < shards {
			if err := w.close(); err != nil {
				return err
			}
			shard++
			if w, err = create(out, shard, gz); err != nil {
				return err
			}
		}
		buf = strconv.AppendFloat(buf[:0], label, 'g', -1, 64)
		if qid >= 0 {
			buf = append(buf, " qid:"...)
			buf = strconv.AppendInt(buf, int64(qid), 10)
		}
		for j, v := range x {
			if v == 0 && kind == "letor" {
				continue
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', digits, 64)
		}
		buf = append(buf, '\n')
		written++
		_, err := w.bw.Write(buf)
		return err
	}
	x := make([]float64, d)
	if kind == "regression" {
		for i := 0; i < rows; i++ {
			y := 2.0
			for j := range x {
				x[j] = rng.NormFloat64()
				y += beta[j] * x[j]
			}
			y += 0.5 * rng.NormFloat64()
			y, _ = strconv.ParseFloat(strconv.FormatFloat(y, 'g', digits, 64), 64)
			if err := emit(y, -1, x); err != nil {
				return err
			}
		}
		return w.close()
	}
	// letor: query sizes around rows/queries (0.25× to 1.75×), summing to rows
	sizes := make([]int, queries)
	left := rows
	for q := range sizes {
		mean := float64(left) / float64(queries-q)
		n := int(mean * (0.25 + 1.5*rng.Float64()))
		if q == queries-1 {
			n = left
		}
		n = max(1, min(n, left-(queries-q-1)))
		sizes[q], left = n, left-n
	}
	doc := make([][]float64, 0, 1024)
	score := make([]float64, 0, 1024)
	for q, n := range sizes {
		effect := 0.5 * rng.NormFloat64()
		doc, score = doc[:0], score[:0]
		for i := 0; i < n; i++ {
			row := make([]float64, d)
			s := effect
			for j := range row {
				row[j] = math.Exp(0.7*rng.NormFloat64()) * float64(1+j%7)
				if rng.Float64() < 0.15 {
					row[j] = 0 // LETOR features are often absent
				}
				s += beta[j] * row[j] / float64(1+j%7)
			}
			doc, score = append(doc, row), append(score, s)
		}
		// QueryLevelNorm: every feature scaled to [0, 1] within the query
		for j := 0; j < d; j++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, r := range doc {
				lo, hi = math.Min(lo, r[j]), math.Max(hi, r[j])
			}
			for _, r := range doc {
				if hi > lo {
					r[j] = (r[j] - lo) / (hi - lo)
				} else {
					r[j] = 0
				}
			}
		}
		for i, r := range doc {
			rel := math.Floor(2 + 1.2*(score[i]-effect) + 0.8*rng.NormFloat64())
			rel = math.Max(0, math.Min(4, rel))
			if err := emit(rel, q+1, r); err != nil {
				return err
			}
		}
	}
	return w.close()
}
