package dataset

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// NumPy arrays (.npy) and archives of them (.npz, as numpy.savez and
// numpy.savez_compressed write them) are read here. The header is parsed and
// checked first: its shape is bounded by the bytes the file really holds
// before anything is allocated, so a small file declaring a huge array costs
// nothing. Little-endian float64 data (numpy's default, '<f8') are read
// straight into the matrix's backing array on a little-endian machine — the
// file's bytes are the values, so reading them costs a copy from the file —
// and every other element type or byte order is converted a piece at a
// time (decodeNpy; github.com/sbinet/npyio is the tests' oracle for it).

// maxNpyHeader bounds a .npy header (numpy itself refuses headers over 10000
// bytes unless told otherwise).
const maxNpyHeader = 1 << 20

// npyArray is a parsed .npy header.
type npyArray struct {
	descr   string // normalized: "<f8", "|u1", ">i4", …
	size    int    // bytes per element
	fortran bool
	shape   []int
	rows    int // shape[0], or 1 for a 0-d array
	cols    int // shape[1], or 1
	start   int64
}

// npyTypes lists the element types read, by their numpy kind and size.
var npyTypes = map[string]bool{"b1": true, "u1": true, "u2": true, "u4": true, "u8": true,
	"i1": true, "i2": true, "i4": true, "i8": true, "f4": true, "f8": true}

// npyErr is a *ParseError at a byte of a NumPy file.
func npyErr(name string, at int64, format string, args ...any) *ParseError {
	return &ParseError{File: name, Byte: at, Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrSyntax)}
}

// npyReadErr returns the error of a failed read of a NumPy file, or nil when
// the input simply ended (io.EOF, io.ErrUnexpectedEOF): a decompression
// error names its compressed byte.
func npyReadErr(name string, err error) error {
	var (
		gz  *GzipError
		lim *LimitError
	)
	switch {
	case errors.As(err, &lim):
		binary := *lim // a binary file has no lines
		binary.Line = 0
		return &ParseError{File: name, Err: &binary}
	case errors.As(err, &gz):
		return &ParseError{File: name, Byte: gz.Offset, Err: fmt.Errorf("read: %w", err)}
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil
	}
	return readErr(name, 0, err)
}

// readNpyHeader reads and checks a .npy header from r; size is the bytes r
// holds (-1 when unknown).
func readNpyHeader(r io.Reader, name string, size int64) (*npyArray, error) {
	var pre [10]byte
	n, err := io.ReadFull(r, pre[:8])
	if err != nil || string(pre[:6]) != "\x93NUMPY" {
		if e := npyReadErr(name, err); e != nil {
			return nil, e
		}
		return nil, npyErr(name, 0, "not a NumPy .npy file (it does not start with \\x93NUMPY; %d bytes read)", n)
	}
	major := pre[6]
	var hlen, start int64
	switch major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			if e := npyReadErr(name, err); e != nil {
				return nil, e
			}
			return nil, npyErr(name, 8, "the header length is cut off (a truncated file)")
		}
		hlen, start = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			if e := npyReadErr(name, err); e != nil {
				return nil, e
			}
			return nil, npyErr(name, 8, "the header length is cut off (a truncated file)")
		}
		hlen, start = int64(binary.LittleEndian.Uint32(l[:])), 12
	default:
		return nil, npyErr(name, 6, "format version %d.%d (this reader knows 1, 2 and 3)", major, pre[7])
	}
	if hlen > maxNpyHeader || (size >= 0 && start+hlen > size) {
		return nil, npyErr(name, start-4, "the header declares %d bytes, the file holds %d after the header length", hlen, max(size-start, 0))
	}
	hdr := make([]byte, hlen)
	if k, err := io.ReadFull(r, hdr); err != nil {
		if e := npyReadErr(name, err); e != nil {
			return nil, e
		}
		return nil, npyErr(name, start+int64(k), "the header is cut off after %d of %d bytes (a truncated file)", k, hlen)
	}
	a, err := parseNpyDict(string(hdr))
	if err != nil {
		return nil, npyErr(name, start, "header %q: %v", clip(strings.TrimSpace(string(hdr))), err)
	}
	a.start = start + hlen
	return a, nil
}

