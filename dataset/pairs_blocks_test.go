package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// The block reader of pairs files (pairs_blocks.go) is an accelerator: the
// oracle is readPairsNaive, the reader as it was first written. Every read
// below is compared with it — pairs, lines, labels bit for bit, and error
// text character for character — with blocks small enough that errors,
// repeated pairs and changes between labelled and unlabelled lines fall in
// other blocks than the lines they are checked against.

// respell rewrites some lines "row col label" of in into spellings of the
// same pair that the fast path leaves to the general parser (or takes by
// another route): signs, leading zeros, exponents, long mantissas, blanks
// around and between the fields, comments, a label near Clinger's limits.
func respell(rng *rand.Rand, in string, rate float64) string {
	lines := strings.SplitAfter(in, "\n")
	for k, l := range lines {
		if rng.Float64() >= rate {
			continue
		}
		body := strings.TrimSuffix(l, "\n")
		f := strings.Fields(body)
		if len(f) != 3 || strings.ContainsAny(body, "#\r") {
			continue
		}
		r, c, v := f[0], f[1], f[2]
		switch rng.IntN(12) {
		case 0:
			body = "+" + r + " " + c + " " + v
		case 1:
			body = "00" + r + "\t" + c + "\t" + v
		case 2:
			body = "  " + r + "  " + c + "  " + v + "  "
		case 3:
			body = r + " " + c + " " + v + "e0"
		case 4:
			body = r + " " + c + " " + v + "00000000000000000000001"
		case 5:
			body = r + " " + c + " " + v + "#" + v
		case 6:
			body = r + " " + c + " -0.0"
		case 7:
			body = r + " " + c + " 9007199254740993"
		case 8:
			body = r + " " + c + " 0.0000000000000000000000123"
		case 9:
			body = r + " " + c + " ." + strings.Repeat("7", rng.IntN(25)+1)
		case 10:
			body = r + "\v" + c + "\f" + v + "\r"
		case 11:
			body = r + " " + c + " +" + strconv.FormatFloat(rng.NormFloat64()*1e6, 'f', rng.IntN(12), 64)
		}
		lines[k] = body + "\n"
	}
	out := strings.Join(lines, "")
	if rng.IntN(8) == 0 {
		out = "\ufeff" + out
	}
	return out
}

// readBoth reads in with ReadPairs (from the reader mk makes) and with the
// naive reader, and reports how they differ ("" when they agree).
func readBoth(in string, opt PairsOptions, mk func(string) io.Reader) string {
	got, gerr := ReadPairs(mk(in), "f", opt)
	want, werr := readPairsNaive(strings.NewReader(in), "f", opt)
	return pairsDiff(got, gerr, want, werr)
}

func plainReader(s string) io.Reader { return strings.NewReader(s) }
func halfReader(s string) io.Reader  { return iotest.HalfReader(strings.NewReader(s)) }

// TestReadPairsBlocksMatchNaive: drawn files, valid and faulty, labelled,
// unlabelled and mixed, cut into blocks of 1 to 300 bytes read by 1 to 4
// workers, with the pairSet as bits, as a map, and switching part way.
func TestReadPairsBlocksMatchNaive(t *testing.T) {
	defer func(b, d int64) { pairSetBitsPerPair, pairSetDenseCells = b, d }(pairSetBitsPerPair, pairSetDenseCells)
	rng := rand.New(rand.NewPCG(26, 7))
	forms := [][2]int64{{64, 1 << 23}, {1, 0}, {8, 0}}
	for trial := 0; trial < 1500; trial++ {
		form := forms[trial%len(forms)]
		pairSetBitsPerPair, pairSetDenseCells = form[0], form[1]
		rows, cols := 1+rng.IntN(30), 1+rng.IntN(30)
		bad := []float64{0, 0, 0.002, 0.02, 0.2}[rng.IntN(5)]
		in := respell(rng, pairsText(rng, rows, cols, 1+rng.IntN(rows*cols+1), bad), 0.05)
		size, workers := 1+rng.IntN(300), 1+rng.IntN(4)
		withBlocks(t, size, workers)
		for _, unl := range []bool{false, true} {
			opt := PairsOptions{Rows: rows, Cols: cols, Unlabelled: unl}
			for _, text := range []string{in, strings.ReplaceAll(in, " 1\n", "\n"), dropLabels(rng, in, 0.02)} {
				for name, mk := range map[string]func(string) io.Reader{"plain": plainReader, "half": halfReader} {
					if d := readBoth(text, opt, mk); d != "" {
						t.Fatalf("trial %d (blocks of %d, %d workers, set %v, %s reader, %+v):\n%s\n%q", trial, size, workers, form, name, opt, d, text)
					}
				}
			}
		}
	}
}

