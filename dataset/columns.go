package dataset

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Columns chooses the feature columns of a table: a CSV or Parquet file,
// whose columns are numbered 1… in file order and named by the header, or
// the feature array X of a NumPy .npz archive (or a .npy file), whose
// columns are numbered 1… and have no names. The label and query columns
// (CSVOptions.Labels and Qid) are never features. The zero value makes every
// other column a feature, in file order.
//
// A selector (an element of Features or Ignore) is one of
//   - a column number, "3" (1-based, over all the columns of the file,
//     labels included);
//   - a range of them, "3-7" (both ends included);
//   - a glob, "px_*": path.Match syntax (* ? [...] and \ to escape), matched
//     against every column name;
//   - a column name, matched exactly (after the spaces around header names
//     are removed).
//
// Anything of digits (and one '-' between digits) is a number or a range,
// even when a column has that name: select such a column by a glob that
// escapes it ("\1", "[1]"). Names and globs need names: for an .npz array
// they are an error. Every selector must match a column, and a number or
// range must lie within the columns; a name or number that selects the label
// or query column is an error (a glob or range that covers it skips it).
// Errors name the option as the rlskit flag (--features, --ignore) and list
// the columns, the one closest to a misspelt name first.
//
// Selecting costs O(columns × selectors) once, on the header; reading then
// skips the columns that are not used: CSV fields are not parsed, Parquet
// column chunks not decoded (an .npz array is read whole, then its selected
// columns kept in place).
type Columns struct {
	// Features, when not empty, are the only feature columns (--features).
	Features []string
	// Ignore are columns that are not features (--ignore); with Features
	// too, the features are Features minus Ignore.
	Ignore []string
	// Names, when not nil, are the feature columns by exact name, in the
	// order of the features a model was trained on: prediction data select
	// them wherever they stand, and read no other feature column. With
	// Features or Ignore too, those must select the same columns, or it is an
	// error (ErrUnknownColumn). CSV and Parquet only.
	Names []string
	// Positions, when not nil, are the feature columns by 0-based number, in
	// order: the columns of an .npz or .npy array a model was trained on
	// (Data.FeatureColumns). With Features or Ignore too, those must select
	// the same columns. NumPy arrays only.
	Positions []int
}

// IsZero reports whether c chooses nothing: every column that is not a
// label or the query column is a feature.
func (c Columns) IsZero() bool {
	return len(c.Features) == 0 && len(c.Ignore) == 0 && c.Names == nil && c.Positions == nil
}

// roleIgnored marks a column that is read past: not a feature, label or
// query column.
const roleIgnored = -3

// selector is one parsed element of Columns.Features or Columns.Ignore.
type selector struct {
	text   string
	lo, hi int  // 0-based columns lo…hi of a number or a range
	number bool // a number or a range
	glob   bool
	single bool // one column named exactly (a name or a single number)
}

