// Package dataset reads and writes the files rlskit works with: labelled data
// sets in CSV, svmlight/libsvm, NumPy (.npy, .npz) and Parquet format,
// cross-validation fold files, row index files, and prediction files.
//
// The text readers stream their input line by line and accumulate values
// directly into the backing arrays of the returned matrices, so the file text
// is never held in memory. Every reader takes gzip-compressed input as well
// (detected by its first bytes, whatever the name) and decompresses it on
// the fly; a truncated or corrupt stream is an error on the line (text) or
// at the byte (NumPy) the data end in, wrapping a *GzipError. NumPy and
// Parquet files declare their sizes; they are checked against the bytes the
// file holds before anything is allocated. Reading is bounded (see
// EnvMaxLine and EnvMaxDecompressed): a text line or CSV record longer than
// 64 MiB, or compressed input expanding beyond a share of the memory the
// process may use, is an error (ErrLimit) naming the file, the line or
// entry, the limit and the environment variable that raises it — never an
// out-of-memory crash. Readers never panic on malformed input; every error they
// return is a *ParseError naming the file, line and, where it applies, the
// 1-based column (field) and offending token, and wraps one of the sentinel
// errors below so callers can test it with errors.Is.
//
// CSV files have a header row naming the columns, separated by commas,
// semicolons or tabs (detected from the header unless CSVOptions.Comma says).
// The columns named in CSVOptions.Labels become the label matrix Y (in the
// order given), an optional query column gives per-row query ids, and every
// other column is a feature. Parquet files are read the same way, by column
// name; NumPy archives by array name. A file that fails in one text format
// and looks like the other says so in its error ("looks like CSV").
//
// svmlight files have one row per line:
//
//	label [qid:Q] index:value index:value ... [# comment]
//
// Feature indices are strictly increasing within a line, 1-based (svmlight,
// libsvm) or 0-based (scikit-learn's dump_svmlight_file), as
// SVMLightOptions.Base says or decides from the file (AutoBase); they are
// stored as 0-based columns. A multi-output label is written as comma-separated
// numbers, e.g. "1.5,2,3"; all rows must then carry the same number of labels.
// Blank lines and comment-only lines are skipped. A sparse data set costs
// memory in proportion to its stored values, whatever its indices.
//
// Values are decimal numbers ("-1.5e3", ".5", "2."): the underscores and
// hexadecimal floats strconv.ParseFloat would take ("1_0", "0x1p-3") are
// syntax errors, and NaN, infinities and values beyond float64 are
// ErrNonFinite. A UTF-8 byte order mark before the first line is skipped.
//
// ReadCSV, ReadSVMLight and ReadChunks share one streaming parser per format,
// so a file is accepted or refused by the same rules, with the same error,
// whether it is read whole or in chunks of any size.
//
// Output files go through Outputs (and WriteFileAtomic, a set of one): the
// outputs of a command are checked before any work — writable, distinct, not
// an input — and committed together, each regular file replaced atomically,
// devices and FIFOs written in place, symbolic links followed; on an error or
// a signal no output changes and no temporary file is left.
package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// Data is a labelled data set.
type Data struct {
	// X holds the features, one row per example: a *mat.Dense for CSV files
	// (and svmlight files read with SVMLightOptions.Dense), otherwise a
	// *matrix.CSR.
	X mat.Matrix
	// Y holds the m×t labels (t >= 1), or is nil when the file has no labels
	// (a CSV file read without CSVOptions.Labels).
	Y *mat.Dense
	// LabelNames names the columns of Y: the CSV label columns, or ["label"]
	// for svmlight files ("label1", "label2", ... for multi-output svmlight
	// files). It is nil when Y is nil.
	LabelNames []string
	// FeatureNames holds the CSV header names of the feature columns, in
	// column order. It is nil for svmlight files.
	FeatureNames []string
	// FeatureColumns holds, when the feature columns were chosen (Columns),
	// the 0-based column of the file (CSV, Parquet) or of the array (NumPy)
	// that each feature column of X is; nil when every column not a label
	// or the query column is a feature, in order.
	FeatureColumns []int
	// Queries is nil, or holds for every row its query code 0..q-1, codes
	// assigned in order of first appearance.
	Queries []int
	// QueryNames holds the original query id strings, indexed by code.
	QueryNames []string
	// Classes, when the label column was read as class labels
	// (CSVOptions.ClassLabels), holds its distinct values as written, in
	// order of first appearance; Y's one column then holds each row's index
	// into Classes (LabelClasses sorts them into classes).
	Classes []string
	// ZeroBased reports that svmlight feature indices were read as 0-based
	// (SVMLightOptions.Base, decided on the file with AutoBase). A model
	// records it so that prediction data are read the same way.
	ZeroBased bool
}

