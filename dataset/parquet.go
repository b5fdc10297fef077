package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"gonum.org/v1/gonum/mat"
)

// Parquet files are decoded by github.com/parquet-go/parquet-go. Its decoder
// trusts the sizes the file declares (a footer length, Thrift string and list
// lengths, page sizes, numbers of children) and allocates them before
// reading, so ReadParquet first checks the footer, the schema and every page
// header against the bytes really present (checkParquet) and only then
// hands the file over; a panic inside the decoder is turned into an error.

// MaxParquetValuesPerByte bounds the values (rows × columns) a Parquet file
// may declare: at most this many per byte of file, or 2^24 values, whichever
// is more. Dictionary and run-length encodings reach a few values per byte
// on real data; a file declaring more is refused before anything is
// allocated.
const MaxParquetValuesPerByte = 128

// maxParquetFooter bounds the footer (numbers beyond it are not data sets).
const maxParquetFooter = 256 << 20

// pqColumn is a leaf column of a flat Parquet schema.
type pqColumn struct {
	name     string
	optional bool
	kind     format.Type
	scale    int // decimal scale (0 when not a decimal)
	text     bool
}

// pqChunkPages lists, per row group and column, the byte offsets of the data
// pages in order (for error messages).
type pqChunkPages [][][]int64

func pqErr(name string, at int64, format string, args ...any) *ParseError {
	return &ParseError{File: name, Byte: at, Err: fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrSyntax)}
}