// goodPairs returns a valid labelled file of n of the cells of a rows×cols
// grid in a drawn order, one pair a line, and the cells left out.
func goodPairs(rng *rand.Rand, rows, cols, n int) (string, [][2]int) {
	cells := make([][2]int, 0, rows*cols)
	for i := range rows {
		for j := range cols {
			cells = append(cells, [2]int{i, j})
		}
	}
	rng.Shuffle(len(cells), func(a, b int) { cells[a], cells[b] = cells[b], cells[a] })
	var b strings.Builder
	for _, c := range cells[:n] {
		fmt.Fprintf(&b, "%d %d %s\n", c[0], c[1], strconv.FormatFloat(rng.NormFloat64(), 'g', 1+rng.IntN(10), 64))
	}
	return b.String(), cells[n:]
}

// dropLabels removes the label of each line of in with probability rate,
// and of every line from a drawn line on with probability 1/2.
func dropLabels(rng *rand.Rand, in string, rate float64) string {
	lines := strings.SplitAfter(in, "\n")
	from := len(lines)
	if rng.IntN(2) == 0 {
		from = rng.IntN(len(lines))
	}
	for k, l := range lines {
		if k >= from || rng.Float64() < rate {
			f := strings.Fields(l)
			if len(f) == 3 && !strings.Contains(l, "#") {
				lines[k] = f[0] + " " + f[1] + "\n"
			}
		}
	}
	return strings.Join(lines, "")
}

