package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"strings"
)

// SniffFormat tells the format of a stream whose name does not (standard
// input) by its first bytes, and returns a reader of the whole stream (r
// buffered: nothing is lost). It looks through gzip (decompressing a prefix
// of what it peeks, apart from the stream). Binary formats go by their magic
// bytes: "\x93NUMPY" is "npy", "PK\x03\x04" (a zip archive) "npz", "PAR1"
// "parquet". Text goes by its first line that is not empty (a UTF-8 byte
// order mark skipped): "svmlight" when it reads as svmlight ("label [qid:Q]
// i:v …") or is a comment ('#'), "csv" when it splits into two or more
// fields at commas, semicolons or tabs and has no "index:value" field (a
// header or a row of CSV), and "svmlight" otherwise, as before. A first line
// longer than the peek (64 KiB of text) is judged on its start. Read errors
// are left to the reader. O(64 KiB).
func SniffFormat(r io.Reader) (string, io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(br.Size())
	if isGzip(br) {
		if zr, err := gzip.NewReader(bytes.NewReader(head)); err == nil {
			text := make([]byte, 64<<10)
			n, _ := io.ReadFull(zr, text)
			head = text[:n]
		}
	}
	return sniff(head), br
}

// sniff tells the format of data starting with head (see SniffFormat).
func sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		return "npy"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "npz"
	case bytes.HasPrefix(head, []byte("PAR1")):
		return "parquet"
	}
	head = bytes.TrimPrefix(head, []byte("\ufeff"))
	for len(head) > 0 {
		line := head
		if k := bytes.IndexByte(head, '\n'); k >= 0 {
			line, head = head[:k], head[k+1:]
		} else {
			head = nil
		}
		l := strings.TrimSpace(string(line))
		switch {
		case l == "":
			continue
		case strings.HasPrefix(l, "#") || looksLikeSVMLight(l):
			return "svmlight"
		case looksLikeCSV(l):
			return "csv"
		}
		return "svmlight"
	}
	return "svmlight"
}

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