// checkParquet reads and checks the footer, the schema and every page header
// of the file: every size within the file, a flat schema, the values
// declared bounded by MaxParquetValuesPerByte, and every page's uncompressed
// size within the decompression budget of lim. O(footer + pages).
func checkParquet(r io.ReaderAt, size int64, name string, lim limits) (*format.FileMetaData, []pqColumn, pqChunkPages, error) {
	if size < 12 {
		return nil, nil, nil, pqErr(name, 0, "%d bytes: too short for a Parquet file", size)
	}
	var head, tail [4]byte
	var foot [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, nil, nil, readErr(name, 0, err)
	}
	if _, err := r.ReadAt(foot[:], size-8); err != nil {
		return nil, nil, nil, readErr(name, 0, err)
	}
	copy(tail[:], foot[4:])
	switch {
	case string(head[:]) == "PARE" || string(tail[:]) == "PARE":
		return nil, nil, nil, pqErr(name, 0, "an encrypted Parquet file (not read)")
	case string(head[:]) != "PAR1":
		return nil, nil, nil, pqErr(name, 0, "not a Parquet file (it does not start with PAR1)")
	case string(tail[:]) != "PAR1":
		return nil, nil, nil, pqErr(name, size-4, "no PAR1 at the end of the file (a truncated file?)")
	}
	flen := int64(binary.LittleEndian.Uint32(foot[:4]))
	if flen > size-12 || flen > maxParquetFooter {
		return nil, nil, nil, pqErr(name, size-8, "the footer length %d exceeds the %d bytes before it (a truncated file?)", flen, size-12)
	}
	fstart := size - 8 - flen
	footer := make([]byte, flen)
	if _, err := r.ReadAt(footer, fstart); err != nil {
		return nil, nil, nil, readErr(name, 0, err)
	}
	n, err := checkThrift(footer, max(64<<20, 64*flen))
	if err != nil || int64(n) != flen {
		if err == nil {
			err = fmt.Errorf("%d bytes after the metadata", flen-int64(n))
		}
		return nil, nil, nil, pqErr(name, fstart, "corrupt footer: %v", err)
	}
	meta := &format.FileMetaData{}
	if err := thrift.Unmarshal(&thrift.CompactProtocol{}, footer, meta); err != nil {
		return nil, nil, nil, pqErr(name, fstart, "corrupt footer: %v", err)
	}

	// A flat schema: the root and its leaf columns.
	if len(meta.Schema) == 0 {
		return nil, nil, nil, pqErr(name, fstart, "no schema")
	}
	root := meta.Schema[0]
	k := int(root.NumChildren.V)
	if !root.NumChildren.Valid || k != len(meta.Schema)-1 {
		for _, e := range meta.Schema[1:] {
			if e.NumChildren.Valid && e.NumChildren.V > 0 {
				return nil, nil, nil, &ParseError{File: name, Err: fmt.Errorf("column %q is nested (a group): only flat tables of numeric columns are read: %w", e.Name, ErrSyntax)}
			}
		}
		return nil, nil, nil, pqErr(name, fstart, "the schema's root has %d children, the schema lists %d columns", root.NumChildren.V, len(meta.Schema)-1)
	}
	cols := make([]pqColumn, k)
	for j, e := range meta.Schema[1:] {
		if e.NumChildren.Valid && e.NumChildren.V > 0 || !e.Type.Valid {
			return nil, nil, nil, &ParseError{File: name, Err: fmt.Errorf("column %q is nested (a group): only flat tables of numeric columns are read: %w", e.Name, ErrSyntax)}
		}
		if e.RepetitionType.V == format.Repeated {
			return nil, nil, nil, &ParseError{File: name, Err: fmt.Errorf("column %q is repeated (a list): only flat tables of numeric columns are read: %w", e.Name, ErrSyntax)}
		}
		c := pqColumn{name: e.Name, optional: e.RepetitionType.V == format.Optional, kind: e.Type.V}
		if d, ok := e.LogicalType.Value.(*format.DecimalType); ok {
			c.scale = int(d.Scale)
		} else if e.ConvertedType.Valid && e.ConvertedType.V == deprecated.Decimal {
			c.scale = int(e.Scale.V)
		}
		switch c.kind {
		case format.Boolean, format.Int32, format.Int64, format.Float, format.Double:
			if c.scale < 0 || c.scale > 300 {
				return nil, nil, nil, pqErr(name, fstart, "column %q: decimal scale %d", c.name, c.scale)
			}
		default:
			c.text = true
		}
		cols[j] = c
	}

	// Row groups: counts within bounds, every chunk's bytes inside the file.
	var rows int64
	for g, rg := range meta.RowGroups {
		if rg.NumRows < 0 || rows > math.MaxInt64-rg.NumRows {
			return nil, nil, nil, pqErr(name, fstart, "row group %d declares %d rows", g, rg.NumRows)
		}
		rows += rg.NumRows
		if len(rg.Columns) != k {
			return nil, nil, nil, pqErr(name, fstart, "row group %d has %d column chunks for %d columns", g, len(rg.Columns), k)
		}
	}
	if rows != meta.NumRows {
		return nil, nil, nil, pqErr(name, fstart, "the row groups hold %d rows, the file declares %d", rows, meta.NumRows)
	}
	if limit := max(1<<24, MaxParquetValuesPerByte*size); k > 0 && rows > limit/int64(k) {
		return nil, nil, nil, pqErr(name, fstart, "%d rows × %d columns declared in %d bytes: more than %d values per byte (a corrupt file?)",
			rows, k, size, MaxParquetValuesPerByte)
	}
	pages := make(pqChunkPages, len(meta.RowGroups))
	for g, rg := range meta.RowGroups {
		pages[g] = make([][]int64, k)
		for j := range rg.Columns {
			offs, err := checkChunk(r, name, fstart, g, &rg.Columns[j], cols[j], rg.NumRows, lim)
			if err != nil {
				return nil, nil, nil, err
			}
			pages[g][j] = offs
		}
	}
	return meta, cols, pages, nil
}