// parseSelectors parses the selectors of a flag.
func parseSelectors(flag string, items []string) ([]selector, error) {
	var out []selector
	for _, it := range items {
		s := selector{text: strings.TrimSpace(it)}
		t := s.text
		switch {
		case t == "":
			return nil, fmt.Errorf("%s: an empty column (two commas, or one at an end?): %w", flag, ErrOptions)
		case isDigits(t):
			n, err := colNumber(flag, t)
			if err != nil {
				return nil, err
			}
			s.number, s.single, s.lo, s.hi = true, true, n, n
		case strings.Count(t, "-") == 1 && isDigits(t[:strings.IndexByte(t, '-')]) && isDigits(t[strings.IndexByte(t, '-')+1:]):
			a, b, _ := strings.Cut(t, "-")
			lo, err := colNumber(flag, a)
			if err != nil {
				return nil, err
			}
			hi, err := colNumber(flag, b)
			if err != nil {
				return nil, err
			}
			if lo > hi {
				return nil, fmt.Errorf("%s %s: a range runs from the lower column to the higher (%s-%s): %w", flag, t, b, a, ErrOptions)
			}
			s.number, s.lo, s.hi = true, lo, hi
		case strings.ContainsAny(t, `*?[\`):
			if _, err := path.Match(t, ""); err != nil {
				return nil, fmt.Errorf("%s %q: a malformed glob (path.Match syntax: * ? [a-z] and \\ to escape): %w", flag, t, ErrOptions)
			}
			s.glob = true
		default:
			s.single = true
		}
		out = append(out, s)
	}
	return out, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// colNumber parses a 1-based column number into a 0-based one; a number
// too large for an int is kept as the largest (out of any table's range).
func colNumber(flag, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		n = int(^uint(0) >> 1)
	}
	if n == 0 {
		return 0, fmt.Errorf("%s %s: columns are numbered from 1: %w", flag, s, ErrOptions)
	}
	return n - 1, nil
}

// table is what selection knows of a table: its number of columns and,
// unless it is a NumPy array, their names.
type table struct {
	n     int
	names []string // nil: no names (an .npz array)
	noun  string   // "the header", "the file", "X"
}

// mark sets in sel the columns a selector matches, and reports a selector
// that matches none.
func (tb table) mark(flag string, s selector, sel []bool) error {
	switch {
	case s.number:
		if s.hi >= tb.n {
			msg := fmt.Sprintf("%s %s: out of range: %s has %d columns", flag, s.text, tb.noun, tb.n)
			for j, h := range tb.names {
				if h == s.text {
					msg += fmt.Sprintf(" (column %d is named %q: select it by name with the glob %q)", j+1, h, `\`+h)
					break
				}
			}
			return fmt.Errorf("%s (%s): %w", msg, tb.list(""), ErrUnknownColumn)
		}
		for j := s.lo; j <= s.hi; j++ {
			sel[j] = true
		}
		return nil
	case tb.names == nil:
		return fmt.Errorf("%s %q: the columns of %s have no names: select them by number or range (1-%d): %w", flag, s.text, tb.noun, tb.n, ErrUnknownColumn)
	}
	found := false
	for j, h := range tb.names {
		ok := h == s.text
		if s.glob {
			ok, _ = path.Match(s.text, h)
		}
		if ok {
			sel[j], found = true, true
		}
	}
	if !found {
		what := "no column named"
		if s.glob {
			what = "no column matches"
		}
		want := s.text
		if s.glob {
			want = ""
		}
		return fmt.Errorf("%s %q: %s it in %s (%s): %w", flag, s.text, what, tb.noun, tb.list(want), ErrUnknownColumn)
	}
	return nil
}

// selectAll returns the columns the selectors of a flag match.
func (tb table) selectAll(flag string, items []string) ([]bool, []selector, error) {
	sels, err := parseSelectors(flag, items)
	if err != nil {
		return nil, nil, err
	}
	sel := make([]bool, tb.n)
	for _, s := range sels {
		if err := tb.mark(flag, s, sel); err != nil {
			return nil, nil, err
		}
	}
	return sel, sels, nil
}

// maxListed bounds the columns an error lists.
const maxListed = 30

// list names the columns for an error message: "columns: "a", "b", …" with
// the one closest to want (a misspelt name; "" for none) first, as "did you
// mean "x"?", when it is close.
func (tb table) list(want string) string {
	if tb.names == nil {
		return fmt.Sprintf("columns 1-%d", tb.n)
	}
	var b strings.Builder
	if want != "" {
		best, bestD := -1, 0
		for j, h := range tb.names {
			if h == "" || len(h) > 2*len(want)+8 {
				continue
			}
			if d := editDistance(strings.ToLower(want), strings.ToLower(h)); best < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		if best >= 0 && bestD <= len(want)/2 {
			fmt.Fprintf(&b, "did you mean %q (column %d)? ", tb.names[best], best+1)
		}
	}
	b.WriteString("columns: ")
	for j, h := range tb.names {
		if j == maxListed {
			fmt.Fprintf(&b, ", … (%d more)", len(tb.names)-maxListed)
			break
		}
		if j > 0 {
			b.WriteString(", ")
		}
		if h == "" {
			fmt.Fprintf(&b, "column %d (no name)", j+1)
		} else {
			b.WriteString(strconv.Quote(clip(h)))
		}
	}
	return b.String()
}

// editDistance is the optimal string alignment distance between a and b, by
// bytes: the fewest insertions, deletions, substitutions and swaps of two
// adjacent bytes ("lable" is 1 from "label"). O(len(a) × len(b)) time,
// O(len(b)) memory.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1) // row i-2
	prev := make([]int, len(b)+1)  // row i-1
	row := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(prev[j]+1, row[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				row[j] = min(row[j], prev2[j-2]+1)
			}
		}
		prev2, prev, row = prev, row, prev2
	}
	return prev[len(b)]
}

// chooseColumns gives every column of a table its role — a label (its index
// among labels), the query column, a feature or ignored — and returns the
// roles and the feature columns in the order of the features: file order,
// or c.Names' or c.Positions' order. Labels and qid name columns of the
// table (a table without names has none). The columns --ignore drops are
// no label or query column either. Every feature column must have a name,
// and no two columns read (features, labels, query) may share one.
// Errors wrap ErrUnknownColumn (a column not found, out of range, ambiguous
// or unnamed), ErrOptions (a malformed selector, a column given two roles)
// or ErrEmpty (no feature column).
func chooseColumns(tb table, labels []string, qid string, c Columns) ([]int, []int, error) {
	roles := make([]int, tb.n)
	for j := range roles {
		roles[j] = roleFeature
	}
	ignored := make([]bool, tb.n)
	if len(c.Ignore) > 0 {
		var err error
		if ignored, _, err = tb.selectAll("--ignore", c.Ignore); err != nil {
			return nil, nil, err
		}
	}
	find := func(col, what string) (int, error) {
		at, dropped := -1, -1
		for j, h := range tb.names {
			if h != col {
				continue
			}
			if ignored[j] {
				dropped = j
				continue
			}
			if at >= 0 {
				return 0, fmt.Errorf("%s column %q appears more than once in %s (columns %d and %d): %w", what, col, tb.noun, at+1, j+1, ErrUnknownColumn)
			}
			at = j
		}
		switch {
		case at < 0 && dropped >= 0:
			return 0, fmt.Errorf("%s column %q (column %d) is dropped by --ignore: %w", what, col, dropped+1, ErrUnknownColumn)
		case at < 0:
			return 0, fmt.Errorf("%s column %q not in %s (%s): %w", what, col, tb.noun, tb.list(col), ErrUnknownColumn)
		case roles[at] != roleFeature:
			return 0, fmt.Errorf("column %q used twice as label or query column: %w", col, ErrOptions)
		}
		return at, nil
	}
	for k, l := range labels {
		j, err := find(l, "label")
		if err != nil {
			return nil, nil, err
		}
		roles[j] = k
	}
	if qid != "" {
		j, err := find(qid, "qid")
		if err != nil {
			return nil, nil, err
		}
		roles[j] = roleQid
	}
	roleName := func(j int) string {
		if roles[j] == roleQid {
			return "the --qid column"
		}
		return "a --label column"
	}

	// The columns the flags select, in file order.
	var flagged []int
	if len(c.Features) > 0 || len(c.Ignore) > 0 || (c.Names == nil && c.Positions == nil) {
		chosen := make([]bool, tb.n)
		for j := range chosen {
			chosen[j] = true
		}
		if len(c.Features) > 0 {
			sel, sels, err := tb.selectAll("--features", c.Features)
			if err != nil {
				return nil, nil, err
			}
			for _, s := range sels {
				if !s.single {
					continue
				}
				for j := range sel {
					if (s.number && j == s.lo || !s.number && tb.names[j] == s.text) && roles[j] != roleFeature {
						return nil, nil, fmt.Errorf("--features %s: column %d (%q) is %s, never a feature: %w", s.text, j+1, tb.name(j), roleName(j), ErrOptions)
					}
				}
			}
			chosen = sel
		}
		for j := range chosen {
			if chosen[j] && !ignored[j] && roles[j] == roleFeature {
				flagged = append(flagged, j)
			}
		}
	}

	feats := flagged
	switch {
	case c.Names != nil:
		if tb.names == nil {
			return nil, nil, fmt.Errorf("the feature columns are named (%s), but the columns of %s have no names: %w", strings.Join(c.Names, ", "), tb.noun, ErrUnknownColumn)
		}
		feats = make([]int, len(c.Names))
		for k, want := range c.Names {
			at, dropped := -1, -1
			for j, h := range tb.names {
				if h != want {
					continue
				}
				if ignored[j] {
					dropped = j
					continue
				}
				if roles[j] != roleFeature {
					return nil, nil, fmt.Errorf("feature column %q of the model is %s here (column %d): %w", want, roleName(j), j+1, ErrUnknownColumn)
				}
				if at >= 0 {
					return nil, nil, fmt.Errorf("feature column %q of the model appears more than once in %s (columns %d and %d): drop one with --ignore %d: %w", want, tb.noun, at+1, j+1, j+1, ErrUnknownColumn)
				}
				at = j
			}
			if at < 0 && dropped >= 0 {
				return nil, nil, fmt.Errorf("feature column %q of the model (column %d) is dropped by --ignore (the model records its columns: the flags may be left out): %w", want, dropped+1, ErrUnknownColumn)
			}
			if at < 0 {
				return nil, nil, fmt.Errorf("feature column %q of the model not in %s (%s): %w", want, tb.noun, tb.list(want), ErrUnknownColumn)
			}
			feats[k] = at
		}
	case c.Positions != nil:
		if tb.names != nil {
			return nil, nil, fmt.Errorf("the feature columns are numbered (%s of an unnamed array), not named: give NumPy data: %w", columnNumbers(c.Positions), ErrUnknownColumn)
		}
		for _, j := range c.Positions {
			if j < 0 || j >= tb.n {
				return nil, nil, fmt.Errorf("feature columns %s: %s has %d columns: %w", columnNumbers(c.Positions), tb.noun, tb.n, ErrUnknownColumn)
			}
		}
		feats = c.Positions
	}
	if (c.Names != nil || c.Positions != nil) && (len(c.Features) > 0 || len(c.Ignore) > 0) && !sameSet(flagged, feats) {
		return nil, nil, fmt.Errorf("--features/--ignore select %s, the model was trained on %s (the model records its columns: the flags may be left out): %w",
			tb.describe(flagged), tb.describe(feats), ErrUnknownColumn)
	}
	if len(feats) == 0 {
		return nil, nil, fmt.Errorf("no feature columns: %w", ErrEmpty)
	}

	isFeat := make([]bool, tb.n)
	for _, j := range feats {
		isFeat[j] = true
	}
	for j := range roles {
		if roles[j] == roleFeature && !isFeat[j] {
			roles[j] = roleIgnored
		}
	}
	if tb.names == nil {
		return roles, feats, nil
	}
	// Every column read has a name, and no two share one.
	first := make(map[string]int, len(feats)+len(labels)+1)
	for j, h := range tb.names {
		if roles[j] == roleIgnored {
			continue
		}
		switch {
		case h == "" && j == 0:
			return nil, nil, fmt.Errorf("column 1 has no name: pandas writes its index there — write with index=False, or drop it with --ignore 1: %w", ErrIndexColumn)
		case h == "":
			return nil, nil, fmt.Errorf("column %d has no name: name it in the header, or drop it with --ignore %d: %w", j+1, j+1, ErrIndexColumn)
		case strings.HasPrefix(h, "__index_level_") && strings.HasSuffix(h, "__"):
			return nil, nil, fmt.Errorf("column %d %q is a pandas index — write with index=False, or drop it with --ignore %d: %w", j+1, h, j+1, ErrIndexColumn)
		}
		if at, dup := first[h]; dup {
			return nil, nil, fmt.Errorf("columns %d and %d are both named %q: rename one, or drop one with --ignore %d: %w", at+1, j+1, h, j+1, ErrUnknownColumn)
		}
		first[h] = j
	}
	return roles, feats, nil
}

// name returns column j's name, or its number for an array without names.
func (tb table) name(j int) string {
	if tb.names == nil {
		return strconv.Itoa(j + 1)
	}
	return tb.names[j]
}

// describe names a set of columns for an error: their names (or numbers),
// up to maxListed.
func (tb table) describe(cols []int) string {
	if len(cols) == 0 {
		return "no column"
	}
	if tb.names == nil {
		return "columns " + columnNumbers(cols)
	}
	var b strings.Builder
	for k, j := range cols {
		if k == maxListed {
			fmt.Fprintf(&b, ", … (%d more)", len(cols)-maxListed)
			break
		}
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(clip(tb.names[j])))
	}
	return b.String()
}

// columnNumbers writes 0-based columns as 1-based numbers and ranges:
// "2-4,7".
func columnNumbers(cols []int) string {
	var b strings.Builder
	for k := 0; k < len(cols); {
		e := k
		for e+1 < len(cols) && cols[e+1] == cols[e]+1 {
			e++
		}
		if k > 0 {
			b.WriteByte(',')
		}
		if b.Len() > 200 {
			b.WriteString("…")
			break
		}
		b.WriteString(strconv.Itoa(cols[k] + 1))
		if e > k {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cols[e] + 1))
		}
		k = e + 1
	}
	return b.String()
}

// sameSet reports whether a and b, lists of distinct columns, hold the same
// columns in any order.
func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	in := make(map[int]bool, len(a))
	for _, j := range a {
		in[j] = true
	}
	for _, j := range b {
		if !in[j] {
			return false
		}
	}
	return true
}

// SelectArrayColumns applies c — numbers and ranges only, or Positions — to
// a data set read from NumPy arrays (ReadNpyFiles; ReadNpz applies its
// options itself): X keeps the chosen columns, in place (no new matrix: the
// rows move down within X's array, so the memory of the dropped columns is
// not released while X lives), and d.FeatureColumns records them. name is
// used in error messages. A zero c leaves d as it is. O(m × d).
func SelectArrayColumns(d *Data, name string, c Columns) error {
	if c.IsZero() || d == nil || d.X == nil {
		return nil
	}
	x, ok := d.X.(*mat.Dense)
	if !ok {
		return fmt.Errorf("%w: %s: columns are chosen in dense arrays, not %T", ErrOptions, name, d.X)
	}
	_, n := x.Dims()
	_, feats, err := chooseColumns(table{n: n, noun: "the array X"}, nil, "", c)
	if err != nil {
		return &ParseError{File: name, Err: err}
	}
	d.X, d.FeatureColumns = keepColumns(x, feats), feats
	return nil
}

// keepColumns returns x with only the columns cols, in their order, moving
// the values within x's array (cols are distinct, so each row's values move
// to lower or equal offsets when cols increase; any other order goes through
// one row of scratch). O(m × n).
func keepColumns(x *mat.Dense, cols []int) *mat.Dense {
	m, n := x.Dims()
	if len(cols) == n {
		same := true
		for k, j := range cols {
			same = same && k == j
		}
		if same {
			return x
		}
	}
	raw := x.RawMatrix()
	nf := len(cols)
	out := raw.Data[:m*nf]
	row := make([]float64, nf)
	for i := 0; i < m; i++ {
		src := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for k, j := range cols {
			row[k] = src[j]
		}
		copy(out[i*nf:(i+1)*nf], row)
	}
	return mat.NewDense(m, nf, out)
}