// Rows returns the number of examples (rows) in d.
func (d *Data) Rows() int {
	switch {
	case d == nil:
		return 0
	case d.X != nil:
		r, _ := d.X.Dims()
		return r
	case d.Y != nil:
		r, _ := d.Y.Dims()
		return r
	default:
		return len(d.Queries)
	}
}

// Sentinel errors. Errors returned by this package wrap one of them, so they
// can be tested with errors.Is.
var (
	// ErrSyntax reports a malformed token or a value that is not a number.
	ErrSyntax = errors.New("dataset: syntax error")
	// ErrNonFinite reports a NaN or ±Inf value, or one overflowing float64.
	ErrNonFinite = errors.New("dataset: non-finite value")
	// ErrIndex reports an svmlight feature index that is <= 0, not strictly
	// increasing, duplicated, or above the given width.
	ErrIndex = errors.New("dataset: bad feature index")
	// ErrRagged reports a row with the wrong number of fields (CSV) or of
	// labels (svmlight multi-output).
	ErrRagged = errors.New("dataset: wrong number of fields")
	// ErrUnknownColumn reports a label, query or feature column (Columns)
	// not found, found more than once, out of range or without a name in the
	// header, or two columns read under one name.
	ErrUnknownColumn = errors.New("dataset: unknown column")
	// ErrIndexColumn reports a column without a name in the header, or one
	// pandas names as its index (__index_level_N__): pandas' to_csv and
	// to_parquet without index=False. Errors with it are ErrUnknownColumn too.
	ErrIndexColumn = fmt.Errorf("%w: an unnamed or index column", ErrUnknownColumn)
	// ErrQid reports query ids given on some rows only, or an empty query id.
	ErrQid = errors.New("dataset: inconsistent qid")
	// ErrEmpty reports an empty file, a file without data rows, or one
	// without folds or indices.
	ErrEmpty = errors.New("dataset: empty input")
	// ErrOutOfRange reports a fold or index file entry outside [0,m).
	ErrOutOfRange = errors.New("dataset: index out of range")
	// ErrDuplicate reports a row index given twice in a fold or index file.
	ErrDuplicate = errors.New("dataset: duplicate index")
	// ErrOptions reports invalid reader or writer arguments, or a malformed
	// RLSKIT_MAX_LINE or RLSKIT_MAX_DECOMPRESSED.
	ErrOptions = errors.New("dataset: invalid options")
)

// ParseError describes an error at a position in an input file. Its Error
// method gives, for example,
//
//	train.svm:17: column 3 (token "4:abc"): not a number: dataset: syntax error
type ParseError struct {
	File   string // name of the input, as given to the reader
	Line   int    // 1-based line number, 0 if not applicable
	Column int    // 1-based field number within the line, 0 if not applicable
	Token  string // the offending field (possibly shortened), if Column > 0
	// Row is the 1-based data row of a binary format (NumPy, Parquet), 0 if
	// not applicable.
	Row int
	// Byte is the 0-based byte offset in a binary file, 0 if not applicable.
	Byte int64
	Err  error // the underlying error; wraps one of the sentinel errors
}

// Error returns "file:line: column c (token "t"): message" for text formats
// and "file: row r: byte b: message" for binary ones, omitting the parts that
// do not apply.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Row > 0 {
		b.WriteString("row ")
		b.WriteString(strconv.Itoa(e.Row))
		b.WriteString(": ")
	}
	if e.Byte > 0 {
		b.WriteString("byte ")
		b.WriteString(strconv.FormatInt(e.Byte, 10))
		b.WriteString(": ")
	}
	switch {
	case e.Column > 0:
		b.WriteString("column ")
		b.WriteString(strconv.Itoa(e.Column))
		b.WriteString(" (token ")
		b.WriteString(strconv.Quote(e.Token))
		b.WriteString("): ")
	case e.Token != "":
		b.WriteString("token ")
		b.WriteString(strconv.Quote(e.Token))
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("unknown error")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// perr builds a *ParseError whose Err reads "message: sentinel".
func perr(file string, line, col int, tok string, sentinel error, format string, args ...any) *ParseError {
	return &ParseError{
		File:   file,
		Line:   line,
		Column: col,
		Token:  clip(tok),
		Err:    fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), sentinel),
	}
}