// checkChunk checks a column chunk's place in the file and its page headers,
// and returns the byte offsets of its data pages.
func checkChunk(r io.ReaderAt, name string, end int64, g int, cc *format.ColumnChunk, col pqColumn, rows int64, lim limits) ([]int64, error) {
	md := &cc.MetaData
	where := fmt.Sprintf("row group %d, column %q", g, col.name)
	if cc.FilePath != "" {
		return nil, pqErr(name, 0, "%s: data in another file (%q)", where, cc.FilePath)
	}
	if md.Type != col.kind {
		return nil, pqErr(name, 0, "%s: chunk of type %v, the schema says %v", where, md.Type, col.kind)
	}
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	if start < 4 || md.TotalCompressedSize < 0 || start > end || md.TotalCompressedSize > end-start {
		return nil, pqErr(name, max(start, 0), "%s: its %d bytes at byte %d lie outside the data of the file", where, md.TotalCompressedSize, start)
	}
	var (
		pos    = start
		stop   = start + md.TotalCompressedSize
		values int64
		offs   []int64
		window = make([]byte, 0, 512)
	)
	for pos < stop {
		var (
			h   int
			err error
		)
		for w := int64(512); ; w *= 2 {
			w = min(w, stop-pos, 16<<20)
			window = slices.Grow(window[:0], int(w))[:w]
			if _, rerr := r.ReadAt(window, pos); rerr != nil && !errors.Is(rerr, io.EOF) {
				return nil, readErr(name, 0, rerr)
			}
			h, err = checkThrift(window, 1<<20)
			if !errors.Is(err, errThriftShort) || w == min(stop-pos, 16<<20) {
				break
			}
		}
		if err != nil {
			return nil, pqErr(name, pos, "%s: corrupt page header: %v", where, err)
		}
		var ph format.PageHeader
		if err := thrift.Unmarshal(&thrift.CompactProtocol{}, window[:h], &ph); err != nil {
			return nil, pqErr(name, pos, "%s: corrupt page header: %v", where, err)
		}
		cs, us := int64(ph.CompressedPageSize), int64(ph.UncompressedPageSize)
		if cs < 0 || cs > stop-pos-int64(h) {
			return nil, pqErr(name, pos, "%s: a page of %d bytes where %d remain in the chunk (a truncated file?)", where, cs, stop-pos-int64(h))
		}
		if us < 0 || us > 1100*cs+(1<<20) {
			return nil, pqErr(name, pos, "%s: a page of %d compressed bytes declares %d uncompressed", where, cs, us)
		}
		if lim.budget > 0 && us > lim.budget {
			return nil, &ParseError{File: name, Byte: pos, Err: lim.budgetError(
				fmt.Sprintf("%s: a page of %d compressed bytes declaring %d uncompressed", where, cs, us), us, 0)}
		}
		var nv int64 = -1
		switch {
		case ph.DataPageHeader.Valid:
			nv = int64(ph.DataPageHeader.V.NumValues)
		case ph.DataPageHeaderV2.Valid:
			nv = int64(ph.DataPageHeaderV2.V.NumValues)
		}
		if nv >= 0 {
			if nv > rows-values {
				return nil, pqErr(name, pos, "%s: a page of %d values after %d of the %d rows", where, nv, values, rows)
			}
			values += nv
			offs = append(offs, pos)
		}
		pos += int64(h) + cs
	}
	if values != rows {
		return nil, pqErr(name, start, "%s: the pages hold %d values for %d rows", where, values, rows)
	}
	return offs, nil
}