// parseNpyDict parses the header dictionary, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseNpyDict(s string) (*npyArray, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, errors.New("not a dictionary")
	}
	s = strings.TrimSpace(s[1 : len(s)-1])
	a := &npyArray{}
	seen := map[string]bool{}
	for s != "" {
		key, rest, ok := pyString(s)
		if !ok {
			return nil, errors.New("a key is not a quoted string")
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return nil, fmt.Errorf("no ':' after %q", key)
		}
		rest = strings.TrimSpace(rest[1:])
		if seen[key] {
			return nil, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			d, r, ok := pyString(rest)
			if !ok {
				return nil, errors.New("descr is not a string (structured arrays are not read)")
			}
			if err := a.setDescr(d); err != nil {
				return nil, err
			}
			rest = r
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "False"):
				rest = rest[len("False"):]
			case strings.HasPrefix(rest, "True"):
				a.fortran, rest = true, rest[len("True"):]
			default:
				return nil, errors.New("fortran_order is not True or False")
			}
		case "shape":
			k := strings.IndexByte(rest, ')')
			if !strings.HasPrefix(rest, "(") || k < 0 {
				return nil, errors.New("shape is not a tuple")
			}
			for _, f := range strings.Split(rest[1:k], ",") {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				v, err := strconv.Atoi(strings.TrimSuffix(f, "L"))
				if err != nil || v < 0 {
					return nil, fmt.Errorf("shape entry %q is not a size", f)
				}
				a.shape = append(a.shape, v)
			}
			rest = rest[k+1:]
		default:
			return nil, fmt.Errorf("unknown key %q", key)
		}
		rest = strings.TrimSpace(rest)
		if strings.HasPrefix(rest, ",") {
			rest = strings.TrimSpace(rest[1:])
		} else if rest != "" {
			return nil, errors.New("no ',' between entries")
		}
		s = rest
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return nil, errors.New("descr, fortran_order or shape missing")
	}
	switch len(a.shape) {
	case 0:
		a.rows, a.cols = 1, 1
	case 1:
		a.rows, a.cols = a.shape[0], 1
	case 2:
		a.rows, a.cols = a.shape[0], a.shape[1]
	default:
		return nil, fmt.Errorf("a %d-dimensional array (want 1 or 2 dimensions)", len(a.shape))
	}
	return a, nil
}

// setDescr checks a dtype string and normalizes its byte order mark.
func (a *npyArray) setDescr(d string) error {
	if len(d) < 3 || !strings.ContainsRune("<>|=", rune(d[0])) || !npyTypes[d[1:]] {
		return fmt.Errorf("dtype %q: want bool, integers or floats (b1, i1–i8, u1–u8, f4, f8)", d)
	}
	a.size = int(d[len(d)-1] - '0')
	order := d[0]
	switch {
	case a.size == 1:
		order = '|'
	case order == '=' || order == '|':
		order = '<' // numpy writes native order as '<' on every machine it runs on
	}
	a.descr = string(order) + d[1:]
	return nil
}

// pyString reads a Python string literal in single or double quotes.
func pyString(s string) (string, string, bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	k := strings.IndexByte(s[1:], s[0])
	if k < 0 {
		return "", s, false
	}
	return s[1 : k+1], s[k+2:], true
}