// readErr wraps an I/O error met while reading the given line. A
// decompression error names its own line: the one the compressed data end in;
// a bound reached names the line it was reached in, and is not a read error;
// an invalid option (a malformed limit variable) names no line.
func readErr(file string, line int, err error) *ParseError {
	var (
		gz  *GzipError
		lim *LimitError
	)
	switch {
	case errors.As(err, &lim):
		return &ParseError{File: file, Line: lim.Line, Err: err}
	case errors.Is(err, ErrOptions):
		return &ParseError{File: file, Err: err}
	case errors.As(err, &gz):
		line = gz.line()
	}
	return &ParseError{File: file, Line: line, Err: fmt.Errorf("read: %w", err)}
}

// clip returns a copy of s that does not share s's memory, shortened to a
// reasonable length for an error message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return strings.Clone(s)
	}
	k := max
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "..."
}

// inputName returns the name used for r in error messages.
func inputName(name string) string {
	if name == "" {
		return "<input>"
	}
	return name
}

var (
	errNotNumber = fmt.Errorf("not a number: %w", ErrSyntax)
	errEmptyVal  = fmt.Errorf("empty value: %w", ErrSyntax)
	errNaN       = fmt.Errorf("NaN not allowed: %w", ErrNonFinite)
	errInf       = fmt.Errorf("infinite value not allowed: %w", ErrNonFinite)
	errOverflow  = fmt.Errorf("value overflows float64: %w", ErrNonFinite)
)

// parseValue parses a finite float64 written in decimal: an optional sign,
// digits with an optional decimal point, and an optional exponent ("1",
// "-.5", "2.", "6.02e23"). strconv.ParseFloat alone would also take "1_0",
// "0x1p-3" and "Inf"; here underscores and hexadecimal are syntax errors
// (ErrSyntax) and NaN and infinities, spelled any way ParseFloat knows, are
// ErrNonFinite, as are decimals beyond the float64 range. The returned error
// carries a short message.
//
// Most values take a fast path (fastDecimal): at most 19 significant digits
// whose integer fits 2⁵³ and a power of ten within 10²² are exact float64s,
// and one IEEE multiplication or division of two exact values is correctly
// rounded (Clinger 1990), so the result is bit for bit strconv.ParseFloat's.
func parseValue(s string) (float64, error) {
	if v, ok := fastDecimal(s); ok {
		return v, nil
	}
	if s == "" {
		return 0, errEmptyVal
	}
	if !isDecimal(s) {
		w := strings.ToLower(strings.TrimLeft(s, "+-"))
		switch w {
		case "nan":
			return 0, errNaN
		case "inf", "infinity":
			return 0, errInf
		}
		return 0, errNotNumber
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange && math.IsInf(v, 0) {
			return 0, errOverflow
		}
		if !(errors.As(err, &ne) && ne.Err == strconv.ErrRange) {
			return 0, errNotNumber
		}
		// Underflow: ParseFloat returns the nearest value (0 or subnormal).
	}
	return v, nil
}

// pow10 holds the powers of ten float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDecimal parses s as [+-]digits[.digits][(e|E)[+-]digits] when the
// value is exact by Clinger's fast path: the digits, without the point, form
// an integer w < 2⁵³ (so at most 16 of them count, leading zeros aside) and
// the decimal exponent e has |e| ≤ 22; then w·10^e or w/10^(−e) is one
// correctly rounded operation on exact operands. Anything else (more digits,
// a larger exponent, a syntax the full parser must judge) returns false and
// is left to parseValue's general path. O(len(s)), no allocation.
func fastDecimal(s string) (float64, bool) {
	v, end, ok := scanDecimal(s, 0)
	return v, ok && end == len(s)
}