// TestReadPairsBlocksTaken: a large valid file is read in blocks (merged,
// none handed to the sequential reader) with the naive reader's result, on
// 1, 2 and 4 workers and at the default block size; an error, a repeated
// pair or a change of labelling in a late block is handed over once and
// reported as the naive reader reports it; a line longer than a block grows
// the block; gzip input is read sequentially.
func TestReadPairsBlocksTaken(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 26))
	const rows, cols = 100, 300
	good, free := goodPairs(rng, rows, cols, 27000)
	opt := PairsOptions{Rows: rows, Cols: cols}
	lines := strings.SplitAfter(good, "\n")
	lines = lines[:len(lines)-1] // the empty piece after the last "\n"
	at := func(k int, ins ...string) string {
		return strings.Join(lines[:k], "") + strings.Join(ins, "") + strings.Join(lines[k:], "")
	}
	// the pair on line k+1, and pairs not in the file
	pair := func(k int) string { return strings.Join(strings.Fields(lines[k])[:2], " ") }
	fresh := func(k int) string { return fmt.Sprintf("%d %d", free[k][0], free[k][1]) }
	var unlabelled, none strings.Builder // labels dropped from line 25001 on, from all lines
	for k, l := range lines {
		if k < 25000 {
			unlabelled.WriteString(l)
		} else {
			unlabelled.WriteString(l[:strings.LastIndexByte(l, ' ')] + "\n")
		}
		none.WriteString(l[:strings.LastIndexByte(l, ' ')] + "\n")
	}

	// labelled lines filling the first block of 4096 bytes exactly (a
	// comment pads it), then the lines of tail, which start the second block
	var first strings.Builder
	k := 0
	for ; first.Len()+len(lines[k]) < 4096-3; k++ {
		first.WriteString(lines[k])
	}
	first.WriteString("#" + strings.Repeat("-", 4096-first.Len()-2) + "\n")
	secondBlock := func(tail ...string) string { return first.String() + strings.Join(tail, "") }
	// unlabelled lines from the second block on: blocks each labelled alike,
	// refused by the merge
	var rest strings.Builder
	for _, l := range lines[k:] {
		rest.WriteString(l[:strings.LastIndexByte(l, ' ')] + "\n")
	}

	check := func(name, in string, opt PairsOptions, mk func(string) io.Reader, minMerged, wantHanded int64) {
		t.Helper()
		merged, handed := pairsBlocksMerged.Load(), handOvers.Load()
		if d := readBoth(in, opt, mk); d != "" {
			t.Fatalf("%s: %s", name, d)
		}
		if m := pairsBlocksMerged.Load() - merged; m < minMerged {
			t.Fatalf("%s: %d blocks merged, want at least %d", name, m, minMerged)
		}
		if h := handOvers.Load() - handed; h != wantHanded {
			t.Fatalf("%s: handed over to the sequential reader %d times, want %d", name, h, wantHanded)
		}
	}
	const many = 5 // blocks merged, at least, before a late line
	for _, workers := range []int{1, 2, 4} {
		withBlocks(t, 4096, workers)
		check("valid", good, opt, plainReader, many, 0)
		check("valid, half reader", good, opt, halfReader, many, 0)
		check("valid, unlabelled", none.String(), PairsOptions{Rows: rows, Cols: cols, Unlabelled: true}, plainReader, many, 0)
		check("valid, with a byte order mark", "\ufeff"+good, opt, plainReader, many, 0)
		for name, in := range map[string]string{
			// the repeated pair is not the first of its block: the block's
			// pairs before it are taken out of the set again
			"repeat of an early pair, late":             at(25000, pair(10)+" 1\n"),
			"repeat within a late block":                at(25000, pair(24990)+" 1\n"),
			"repeat of the line before, late":           at(25000, pair(24999)+" 1\n"),
			"syntax error late":                         at(20000, "5 x 1\n"),
			"index out of range late":                   at(20000, "5 300 1\n"),
			"NaN late":                                  at(20000, fresh(0)+" NaN\n"),
			"label not a number late":                   at(20000, fresh(0)+" 1.5.\n"),
			"extra field late":                          at(20000, fresh(0)+" 1 2\n"),
			"no label late":                             at(20000, fresh(0)+"\n"),
			"byte order mark late":                      at(20000, "\ufeff"+fresh(0)+" 1\n"),
			"unlabelled line late (prediction)":         at(22000, fresh(0)+"\n"),
			"unlabelled from a late block on":           unlabelled.String(),
			"unlabelled from the second block on":       secondBlock(rest.String()),
			"byte order mark starting the second block": secondBlock("\ufeff"+fresh(0)+" 1\n", strings.Join(lines[k:], "")),
			"error after a repeat in another block":     at(26000, fresh(0)+" x\n") + pair(3) + " 1\n",
		} {
			o := opt
			if strings.HasPrefix(name, "unlabelled") {
				o.Unlabelled = true
			}
			min := int64(many)
			if strings.Contains(name, "the second block") {
				min = 1
			}
			check(name, in, o, plainReader, min, 1)
		}
		// a comment longer than a block: the block grows
		check("long line late", at(15000, "# "+strings.Repeat("x", 20000)+"\n"), opt, plainReader, many, 0)
		// longer than the largest block: the sequential reader reads the rest
		check("line longer than any block", at(15000, "# "+strings.Repeat("x", 4096*maxBlockGrowth+10)+"\n"), opt, plainReader, many, 1)
		// a read error after many blocks names the line it happens in
		boom := errors.New("boom")
		cut := len(good) / 2
		_, werr := readPairsNaive(iotestErrAfter(good[:cut], boom), "f", opt)
		_, err := ReadPairs(iotestErrAfter(good[:cut], boom), "f", opt)
		if err == nil || werr == nil || err.Error() != werr.Error() {
			t.Fatalf("read error: %v, naive %v", err, werr)
		}
	}
	// the default block size on 2 workers
	withBlocks(t, readBlock, 2)
	big, _ := goodPairs(rng, 300, 300, 90000)
	check("default blocks", big, PairsOptions{Rows: 300, Cols: 300}, plainReader, 2, 0)
	// gzip: the sequential reader, line by line
	withBlocks(t, 4096, 2)
	got, gerr := ReadPairs(bytes.NewReader(gz([]byte(good))), "f", opt)
	want, werr := readPairsNaive(strings.NewReader(good), "f", opt)
	if d := pairsDiff(got, gerr, want, werr); d != "" {
		t.Fatalf("gzip: %s", d)
	}
	// the line bound, below the block size, in a late block
	withLimits(t, 30, 0)
	for _, long := range []string{fresh(0) + " " + strings.Repeat("0", 40), "# " + strings.Repeat("-", 40), fresh(0) + " 1" + strings.Repeat(" ", 30) + "\r"} {
		in := at(20000, long+"\n")
		check("line bound", in, opt, plainReader, many, 1)
		_, err := ReadPairs(strings.NewReader(in), "f", opt)
		checkLimit(t, err, "f", 20001, EnvMaxLine, 30)
	}
	// a line of exactly the bound, and one with "\r\n" after it, are read
	in := at(20000, fresh(0)+" 1"+strings.Repeat(" ", 30-len(fresh(0))-2)+"\r\n", fresh(1)+" 1"+strings.Repeat(" ", 30-len(fresh(1))-2)+"\n")
	check("line of the bound", in, opt, plainReader, many, 0)
}