// dataBytes returns the bytes of the array's data, or an error on overflow.
func (a *npyArray) dataBytes() (int64, bool) {
	n := int64(a.size)
	for _, d := range []int{a.rows, a.cols} {
		if d != 0 && n > math.MaxInt64/int64(d) {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

// npyBudget is the decompression budget that compressed NumPy data draw on
// (a gzip .npy, the deflated entries of one .npz together), charged 8 bytes
// (one float64) an element before the data are read; nil for plain input.
type npyBudget struct {
	lim  limits
	used int64
}

// charge takes the array's decoded size from the budget, or returns the
// *ParseError of an array that would exceed it.
func (b *npyBudget) charge(name string, a *npyArray) error {
	if b == nil || b.lim.budget <= 0 {
		return nil
	}
	n, ok := a.dataBytes()
	if ok && a.size < 8 {
		if n > math.MaxInt64/8 {
			ok = false
		} else {
			n = n / int64(a.size) * 8
		}
	}
	if !ok || n > b.lim.budget-b.used {
		if !ok {
			n = math.MaxInt64
		}
		what := fmt.Sprintf("the array (shape %v of %s) decoded to float64", a.shape, a.descr)
		if b.used > 0 {
			what = fmt.Sprintf("the array (shape %v of %s) decoded to float64, after %d bytes of the arrays before,", a.shape, a.descr, b.used)
		}
		return &ParseError{File: name, Err: b.lim.budgetError(what, n, 0)}
	}
	b.used += n
	return nil
}

// npyPiece is the bytes of data decoded at a time.
const npyPiece = 4 << 20

// readNpyPieces reads the array's data from r (positioned just after the
// header) in pieces of whole elements, in file order: into(n) returns where
// the next n bytes go, and fn is called on them once read. With size ≥ 0
// (the bytes r holds, header included) the declared shape is checked against
// it first; with size < 0 (a stream) against the budget, and memory then
// follows the bytes that really arrive.
func readNpyPieces(r io.Reader, name string, size int64, a *npyArray, bud *npyBudget, into func(n int) []byte, fn func(piece []byte) error) error {
	want, ok := a.dataBytes()
	if !ok || (size >= 0 && want > size-a.start) {
		return npyErr(name, a.start, "shape %v of %s declares %s bytes of data, the file holds %d after the header (a truncated file?)",
			a.shape, a.descr, bigCount(want, ok), max(size-a.start, 0))
	}
	if size >= 0 && want < size-a.start {
		return npyErr(name, a.start+want, "%d bytes after the data of shape %v", size-a.start-want, a.shape)
	}
	if err := bud.charge(name, a); err != nil {
		return err
	}
	for got := int64(0); got < want; {
		step := min(want-got, npyPiece)
		buf := into(int(step))
		k, err := io.ReadFull(r, buf)
		got += int64(k)
		if err != nil {
			if e := npyReadErr(name, err); e != nil {
				return e
			}
			return npyErr(name, a.start+got, "the data end after %d of %d bytes (a truncated file)", got, want)
		}
		if fn == nil {
			continue
		}
		if err := fn(buf); err != nil {
			if pe, ok := err.(*ParseError); ok {
				return pe
			}
			return npyErr(name, a.start+got-step, "%v", err)
		}
	}
	if size < 0 {
		var one [1]byte
		if k, _ := io.ReadFull(r, one[:]); k > 0 {
			return npyErr(name, a.start+want, "bytes after the data of shape %v", a.shape)
		}
	}
	return nil
}

// nativeLittle reports whether this machine stores numbers little-endian,
// as '<f8' data are.
var nativeLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// readNpyData reads the array's data from r (positioned just after the
// header) into a rows×cols matrix: '<f8' data on a little-endian machine
// straight into the matrix's backing array (no conversion, no other buffer),
// any other type a piece at a time through decodeNpy. Then one pass checks
// that every value is finite, and an array in Fortran order (column-major)
// is transposed into row-major order. Memory: 8 bytes an element (16 for a
// 2-D array in Fortran order), plus a piece of 4 MiB for converted types.
// See readNpyPieces for the checks before anything is read.
func readNpyData(r io.Reader, name string, size int64, a *npyArray, bud *npyBudget) (*mat.Dense, error) {
	m, c := a.rows, a.cols
	var vals []float64
	grow := func(k int) []float64 { // the next k values, appended
		if vals == nil && size >= 0 {
			vals = make([]float64, 0, m*c) // checked: the file holds them
		}
		vals = slices.Grow(vals, k)
		vals = vals[:len(vals)+k]
		return vals[len(vals)-k:]
	}
	var err error
	if a.descr == "<f8" && nativeLittle {
		err = readNpyPieces(r, name, size, a, bud, func(n int) []byte {
			tail := grow(n / 8)
			return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(tail))), n)
		}, nil)
	} else {
		var buf []byte
		err = readNpyPieces(r, name, size, a, bud, func(n int) []byte {
			if cap(buf) < n {
				buf = make([]byte, n)
			}
			return buf[:n]
		}, func(piece []byte) error {
			decodeNpy(piece, a, grow(len(piece)/a.size))
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	vals = vals[:m*c]
	for k, v := range vals {
		if v-v == 0 { // finite: NaN − NaN and ∞ − ∞ are NaN
			continue
		}
		i, j := k/c, k%c
		if a.fortran {
			i, j = k%m, k/m
		}
		e := errNaN
		if !math.IsNaN(v) {
			e = errInf
		}
		return nil, &ParseError{File: name, Row: i + 1, Byte: a.start + int64(k*a.size),
			Err: fmt.Errorf("column %d: %w", j+1, e)}
	}
	if m == 0 || c == 0 {
		return &mat.Dense{}, nil
	}
	if a.fortran && m > 1 && c > 1 {
		out := make([]float64, len(vals))
		for j := 0; j < c; j++ {
			for i, v := range vals[j*m : (j+1)*m] {
				out[i*c+j] = v
			}
		}
		vals = out
	}
	return mat.NewDense(m, c, vals), nil
}

func bigCount(n int64, ok bool) string {
	if !ok {
		return "more than 2^63"
	}
	return strconv.FormatInt(n, 10)
}

// npyOrder returns the byte order of a's elements.
func npyOrder(a *npyArray) binary.ByteOrder {
	if a.descr[0] == '>' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// decodeNpy converts the elements of data, of a's type, to float64 in out
// (len(out) = len(data)/a.size): floats and integers by value (an integer
// beyond 2⁵³ rounded to the nearest float64, as numpy's astype(float)
// does), a bool as 0 or 1 (any byte other than 0 is true, as in numpy).
func decodeNpy(data []byte, a *npyArray, out []float64) {
	bo := npyOrder(a)
	switch a.descr[1:] {
	case "f8":
		for k := range out {
			out[k] = math.Float64frombits(bo.Uint64(data[8*k:]))
		}
	case "f4":
		for k := range out {
			out[k] = float64(math.Float32frombits(bo.Uint32(data[4*k:])))
		}
	case "b1":
		for k := range out {
			out[k] = 0
			if data[k] != 0 {
				out[k] = 1
			}
		}
	case "u1", "u2", "u4", "u8":
		for k := range out {
			out[k] = float64(npyUint(data, k, a.size, bo))
		}
	default: // i1 … i8
		for k := range out {
			out[k] = float64(npyInt(data, k, a.size, bo))
		}
	}
}

// npyUint returns element k of data, an unsigned integer of size bytes.
func npyUint(data []byte, k, size int, bo binary.ByteOrder) uint64 {
	switch size {
	case 1:
		return uint64(data[k])
	case 2:
		return uint64(bo.Uint16(data[2*k:]))
	case 4:
		return uint64(bo.Uint32(data[4*k:]))
	}
	return bo.Uint64(data[8*k:])
}

// npyInt returns element k of data, a signed integer of size bytes.
func npyInt(data []byte, k, size int, bo binary.ByteOrder) int64 {
	switch size {
	case 1:
		return int64(int8(data[k]))
	case 2:
		return int64(int16(bo.Uint16(data[2*k:])))
	case 4:
		return int64(int32(bo.Uint32(data[4*k:])))
	}
	return int64(bo.Uint64(data[8*k:]))
}

// ReadNpy reads one NumPy array (.npy, format versions 1–3) from r: a 1-D
// array of m values as an m×1 matrix, a 2-D array as an m×n matrix (C or
// Fortran order), of bool, signed or unsigned integers of 1–8 bytes, float32
// or float64 elements; name is used in error messages. size is the number of
// bytes r holds (a file's size), or -1 when unknown (a stream): a known size
// bounds the declared shape before anything is allocated, and otherwise the
// data are read in pieces, so that memory follows the bytes present, never
// the header's claim. gzip-compressed input is decompressed (size is then
// ignored), and its declared shape, at 8 bytes (one float64) an element, is
// checked against the decompression budget (EnvMaxDecompressed) before
// anything is read. Little-endian float64 data ('<f8') in C order are read
// straight into the matrix (the cost of a copy from the file); other types,
// byte orders and Fortran order are converted. Memory: 8 bytes an element
// (16 for a 2-D array in Fortran order), plus a piece of 4 MiB for a type
// other than '<f8'. Errors are *ParseError values naming
// the byte (a bad header, a truncated file, trailing bytes), the row and
// column of a NaN or infinite value, or the bound exceeded (ErrLimit).
func ReadNpy(r io.Reader, name string, size int64) (*mat.Dense, error) {
	name = inputName(name)
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil reader", ErrOptions, name)
	}
	x, _, err := readNpyStream(r, name, size)
	return x, err
}

// readNpyStream reads one .npy array from r, of size bytes (-1: unknown),
// decompressing gzip within the budget.
func readNpyStream(r io.Reader, name string, size int64) (*mat.Dense, *npyArray, error) {
	br, gz, err := openText(r)
	if err != nil {
		return nil, nil, readErr(name, 0, err)
	}
	var bud *npyBudget
	if gz != nil {
		size, bud = -1, &npyBudget{lim: gz.lim}
	}
	a, err := readNpyHeader(br, name, size)
	if err != nil {
		return nil, nil, err
	}
	x, err := readNpyData(br, name, size, a, bud)
	return x, a, err
}

// ReadNpz reads a data set from a NumPy .npz archive (numpy.savez or
// savez_compressed) in r, of size bytes; name is used in error messages.
// The features are the 2-D array named "X" (or "x"; else the only 2-D array
// not used otherwise), the labels the arrays named in opt.Labels — or, with
// none named, those opt.LabelsFromHeader chooses from the array names, or
// else the array "y" (or "Y") when there is one — each 1-D (one label) or
// 2-D (one label per column), and opt.Qid optionally names an integer array
// of query ids, read exactly (an int64 or uint64 id is never rounded through
// float64; a float id must be an integer, and -0 is 0). Every array must have
// one entry per row of X. opt.Columns chooses columns of X by number and
// range only (its columns have no names); X is read whole, and the columns
// chosen kept in place (SelectArrayColumns). An archive entry's size is checked against the
// bytes it takes in the archive (at most 1100 times, deflate's limit) and its
// shape against its size before anything is allocated; the arrays of
// deflated (compressed) entries, at 8 bytes (one float64) an element, are
// charged together to the decompression budget (EnvMaxDecompressed) before
// they are read. Errors name the file, the array and the byte within it, the
// row, or the bound exceeded (ErrLimit).
func ReadNpz(r io.ReaderAt, size int64, name string, opt CSVOptions) (*Data, error) {
	name = inputName(name)
	if r == nil || size < 0 {
		return nil, fmt.Errorf("%w: %s: nil reader or negative size", ErrOptions, name)
	}
	lim, err := readLimits()
	if err != nil {
		return nil, err
	}
	bud := &npyBudget{lim: lim}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("not a NumPy .npz archive (zip): %v: %w", err, ErrSyntax)}
	}
	entries := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := entries[key]; dup {
			return nil, &ParseError{File: name, Err: fmt.Errorf("array %q twice in the archive: %w", key, ErrSyntax)}
		}
		entries[key] = f
		names = append(names, key)
	}
	open := func(key string) (*npyArray, io.ReadCloser, string, error) {
		f := entries[key]
		ename := name + "[" + key + "]"
		limit := int64(f.CompressedSize64)
		if f.Method != zip.Store {
			limit = 1100*limit + 1024
		}
		if f.UncompressedSize64 > uint64(limit) || f.UncompressedSize64 > math.MaxInt64/2 {
			return nil, nil, ename, &ParseError{File: ename, Err: fmt.Errorf("the entry declares %d bytes, more than its %d compressed bytes can hold: %w",
				f.UncompressedSize64, f.CompressedSize64, ErrSyntax)}
		}
		rc, err := f.Open()
		if err != nil {
			return nil, nil, ename, &ParseError{File: ename, Err: fmt.Errorf("%v: %w", err, ErrSyntax)}
		}
		a, err := readNpyHeader(rc, ename, int64(f.UncompressedSize64))
		if err != nil {
			rc.Close()
			return nil, nil, ename, err
		}
		return a, rc, ename, nil
	}
	charged := func(key string) *npyBudget {
		if entries[key].Method == zip.Store {
			return nil // its bytes are the archive's
		}
		return bud
	}
	read := func(key string) (*mat.Dense, *npyArray, error) {
		a, rc, ename, err := open(key)
		if err != nil {
			return nil, nil, err
		}
		defer rc.Close()
		x, err := readNpyData(rc, ename, int64(entries[key].UncompressedSize64), a, charged(key))
		if err != nil {
			return nil, nil, err
		}
		return x, a, nil
	}
	readIDs := func(key string, m int) ([]string, error) {
		a, rc, ename, err := open(key)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		if err := sameRows(name, key, a, m); err != nil {
			return nil, err
		}
		if a.cols != 1 {
			return nil, &ParseError{File: ename, Err: fmt.Errorf("query ids of shape %v, want one per row: %w", a.shape, ErrQid)}
		}
		return readNpyIDs(rc, ename, int64(entries[key].UncompressedSize64), a, charged(key))
	}
	has := func(keys ...string) string {
		for _, k := range keys {
			if _, ok := entries[k]; ok {
				return k
			}
		}
		return ""
	}
	labels := opt.Labels
	if len(labels) == 0 && opt.LabelsFromHeader != nil {
		labels = opt.LabelsFromHeader(slices.Clone(names))
	}
	if len(labels) == 0 && opt.LabelsFromHeader == nil {
		if y := has("y", "Y"); y != "" {
			labels = []string{y}
		}
	}
	used := map[string]bool{}
	for _, l := range append(slices.Clone(labels), opt.Qid) {
		if l == "" {
			continue
		}
		if _, ok := entries[l]; !ok {
			return nil, &ParseError{File: name, Err: fmt.Errorf("no array %q in the archive (it holds %s): %w", l, strings.Join(names, ", "), ErrUnknownColumn)}
		}
		if used[l] {
			return nil, fmt.Errorf("%w: %s: array %q used twice as label or query array", ErrOptions, name, l)
		}
		used[l] = true
	}
	xKey := has("X", "x")
	if xKey == "" || used[xKey] {
		xKey = ""
		var cands []string
		for _, k := range names {
			if used[k] {
				continue
			}
			a, rc, _, err := open(k)
			if err != nil {
				return nil, err
			}
			rc.Close()
			if len(a.shape) == 2 {
				cands = append(cands, k)
			}
		}
		if len(cands) != 1 {
			return nil, &ParseError{File: name, Err: fmt.Errorf("no array X of features (2-D arrays: %q; arrays: %s): %w", cands, strings.Join(names, ", "), ErrUnknownColumn)}
		}
		xKey = cands[0]
	}
	x, xa, err := read(xKey)
	if err != nil {
		return nil, err
	}
	if len(xa.shape) != 2 {
		return nil, &ParseError{File: name + "[" + xKey + "]", Err: fmt.Errorf("the features are a %d-dimensional array, want 2 (rows × features): %w", len(xa.shape), ErrSyntax)}
	}
	m := xa.rows
	if m == 0 || xa.cols == 0 {
		return nil, &ParseError{File: name + "[" + xKey + "]", Err: fmt.Errorf("shape %v: no data: %w", xa.shape, ErrEmpty)}
	}
	d := &Data{X: x}
	if !opt.Columns.IsZero() {
		_, feats, err := chooseColumns(table{n: xa.cols, noun: "the array " + xKey}, nil, "", opt.Columns)
		if err != nil {
			return nil, &ParseError{File: name + "[" + xKey + "]", Err: err}
		}
		d.X, d.FeatureColumns = keepColumns(x, feats), feats
	}
	for _, l := range labels {
		y, ya, err := read(l)
		if err != nil {
			return nil, err
		}
		if err := sameRows(name, l, ya, m); err != nil {
			return nil, err
		}
		d.Y = appendCols(d.Y, y)
		if ya.cols == 1 && len(ya.shape) < 2 {
			d.LabelNames = append(d.LabelNames, l)
		} else {
			for j := 0; j < ya.cols; j++ {
				d.LabelNames = append(d.LabelNames, l+strconv.Itoa(j+1))
			}
		}
	}
	if opt.Qid != "" {
		ids, err := readIDs(opt.Qid, m)
		if err != nil {
			return nil, err
		}
		codes := map[string]int{}
		d.Queries = make([]int, m)
		for i, s := range ids {
			c, ok := codes[s]
			if !ok {
				c = len(d.QueryNames)
				codes[s] = c
				d.QueryNames = append(d.QueryNames, s)
			}
			d.Queries[i] = c
		}
	}
	return d, nil
}