// ReadParquet reads a data set from a Parquet file in r, of size bytes; name
// is used in error messages. The file must be a flat table. As for CSV, the
// columns named in opt.Labels form Y (or those opt.LabelsFromHeader chooses
// from the column names), the opt.Qid column gives query ids (any type:
// text or numbers; the floats -0 and 0 are one query), and every other
// column is a feature, or those opt.Columns chooses (the column chunks of
// the others are not decoded; a column read must not be pandas' index,
// "__index_level_N__", and no two columns read may share a name); features and
// labels must be numeric (boolean, 32- and 64-bit integers — decimals scaled
// —, float and double). opt.Comma is ignored. Null, NaN and infinite values
// are errors naming the row and column.
//
// The footer, the schema and every page header are checked before the
// decoder (github.com/parquet-go/parquet-go) sees them: sizes within the
// file, at most MaxParquetValuesPerByte values per byte of file. Its pages
// are compressed and its values run-length or dictionary encoded, so the
// decompression budget (EnvMaxDecompressed) bounds each page's uncompressed
// size and the decoded table, 8 bytes (one float64) a value of a feature or
// label column and 16 a query id, before any is decoded. The pages of
// numeric feature and label columns are read from the decoder's typed
// arrays (pqTyped: no parquet.Value a value); pages with nulls, booleans and
// query ids value by value. Errors are
// *ParseError values naming the byte of a corrupt or truncated part, the row
// of a bad value, or the bound exceeded (ErrLimit). O(size) time; memory
// O(rows × columns).
func ReadParquet(r io.ReaderAt, size int64, name string, opt CSVOptions) (d *Data, err error) {
	name = inputName(name)
	if r == nil || size < 0 {
		return nil, fmt.Errorf("%w: %s: nil reader or negative size", ErrOptions, name)
	}
	lim, err := readLimits()
	if err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, &ParseError{File: name, Err: fmt.Errorf("corrupt Parquet data (the decoder failed: %v): %w", p, ErrSyntax)}
		}
	}()
	meta, cols, pageOffs, err := checkParquet(r, size, name, lim)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = c.name
	}
	labels := opt.Labels
	if len(labels) == 0 && opt.LabelsFromHeader != nil {
		labels = opt.LabelsFromHeader(slices.Clone(names))
	}
	roles, feats, err := chooseColumns(table{n: len(cols), names: names, noun: "the file"}, labels, opt.Qid, opt.Columns)
	if err != nil {
		return nil, &ParseError{File: name, Err: err}
	}
	if opt.ClassLabels && len(labels) > 1 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%w: class labels are one column, got %d label columns", ErrOptions, len(labels))}
	}
	textLabel := false // a text column of class labels, read as strings
	for j, c := range cols {
		if roles[j] >= 0 && c.text && opt.ClassLabels {
			textLabel = true
			continue
		}
		if roles[j] >= 0 && c.text {
			return nil, &ParseError{File: name, Err: fmt.Errorf("label column %q (%d) is not numeric (%v): class names need --one-vs-all, or --positive CLASS for two classes: %w", c.name, j+1, c.kind, ErrSyntax)}
		}
		if roles[j] == roleFeature && c.text {
			return nil, &ParseError{File: name, Err: fmt.Errorf("column %q (%d) is not numeric (%v): give it as --qid, or drop it with --ignore %d: %w", c.name, j+1, c.kind, j+1, ErrSyntax)}
		}
	}
	m := int(meta.NumRows)
	if m == 0 {
		return nil, &ParseError{File: name, Err: fmt.Errorf("no data rows: %w", ErrEmpty)}
	}
	perRow := int64(8 * (len(feats) + len(labels)))
	if opt.Qid != "" {
		perRow += 16 // a string
	}
	if textLabel {
		perRow += 16
	}
	if lim.budget > 0 && int64(m) > lim.budget/perRow {
		return nil, &ParseError{File: name, Err: lim.budgetError(
			fmt.Sprintf("%d rows × %d columns decoded", m, len(cols)), int64(m)*perRow, 0)}
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &ParseError{File: name, Err: fmt.Errorf("%v: %w", err, ErrSyntax)}
	}
	d = &Data{FeatureNames: make([]string, len(feats))}
	if !opt.Columns.IsZero() {
		d.FeatureColumns = slices.Clone(feats)
	}
	for k, j := range feats {
		d.FeatureNames[k] = names[j]
	}
	nf := len(feats)
	x := make([]float64, m*nf)
	var y []float64
	if len(labels) > 0 {
		y = make([]float64, m*len(labels))
		d.LabelNames = slices.Clone(labels)
	}
	pos := make([]int, len(cols)) // position among the features, or -1
	for j := range pos {
		pos[j] = -1
	}
	for k, j := range feats {
		pos[j] = k
	}
	var qids []string
	if opt.Qid != "" {
		qids = make([]string, m)
	}
	var ctoks []string // the class labels of a text label column
	if textLabel {
		ctoks = make([]string, m)
	}
	buf := make([]parquet.Value, 1024)
	var scratch []float64
	row0 := 0
	for g, rg := range f.RowGroups() {
		chunks := rg.ColumnChunks()
		for j, c := range cols {
			if roles[j] == roleIgnored {
				continue // not decoded
			}
			pages := chunks[j].Pages()
			row := row0
			for p := 0; ; p++ {
				page, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				at := int64(0)
				if p < len(pageOffs[g][j]) {
					at = pageOffs[g][j][p]
				}
				if err != nil {
					pages.Close()
					return nil, &ParseError{File: name, Row: row + 1, Byte: at, Err: fmt.Errorf("column %q: %v: %w", c.name, err, ErrSyntax)}
				}
				textCol := ctoks != nil && roles[j] >= 0
				if roles[j] != roleQid && !textCol && pqTypedPages {
					if vals, ok := pqTyped(page, c.kind, &scratch); ok {
						dst, stride, off := x, nf, pos[j]
						if roles[j] >= 0 {
							dst, stride, off = y, len(labels), roles[j]
						}
						room := row0 + int(rg.NumRows()) - row
						n := min(len(vals), room)
						if k, err := pqStore(vals[:n], c, dst, stride, off, row); err != nil {
							parquet.Release(page)
							pages.Close()
							return nil, &ParseError{File: name, Row: row + k + 1, Err: err}
						}
						parquet.Release(page)
						if len(vals) > room {
							pages.Close()
							return nil, &ParseError{File: name, Byte: at, Err: fmt.Errorf("column %q: more values than the %d rows of row group %d: %w", c.name, rg.NumRows(), g, ErrSyntax)}
						}
						row += n
						continue
					}
				}
				vr := page.Values()
				for {
					n, err := vr.ReadValues(buf)
					for _, v := range buf[:n] {
						if row >= row0+int(rg.NumRows()) {
							parquet.Release(page)
							pages.Close()
							return nil, &ParseError{File: name, Byte: at, Err: fmt.Errorf("column %q: more values than the %d rows of row group %d: %w", c.name, rg.NumRows(), g, ErrSyntax)}
						}
						if textCol {
							if v.IsNull() {
								parquet.Release(page)
								pages.Close()
								return nil, &ParseError{File: name, Row: row + 1, Err: fmt.Errorf("column %q: missing class label (null): %w", c.name, ErrClasses)}
							}
							ctoks[row] = pqText(v)
							row++
							continue
						}
						if err := pqValue(v, c, roles[j], row, x, y, qids, pos[j], nf, len(labels)); err != nil {
							parquet.Release(page)
							pages.Close()
							return nil, &ParseError{File: name, Row: row + 1, Err: err}
						}
						row++
					}
					if err == io.EOF {
						break
					}
					if err != nil {
						parquet.Release(page)
						pages.Close()
						return nil, &ParseError{File: name, Row: row + 1, Byte: at, Err: fmt.Errorf("column %q: %v: %w", c.name, err, ErrSyntax)}
					}
				}
				parquet.Release(page)
			}
			pages.Close()
			if row != row0+int(rg.NumRows()) {
				return nil, &ParseError{File: name, Row: row + 1, Err: fmt.Errorf("column %q: %d values for the %d rows of row group %d: %w", c.name, row-row0, rg.NumRows(), g, ErrSyntax)}
			}
		}
		row0 += int(rg.NumRows())
	}
	d.X = mat.NewDense(m, nf, x)
	if opt.ClassLabels && len(labels) == 1 {
		if err := pqClasses(d, ctoks, y, name, labels[0]); err != nil {
			return nil, err
		}
	}
	if y != nil {
		d.Y = mat.NewDense(m, len(labels), y)
	}
	if qids != nil {
		codes := map[string]int{}
		d.Queries = make([]int, m)
		for i, q := range qids {
			c, ok := codes[q]
			if !ok {
				c = len(d.QueryNames)
				codes[q] = c
				d.QueryNames = append(d.QueryNames, q)
			}
			d.Queries[i] = c
		}
	}
	return d, nil
}