// TestReadPairsBlocksReserve: read in many blocks, the slices are sized
// once as the sequential reader sizes them, within a quarter of the pairs.
func TestReadPairsBlocksReserve(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	in, _ := goodPairs(rng, 60, 500, 30000)
	withBlocks(t, 2048, 2)
	p, err := ReadPairs(strings.NewReader(in), "f", PairsOptions{Rows: 60, Cols: 500})
	if err != nil {
		t.Fatal(err)
	}
	n := p.Len()
	for what, c := range map[string]int{"rows": cap(p.Rows), "cols": cap(p.Cols), "lines": cap(p.Lines), "labels": cap(p.Labels)} {
		if c < n || c > n+n/4+64 {
			t.Errorf("%s capacity %d for %d pairs", what, c, n)
		}
	}
}

// FuzzReadPairsBlocks compares the block reader, on blocks of 1 to 64
// bytes and 1 to 4 workers, with a line bound of 4 to 19 bytes or none,
// with the naive reader.
func FuzzReadPairsBlocks(f *testing.F) {
	for _, s := range []string{"0 1 1\n2 3 -1.5\n", "0 0\n1 1\n", "1 1 1\n0 0 0\n1 1 2\n", "x y z\n", "# c\n\n3 3 3 3\n",
		"0 0 1\r\n0 0 2", "\ufeff0 1 .5\n1 1 +2\n", "0 1 1\n0 2\n", "0 1\n0 2 1\n", "3 4 1e3\n3 3 -0.0\n"} {
		f.Add(s, false, 7, 2)
	}
	f.Fuzz(func(t *testing.T, in string, unl bool, size, workers int) {
		withBlocks(t, 1+(size%64+64)%64, 1+(workers%4+4)%4)
		if workers%3 == 0 { // a line bound
			withLimits(t, int64(4+(size%16+16)%16), 0)
		}
		if d := readBoth(in, PairsOptions{Rows: 4, Cols: 5, Unlabelled: unl}, plainReader); d != "" {
			t.Fatal(d)
		}
	})
}

