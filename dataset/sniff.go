package dataset

import (
	"bufio"
	"bytes"
	"strings"
)

// Delimiters that CSVOptions.Comma = 0 chooses among, in the order that
// breaks ties.
var autoDelimiters = []rune{',', '\t', ';'}

// detectDelimiter returns the delimiter among comma, tab and semicolon that
// splits the header line into the most fields outside double quotes (comma
// on a tie, and when none occurs). It peeks at br (at most its buffer: a
// longer header is judged on its first 64 KiB) and consumes nothing.
func detectDelimiter(br *bufio.Reader) rune {
	var head []byte
	for n := 512; ; n *= 2 {
		n = min(n, br.Size())
		b, err := br.Peek(n)
		head = b
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			head = b[:k]
			break
		}
		if err != nil || n == br.Size() {
			break
		}
	}
	best, bestN := ',', 1
	for _, c := range autoDelimiters {
		if n := countFields(string(head), c); n > bestN {
			best, bestN = c, n
		}
	}
	return best
}

// countFields counts the fields of line split at c outside double quotes.
func countFields(line string, c rune) int {
	n, quoted := 1, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
		case r == c && !quoted:
			n++
		}
	}
	return n
}

// looksLikeCSV reports whether a line that failed as svmlight splits into
// two or more fields at commas, semicolons or tabs and has no
// whitespace-separated "index:…" field — a CSV header or row.
func looksLikeCSV(line string) bool {
	for _, tok := range strings.Fields(line) {
		if i, _, ok := strings.Cut(tok, ":"); ok {
			if _, err := parseFeatureIndex(i); err == nil || i == "qid" {
				return false
			}
		}
	}
	for _, c := range autoDelimiters {
		if countFields(line, c) >= 2 {
			return true
		}
	}
	return false
}

// looksLikeSVMLight reports whether a line is "label [qid:Q] i:v …" with at
// least one index:value pair, as svmlight data are.
func looksLikeSVMLight(line string) bool {
	f := strings.Fields(stripComment(line))
	if len(f) < 2 {
		return false
	}
	for _, l := range strings.Split(f[0], ",") {
		if _, err := parseValue(l); err != nil {
			return false
		}
	}
	pairs := 0
	for k, tok := range f[1:] {
		i, v, ok := strings.Cut(tok, ":")
		if !ok {
			return false
		}
		if k == 0 && i == "qid" {
			continue
		}
		if _, err := parseFeatureIndex(i); err != nil {
			return false
		}
		if _, err := parseValue(v); err != nil {
			return false
		}
		pairs++
	}
	return pairs > 0
}