// unsignedZero returns v, with -0 as 0: one query id.
func unsignedZero(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

// pqText returns a non-null value as text: a query id or a class label.
func pqText(v parquet.Value) string {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(unsignedZero(float64(v.Float())), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(unsignedZero(v.Double()), 'g', -1, 64)
	}
	return v.String()
}

// pqClasses codes the class labels of the one label column
// (CSVOptions.ClassLabels): the strings ctoks of a text column, or else the
// numbers in y, become Data.Classes and codes into them in y.
func pqClasses(d *Data, ctoks []string, y []float64, name, label string) error {
	if ctoks == nil {
		tokens, codes, err := ValueClasses(y)
		if err != nil {
			return &ParseError{File: name, Err: fmt.Errorf("label column %q: %w", label, err)}
		}
		copy(y, codes)
		d.Classes = tokens
		return nil
	}
	code := make(map[string]int)
	for i, t := range ctoks {
		if t == "" {
			return &ParseError{File: name, Row: i + 1, Err: fmt.Errorf("label column %q: empty class label: %w", label, ErrClasses)}
		}
		c, ok := code[t]
		if !ok {
			if len(d.Classes) == MaxClasses {
				return &ParseError{File: name, Row: i + 1, Err: fmt.Errorf("label column %q: more than %d distinct values (%s): %w", label, MaxClasses, continuousHint, ErrClasses)}
			}
			c = len(d.Classes)
			code[t] = c
			d.Classes = append(d.Classes, t)
		}
		y[i] = float64(c)
	}
	return nil
}

// pqValue stores one value of column c at row: a feature (position k), a
// label (role ≥ 0) or a query id.
func pqValue(v parquet.Value, c pqColumn, role, row int, x, y []float64, qids []string, k, nf, t int) error {
	if v.IsNull() {
		if role == -2 {
			return fmt.Errorf("column %q: missing query id (null): %w", c.name, ErrQid)
		}
		return fmt.Errorf("column %q: missing value (null): %w", c.name, ErrSyntax)
	}
	if role == -2 {
		s := pqText(v)
		if s == "" {
			return fmt.Errorf("column %q: empty query id: %w", c.name, ErrQid)
		}
		qids[row] = s
		return nil
	}
	var f float64
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			f = 1
		}
	case parquet.Int32:
		f = float64(v.Int32())
	case parquet.Int64:
		f = float64(v.Int64())
	case parquet.Float:
		f = float64(v.Float())
	case parquet.Double:
		f = v.Double()
	default:
		return fmt.Errorf("column %q: a %v value is not a number: %w", c.name, v.Kind(), ErrSyntax)
	}
	if c.scale > 0 {
		f /= math.Pow10(c.scale)
	}
	switch {
	case math.IsNaN(f):
		return fmt.Errorf("column %q: %w", c.name, errNaN)
	case math.IsInf(f, 0):
		return fmt.Errorf("column %q: %w", c.name, errInf)
	}
	if role >= 0 {
		y[row*t+role] = f
	} else {
		x[row*nf+k] = f
	}
	return nil
}