// TestScanLabel: scanLabel gives scanDecimal's value (bit for bit), end and
// verdict on drawn numbers of every form, in place — followed by the other
// bytes of a line or ending the buffer, so that the eight-byte path and the
// byte loop both run.
func TestScanLabel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	tails := []string{"", "\n", " 1 2\n", "\r\n", "#c", "e5", "E-3 ", "x", ".5", "\xff\xfe", "0123456789", "\x2f\x3a"}
	digits := func(n int) string {
		b := make([]byte, n)
		for k := range b {
			b[k] = byte('0' + rng.IntN(10))
		}
		return string(b)
	}
	for trial := 0; trial < 200000; trial++ {
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(30)-15)), "fge"[rng.IntN(3)], rng.IntN(20)-1, 64)
		case 1:
			s = []string{"", "-", "+"}[rng.IntN(3)] + digits(rng.IntN(22)) + []string{"", "."}[rng.IntN(2)] + digits(rng.IntN(26))
		case 2:
			s = []string{"", "-"}[rng.IntN(2)] + strings.Repeat("0", rng.IntN(20)) + "." + strings.Repeat("0", rng.IntN(20)) + digits(rng.IntN(12))
		case 3:
			s = []string{".", "-", "+", "-.", "0x1p3", "1_0", "inf", "1e", "1e+", "9007199254740993", "9007199254740992.0"}[rng.IntN(11)]
		}
		lead := strings.Repeat(" ", rng.IntN(3))
		b := []byte(lead + s + tails[rng.IntN(len(tails))])
		v, end, ok := scanLabel(b, len(lead))
		wv, wend, wok := scanDecimal(b, len(lead))
		if math.Float64bits(v) != math.Float64bits(wv) || end != wend || ok != wok {
			t.Fatalf("%q at %d: scanLabel %v %d %v, scanDecimal %v %d %v", b, len(lead), v, end, ok, wv, wend, wok)
		}
	}
}

// FuzzScanLabel holds scanLabel to scanDecimal on any bytes and offset.
func FuzzScanLabel(f *testing.F) {
	for _, s := range []string{"0.312457\n", "-0.5 ", "12345678.87654321", ".000000001e", "+9007199254740993"} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if len(b) == 0 {
			return
		}
		i = (i%len(b) + len(b)) % len(b)
		v, end, ok := scanLabel(b, i)
		wv, wend, wok := scanDecimal(b, i)
		if math.Float64bits(v) != math.Float64bits(wv) || end != wend || ok != wok {
			t.Fatalf("%q at %d: scanLabel %v %d %v, scanDecimal %v %d %v", b, i, v, end, ok, wv, wend, wok)
		}
	})
}

// TestReadPairsBlocksHugeIndices: indices beyond what a block holds (2³¹ − 1
// and more, on grids of up to 2³³ objects a side) are read as the naive
// reader reads them, repeats included.
func TestReadPairsBlocksHugeIndices(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	opt := PairsOptions{Rows: 1 << 33, Cols: 1 << 33}
	idx := []int{0, 7, math.MaxInt32 - 1, math.MaxInt32, math.MaxInt32 + 1, 1<<32 + 5, 1<<33 - 1}
	for trial := 0; trial < 200; trial++ {
		withBlocks(t, 1+rng.IntN(100), 1+rng.IntN(3))
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			fmt.Fprintf(&b, "%d %d %d\n", idx[rng.IntN(len(idx))], idx[rng.IntN(len(idx))], rng.IntN(9))
		}
		if d := readBoth(b.String(), opt, plainReader); d != "" {
			t.Fatalf("trial %d: %s\n%s", trial, d, b.String())
		}
	}
}