// scanDecimal is fastDecimal on the longest prefix of s[i:] that the decimal
// grammar can take: it returns the value, the index just past the number and
// whether Clinger's fast path applies to it. The readers parse a field in
// place with it and then check that a delimiter follows: the number is then
// the whole field, and the value is fastDecimal's (and so strconv's) bit for
// bit. A number whose exponent has no digits ("1e", "1e+") is refused, as
// fastDecimal refuses it. Each run of digits is one tight loop, its count
// checked after it (more than 18 significant digits could wrap w). O(end −
// i), no allocation. (Taking eight digits at a time with word arithmetic,
// as fast_float does, measured slower here on the short numbers of data
// files: one predictable branch a digit is cheap.)
func scanDecimal[T string | []byte](s T, i int) (float64, int, bool) {
	n := len(s)
	neg := false
	if i < n && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < n && s[i] == '0' { // leading zeros: not significant
		i++
	}
	var w uint64
	sig := i
	for ; i < n; i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		w = w*10 + uint64(c) // wraps beyond 19 digits: refused below
	}
	digits := i - sig // significant digits taken into w
	seen := i > start
	scale := 0 // digits after the point
	if i < n && s[i] == '.' {
		i++
		frac := i
		if w == 0 {
			for i < n && s[i] == '0' {
				i++
			}
		}
		sig = i
		for ; i < n; i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			w = w*10 + uint64(c)
		}
		digits += i - sig
		scale = i - frac
		seen = seen || scale > 0
	}
	if !seen || digits > 18 {
		return 0, i, false
	}
	e := 0
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < n && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i == n || s[i]-'0' > 9 {
			return 0, i, false
		}
		for ; i < n; i++ {
			c := s[i] - '0'
			if c > 9 {
				break
			}
			if e > 1000 {
				return 0, i, false
			}
			e = e*10 + int(c)
		}
		if eneg {
			e = -e
		}
	}
	if w >= 1<<53 {
		return 0, i, false
	}
	e -= scale
	f := float64(w)
	switch {
	case w == 0:
	case e >= 0 && e <= 22:
		f *= pow10[e]
	case e < 0 && e >= -22:
		f /= pow10[-e]
	default:
		return 0, i, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}

// isDecimal reports whether s is [+-]digits[.digits][(e|E)[+-]digits] with at
// least one digit in the mantissa ("5.", ".5" allowed).
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// Formats ReadFile reads.
var formats = []string{"csv", "svmlight", "npy", "npz", "parquet"}

// FormatOf returns the format a file name implies: "csv" for .csv and .tsv,
// "npy", "npz", "parquet" for .npy, .npz, .parquet and .pq, and "svmlight"
// for anything else (.svm, .txt, standard input); a trailing .gz is looked
// through (train.csv.gz is CSV). Case is ignored.
func FormatOf(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".gz" {
		ext = strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	}
	switch ext {
	case ".csv", ".tsv":
		return "csv"
	case ".npy":
		return "npy"
	case ".npz":
		return "npz"
	case ".parquet", ".pq":
		return "parquet"
	}
	return "svmlight"
}

// ReadFile reads a data set from the named file, or from standard input when
// path is "-". The format is "csv", "svmlight", "npy" (features only; see
// ReadNpyFiles for labels), "npz" (the CSV options name the label and query
// arrays), "parquet" (the CSV options name the label and query columns), or
// "" to choose by the file name (FormatOf). Any of them may be
// gzip-compressed (detected by content, whatever the name); a compressed npz
// or Parquet file, or one read from standard input, is held in memory whole,
// within the decompression budget (EnvMaxDecompressed). The options for the
// formats not used are ignored.
func ReadFile(path string, format string, csv CSVOptions, svm SVMLightOptions) (*Data, error) {
	format = strings.ToLower(format)
	if format == "" {
		format = FormatOf(path)
	}
	if !slices.Contains(formats, format) {
		return nil, fmt.Errorf("%w: unknown format %q (want %s)", ErrOptions, format, strings.Join(formats, ", "))
	}
	if format == "npy" {
		return ReadNpyFiles(path, "")
	}
	var (
		r    io.Reader
		name       = path
		size int64 = -1
		at   io.ReaderAt
	)
	if path == "-" {
		r, name = os.Stdin, "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		r, at, size = f, f, st.Size()
	}
	switch format {
	case "csv":
		return ReadCSV(r, name, csv)
	case "svmlight":
		return ReadSVMLight(r, name, svm)
	}
	return readRandomAccess(r, at, size, name, format, csv)
}

// readRandomAccess reads an npz or Parquet data set, which needs random
// access: a plain file (at, of size bytes) is read in place, anything else
// (gzip, standard input: at nil) from r in memory, a gzip stream within the
// decompression budget.
func readRandomAccess(r io.Reader, at io.ReaderAt, size int64, name, format string, csv CSVOptions) (*Data, error) {
	br, gz, err := openText(r)
	if err != nil {
		return nil, readErr(name, 0, err)
	}
	if gz != nil || at == nil {
		b, err := io.ReadAll(br)
		if err != nil {
			var lim *LimitError
			if errors.As(err, &lim) {
				binary := *lim // a binary file has no lines
				binary.Line, binary.What = 0, "the decompressed "+format+" file"
				err = &binary
			}
			return nil, readErr(name, 0, err)
		}
		at, size = bytes.NewReader(b), int64(len(b))
	}
	if format == "npz" {
		return ReadNpz(at, size, name, csv)
	}
	return ReadParquet(at, size, name, csv)
}
