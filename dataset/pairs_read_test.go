package dataset

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readPairsNaive is ReadPairs as it was written first — each line copied to a
// string and split into a slice, every pair in a map from the pair to its line
// (keyed by the pair: the first version's cell number row·cols+col wrapped on
// grids of more than 2⁶³ cells) — kept as the reference the block reader, the
// in-buffer reader and its pairSet are held to.
func readPairsNaive(r io.Reader, name string, opt PairsOptions) (*Pairs, error) {
	name = inputName(name)
	if err := checkIndexArgs(r, name, opt.Rows); err != nil {
		return nil, err
	}
	if err := checkIndexArgs(r, name, opt.Cols); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	out := &Pairs{}
	seen := make(map[[2]int]int)
	labelled := -1
	for {
		fields, ok := lr.fields()
		if !ok {
			break
		}
		if len(fields) == 0 {
			continue
		}
		want := "\"row col label\""
		if opt.Unlabelled {
			want = "\"row col\" or \"row col label\""
		}
		switch {
		case len(fields) == 1:
			return nil, perr(name, lr.line, 1, fields[0], ErrRagged, "1 field, want %s", want)
		case len(fields) == 2 && !opt.Unlabelled:
			return nil, perr(name, lr.line, 2, fields[1], ErrRagged, "no label, want %s", want)
		case len(fields) > 3:
			return nil, perr(name, lr.line, 4, fields[3], ErrRagged, "%d fields, want %s", len(fields), want)
		}
		row, err := parseIndex(name, lr.line, 1, fields[0], opt.Rows)
		if err != nil {
			return nil, err
		}
		col, err := parseIndex(name, lr.line, 2, fields[1], opt.Cols)
		if err != nil {
			return nil, err
		}
		has := 0
		if len(fields) == 3 {
			has = 1
		}
		if labelled >= 0 && has != labelled {
			first := out.Lines[0]
			if has == 1 {
				return nil, perr(name, lr.line, 3, fields[2], ErrRagged, "a label, but line %d has none: label every pair or none", first)
			}
			return nil, perr(name, lr.line, 2, fields[1], ErrRagged, "no label, but line %d has one: label every pair or none", first)
		}
		labelled = has
		key := [2]int{row, col}
		if prev, ok := seen[key]; ok {
			return nil, perr(name, lr.line, 1, fields[0], ErrDuplicate, "pair (%d, %d) already on line %d", row, col, prev)
		}
		seen[key] = lr.line
		if has == 1 {
			v, err := parseValue(fields[2])
			if err != nil {
				return nil, &ParseError{File: name, Line: lr.line, Column: 3, Token: clip(fields[2]), Err: err}
			}
			out.Labels = append(out.Labels, v)
		}
		out.Rows, out.Cols, out.Lines = append(out.Rows, row), append(out.Cols, col), append(out.Lines, lr.line)
	}
	if lr.err != nil {
		return nil, readErr(name, lr.line+1, lr.err)
	}
	if out.Len() == 0 {
		return nil, perr(name, 0, 0, "", ErrEmpty, "no pairs")
	}
	return out, nil
}

// samePairsResult reports how ReadPairs and readPairsNaive differ on in
// ("" when they agree on the pairs, the labels, the lines and the error text).
func samePairsResult(in string, opt PairsOptions) string {
	got, gerr := ReadPairs(strings.NewReader(in), "f", opt)
	want, werr := readPairsNaive(strings.NewReader(in), "f", opt)
	return pairsDiff(got, gerr, want, werr)
}

// pairsDiff reports how a read (got, gerr) differs from the naive reader's
// (want, werr): "" when the pairs, the labels (bit for bit), the lines and
// the error text agree.
func pairsDiff(got *Pairs, gerr error, want *Pairs, werr error) string {
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		return fmt.Sprintf("error %v, naive %v", gerr, werr)
	}
	if gerr != nil {
		return ""
	}
	if !slices.Equal(got.Rows, want.Rows) || !slices.Equal(got.Cols, want.Cols) || !slices.Equal(got.Lines, want.Lines) ||
		!slices.EqualFunc(got.Labels, want.Labels, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) ||
		(got.Labels == nil) != (want.Labels == nil) {
		return fmt.Sprintf("got %+v, naive %+v", got, want)
	}
	return ""
}