// readNpyIDs reads an array of query ids (one column) as their exact decimal
// names: integers of any width as written (never rounded through float64),
// booleans as 0 and 1, floats when they are integers (-0 as 0; a fraction,
// NaN or infinity is ErrQid naming the row).
func readNpyIDs(r io.Reader, name string, size int64, a *npyArray, bud *npyBudget) ([]string, error) {
	var (
		ids []string
		buf []byte
		v   []float64
	)
	bo := npyOrder(a)
	err := readNpyPieces(r, name, size, a, bud, func(n int) []byte {
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		return buf[:n]
	}, func(piece []byte) error {
		n := len(piece) / a.size
		switch kind := a.descr[1]; kind {
		case 'i', 'u':
			for k := range n {
				if kind == 'i' {
					ids = append(ids, strconv.FormatInt(npyInt(piece, k, a.size, bo), 10))
				} else {
					ids = append(ids, strconv.FormatUint(npyUint(piece, k, a.size, bo), 10))
				}
			}
		default: // b1, f4, f8: exact as float64
			v = slices.Grow(v[:0], n)[:n]
			decodeNpy(piece, a, v)
			for _, x := range v {
				if x != math.Trunc(x) || math.IsInf(x, 0) {
					return &ParseError{File: name, Row: len(ids) + 1, Err: fmt.Errorf("query id %v is not an integer: %w", x, ErrQid)}
				}
				ids = append(ids, strconv.FormatFloat(unsignedZero(x), 'f', -1, 64))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// sameRows checks that a label or query array has m rows.
func sameRows(name, key string, a *npyArray, m int) error {
	if len(a.shape) == 0 || len(a.shape) > 2 || a.rows != m {
		return &ParseError{File: name + "[" + key + "]", Err: fmt.Errorf("shape %v, want %d rows like the features: %w", a.shape, m, ErrRagged)}
	}
	return nil
}

// appendCols returns [a b] (b when a is nil).
func appendCols(a, b *mat.Dense) *mat.Dense {
	if a == nil {
		return b
	}
	m, ca := a.Dims()
	_, cb := b.Dims()
	out := mat.NewDense(m, ca+cb, nil)
	out.Slice(0, m, 0, ca).(*mat.Dense).Copy(a)
	out.Slice(0, m, ca, ca+cb).(*mat.Dense).Copy(b)
	return out
}

// ReadNpyFiles reads a data set from a .npy file of features (2-D) and,
// unless yPath is "", a .npy file of labels (1-D, or 2-D for several
// outputs) with as many rows; either may be gzip-compressed. Label names are
// "label" (or "label1", "label2", … for several). See ReadNpy.
func ReadNpyFiles(xPath, yPath string) (*Data, error) {
	x, xa, err := readNpyFile(xPath)
	if err != nil {
		return nil, err
	}
	if len(xa.shape) != 2 {
		return nil, &ParseError{File: xPath, Err: fmt.Errorf("the features are a %d-dimensional array, want 2 (rows × features): %w", len(xa.shape), ErrSyntax)}
	}
	if xa.rows == 0 || xa.cols == 0 {
		return nil, &ParseError{File: xPath, Err: fmt.Errorf("shape %v: no data: %w", xa.shape, ErrEmpty)}
	}
	d := &Data{X: x}
	if yPath == "" {
		return d, nil
	}
	y, ya, err := readNpyFile(yPath)
	if err != nil {
		return nil, err
	}
	if len(ya.shape) == 0 || len(ya.shape) > 2 || ya.rows != xa.rows {
		return nil, &ParseError{File: yPath, Err: fmt.Errorf("labels of shape %v for %d rows of features (%s): %w", ya.shape, xa.rows, xPath, ErrRagged)}
	}
	d.Y, d.LabelNames = y, labelNames(ya.cols)
	return d, nil
}

// readNpyFile reads the .npy file at path, or standard input for "-".
func readNpyFile(path string) (*mat.Dense, *npyArray, error) {
	var (
		r    io.Reader = os.Stdin
		size int64     = -1
		name           = "<stdin>"
	)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, nil, err
		}
		r, size, name = f, st.Size(), path
	}
	return readNpyStream(r, name, size)
}