// pqTypedPages switches the typed path (pqTyped); tests turn it off to
// compare it with the value-by-value path.
var pqTypedPages = true

// pqTyped returns the values of a page of a numeric column as float64, read
// from the decoder's typed arrays (encoding.Values: []float64, []int32, …, or
// a dictionary's array and the page's int32 indexes into it) without a
// parquet.Value a value: false, with nothing read, for a page that is not
// one of those (booleans, nulls, an index outside the dictionary, an array
// of another length than the page's values), which the value-by-value path
// then reads and judges. buf is reused.
func pqTyped(page parquet.Page, kind format.Type, buf *[]float64) ([]float64, bool) {
	n := page.NumValues()
	if page.NumNulls() != 0 || n < 0 || n > math.MaxInt32 {
		return nil, false
	}
	data := page.Data()
	var idx []int32
	if dict := page.Dictionary(); dict != nil {
		if data.Kind() != encoding.Int32 {
			return nil, false
		}
		idx = data.Int32()
		data = dict.Page().Data()
		if int64(len(idx)) != n {
			return nil, false
		}
	}
	out := slices.Grow((*buf)[:0], int(n))[:n]
	*buf = out
	var ok bool
	switch {
	case kind == format.Double && data.Kind() == encoding.Double:
		ok = pqConvert(out, data.Double(), idx)
	case kind == format.Float && data.Kind() == encoding.Float:
		ok = pqConvert(out, data.Float(), idx)
	case kind == format.Int32 && data.Kind() == encoding.Int32:
		ok = pqConvert(out, data.Int32(), idx)
	case kind == format.Int64 && data.Kind() == encoding.Int64:
		ok = pqConvert(out, data.Int64(), idx)
	}
	return out, ok
}

// pqConvert sets out to src as float64 — src[idx[k]] for a dictionary page
// (idx not nil) — and reports whether src held them all.
func pqConvert[T int32 | int64 | float32 | float64](out []float64, src []T, idx []int32) bool {
	if idx == nil {
		if len(src) != len(out) {
			return false
		}
		for k, v := range src {
			out[k] = float64(v)
		}
		return true
	}
	for k, i := range idx {
		if uint32(i) >= uint32(len(src)) {
			return false
		}
		out[k] = float64(src[i])
	}
	return true
}

// pqStore stores the values of column c from row on — a feature or label
// column, every stride-th element of dst from off — as pqValue does (a
// decimal divided by 10^scale; NaN and infinities refused), and returns the
// index of the value refused and its error.
func pqStore(vals []float64, c pqColumn, dst []float64, stride, off, row int) (int, error) {
	div := 1.0
	if c.scale > 0 {
		div = math.Pow10(c.scale)
	}
	at := row*stride + off
	for k, f := range vals {
		if c.scale > 0 {
			f /= div
		}
		if f-f != 0 {
			e := errNaN
			if !math.IsNaN(f) {
				e = errInf
			}
			return k, fmt.Errorf("column %q: %w", c.name, e)
		}
		dst[at] = f
		at += stride
	}
	return 0, nil
}