// pairsText draws a pairs file of n lines over a rows×cols grid: mostly
// valid "row col label" lines, some repeated pairs, and with probability bad
// per line one of the faults ReadPairs names (field counts, indices out of
// range or not integers, labels not numbers or not finite), comments and
// blank lines.
func pairsText(rng *rand.Rand, rows, cols, n int, bad float64) string {
	var b strings.Builder
	var done [][2]int
	for i := 0; i < n; i++ {
		r, c := rng.IntN(rows), rng.IntN(cols)
		if len(done) > 0 && rng.IntN(50) == 0 {
			p := done[rng.IntN(len(done))]
			r, c = p[0], p[1]
		}
		done = append(done, [2]int{r, c})
		line := fmt.Sprintf("%d %d %s", r, c, strconv.FormatFloat(rng.NormFloat64(), 'g', -1, 64))
		if rng.Float64() < bad {
			switch rng.IntN(10) {
			case 0:
				line = fmt.Sprintf("%d", r)
			case 1:
				line = fmt.Sprintf("%d %d", r, c)
			case 2:
				line += " 9"
			case 3:
				line = fmt.Sprintf("%d %d 1", rows, c)
			case 4:
				line = fmt.Sprintf("%d -1 1", r)
			case 5:
				line = fmt.Sprintf("%d.0 %d 1", r, c)
			case 6:
				line = fmt.Sprintf("%d %d nan", r, c)
			case 7:
				line = fmt.Sprintf("%d %d 1e999", r, c)
			case 8:
				line = fmt.Sprintf("\t%d\t%d\t2 # a comment", r, c)
			case 9:
				line = "# only a comment"
			}
		}
		b.WriteString(line)
		if rng.IntN(20) == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
		if rng.IntN(30) == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestReadPairsMatchesNaive holds the in-buffer reader to the naive one on
// drawn files, valid and faulty, labelled and unlabelled, with the pairSet
// as bits from the start, as a map throughout, and switching from map to
// bits part way through.
func TestReadPairsMatchesNaive(t *testing.T) {
	defer func(b, d int64) { pairSetBitsPerPair, pairSetDenseCells = b, d }(pairSetBitsPerPair, pairSetDenseCells)
	rng := rand.New(rand.NewPCG(26, 4))
	for _, form := range []struct {
		name        string
		perPair, in int64
	}{{"bits", 64, 1 << 23}, {"map", 1, 0}, {"map then bits", 8, 0}} {
		pairSetBitsPerPair, pairSetDenseCells = form.perPair, form.in
		for trial := 0; trial < 300; trial++ {
			rows, cols := 1+rng.IntN(30), 1+rng.IntN(30)
			bad := []float64{0, 0.01, 0.2}[trial%3]
			in := pairsText(rng, rows, cols, 1+rng.IntN(3*rows*cols/2+1), bad)
			for _, unl := range []bool{false, true} {
				opt := PairsOptions{Rows: rows, Cols: cols, Unlabelled: unl}
				if d := samePairsResult(in, opt); d != "" {
					t.Fatalf("%s, trial %d, %+v:\n%s\n%s", form.name, trial, opt, d, in)
				}
				if d := samePairsResult(strings.ReplaceAll(in, " 1\n", "\n"), opt); d != "" {
					t.Fatalf("%s, trial %d, labels dropped, %+v:\n%s", form.name, trial, opt, d)
				}
			}
		}
	}
}

// TestPairSetForms: the set finds exactly the repeated cells in each form,
// including the switch from map to bits and a grid whose cell count
// overflows int64 (a map throughout).
func TestPairSetForms(t *testing.T) {
	defer func(b, d int64) { pairSetBitsPerPair, pairSetDenseCells = b, d }(pairSetBitsPerPair, pairSetDenseCells)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, form := range [][2]int64{{64, 1 << 23}, {1, 0}, {4, 0}} {
		pairSetBitsPerPair, pairSetDenseCells = form[0], form[1]
		for _, sz := range [][2]int{{7, 9}, {64, 1}, {1, 130}, {33, 65}} {
			s := newPairSet(sz[0], sz[1])
			in := map[[2]int]bool{}
			for k := 0; k < 3*sz[0]*sz[1]; k++ {
				p := [2]int{rng.IntN(sz[0]), rng.IntN(sz[1])}
				if got := s.add(p[0], p[1]); got != in[p] {
					t.Fatalf("form %v, %v: add%v = %v, want %v", form, sz, p, got, in[p])
				}
				in[p] = true
			}
		}
	}
	huge := newPairSet(1<<40, 1<<40)
	// (2²⁴, 5) and (0, 5) would share the cell number 2²⁴·2⁴⁰ + 5 ≡ 5 (mod 2⁶⁴)
	if huge.bits != nil || huge.cells != -1 || huge.add(1<<39, 5) || !huge.add(1<<39, 5) || huge.add(0, 5) || huge.add(1<<24, 5) || !huge.add(1<<24, 5) {
		t.Errorf("overflowing grid: bits %v, cells %d", huge.bits != nil, huge.cells)
	}
}

// TestReadPairsReserve: past pairsSample pairs ReadPairs sizes its slices
// from the input's size — from a file and from an in-memory reader alike —
// with the naive reader's results; for a uniform file the capacity stays
// within a quarter of the pairs (the estimate's 1/8 and the allocator's
// size classes), and a file whose first
// lines are short and the rest long gets no more than its size/6.
func TestReadPairsReserve(t *testing.T) {
	var uniform strings.Builder
	for i := 0; i < 60; i++ {
		for j := 0; j < 90; j++ {
			fmt.Fprintf(&uniform, "%d %d %.6g\n", i, j, float64(i*j)/7)
		}
	}
	var skewed strings.Builder
	for i := 0; i < 3000; i++ {
		if i < pairsSample {
			fmt.Fprintf(&skewed, "%d %d 1\n", i/1000, i%1000)
		} else {
			fmt.Fprintf(&skewed, "%d %d 1.%s\n", i/1000, i%1000, strings.Repeat("0", 200))
		}
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, in string
		opt      PairsOptions
		maxCap   func(n int) int
	}{
		{"uniform", uniform.String(), PairsOptions{Rows: 60, Cols: 90}, func(n int) int { return n + n/4 + 64 }},
		// rows·cols far above the pairs: only the size bounds the estimate
		{"skewed", skewed.String(), PairsOptions{Rows: 1000, Cols: 1000}, func(int) int { return skewed.Len() / 6 }},
	} {
		opt := tc.opt
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := ReadPairs(fh, "f", opt)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if d := samePairsResult(tc.in, opt); d != "" {
			t.Fatalf("%s: %s", tc.name, d)
		}
		want, _ := readPairsNaive(strings.NewReader(tc.in), "f", opt)
		if !slices.Equal(fromFile.Rows, want.Rows) || !slices.Equal(fromFile.Cols, want.Cols) || !slices.Equal(fromFile.Labels, want.Labels) ||
			!slices.Equal(fromFile.Lines, want.Lines) {
			t.Fatalf("%s: from a file, the pairs differ", tc.name)
		}
		n := fromFile.Len()
		for what, c := range map[string]int{"rows": cap(fromFile.Rows), "cols": cap(fromFile.Cols), "lines": cap(fromFile.Lines), "labels": cap(fromFile.Labels)} {
			if c < n || c > tc.maxCap(n) {
				t.Errorf("%s: %s capacity %d for %d pairs, want at most %d", tc.name, what, c, n, tc.maxCap(n))
			}
		}
	}
	if got := bytesLeft(bytes.NewReader(make([]byte, 10))); got != 10 {
		t.Errorf("bytesLeft of a 10-byte reader: %d", got)
	}
	if got := bytesLeft(io.MultiReader()); got != 0 {
		t.Errorf("bytesLeft of a reader that cannot tell: %d", got)
	}
}

// FuzzReadPairsNaive compares the two readers on any input.
func FuzzReadPairsNaive(f *testing.F) {
	for _, s := range []string{"0 1 1\n2 3 -1.5\n", "0 0\n", "1 1 1\n1 1 2\n", "x y z\n", "# c\n\n3 3 3 3\n", "0 0 1\r\n0 0 2"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, unl bool) {
		if d := samePairsResult(in, PairsOptions{Rows: 4, Cols: 5, Unlabelled: unl}); d != "" {
			t.Fatal(d)
		}
	})
}

// BenchmarkReadPairs reads complete grids of labelled pairs (m×q lines "r c
// label", the label with 10 significant digits) at three sizes.
func BenchmarkReadPairs(b *testing.B) {
	for _, sz := range [][2]int{{30, 100}, {300, 1000}, {1000, 1000}} {
		rng := rand.New(rand.NewPCG(1, 2))
		var sb strings.Builder
		for i := 0; i < sz[0]; i++ {
			for j := 0; j < sz[1]; j++ {
				fmt.Fprintf(&sb, "%d %d %.10g\n", i, j, rng.NormFloat64())
			}
		}
		in := sb.String()
		b.Run(fmt.Sprintf("m=%d,q=%d", sz[0], sz[1]), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := ReadPairs(strings.NewReader(in), "b", PairsOptions{Rows: sz[0], Cols: sz[1]}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
