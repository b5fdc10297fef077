package dataset

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// The typed path of the Parquet reader (pqTyped) reads what the
// value-by-value path reads, bit for bit, with the same errors: plain,
// dictionary, byte-stream-split and delta encodings of every numeric type,
// decimals, optional columns with and without nulls, NaN and infinities, in
// many row groups and pages.
func TestParquetTypedMatchesValues(t *testing.T) {
	type row struct {
		Y float64  `parquet:"y"`
		Q int32    `parquet:"q"`
		A float64  `parquet:"a,dict"`
		B float32  `parquet:"b"`
		C int32    `parquet:"c,dict"`
		D int64    `parquet:"d,decimal(3:18)"`
		E *float64 `parquet:"e,optional"`
		F float64  `parquet:"f,split"`
		G bool     `parquet:"g"`
		H int64    `parquet:"h,delta"`
		I float32  `parquet:"i,dict"`
	}
	rng := rand.New(rand.NewPCG(21, 22))
	typedUsed := 0
	for trial := range 200 {
		bad := []float64{0, 0, 0.001, 0.02}[rng.IntN(4)]
		n := 1 + rng.IntN(3000)
		rows := make([]row, n)
		val := func() float64 {
			switch {
			case rng.Float64() < bad:
				return []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)]
			case rng.IntN(4) == 0:
				return float64(rng.IntN(5)) // repeats: dictionaries stay small
			}
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		}
		for i := range rows {
			e := val()
			rows[i] = row{Y: val(), Q: int32(rng.IntN(7)), A: val(), B: float32(val()), C: int32(rng.IntN(9)) - 4,
				D: rng.Int64N(1<<40) - 1<<39, E: &e, F: val(), G: rng.IntN(2) == 0, H: rng.Int64() >> uint(rng.IntN(64)), I: float32(val())}
			if rng.Float64() < bad {
				rows[i].E = nil
			}
		}
		var b bytes.Buffer
		w := parquet.NewGenericWriter[row](&b, parquet.MaxRowsPerRowGroup(int64(1+rng.IntN(1500))),
			parquet.PageBufferSize(64+rng.IntN(4096)))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		opt := CSVOptions{Labels: []string{"y"}, Qid: "q"}
		if rng.IntN(2) == 0 {
			opt.Labels = []string{"e", "a"}
		}
		read := func() (*Data, error) {
			return ReadParquet(bytes.NewReader(b.Bytes()), int64(b.Len()), "f", opt)
		}
		pqTypedPages = false
		want, wantErr := read()
		pqTypedPages = true
		d, err := read()
		sameRead(t, fmt.Sprintf("trial %d (%d rows, bad %v)", trial, n, bad), d, err, want, wantErr)
		if wantErr == nil {
			typedUsed++
		}
	}
	if typedUsed < 50 {
		t.Fatalf("only %d of 200 files read without error", typedUsed)
	}
}

// pqTyped takes every page of a well-formed file of numeric columns —
// plain, dictionary and split encodings, optional without nulls — and
// leaves pages with nulls and boolean pages to the value-by-value path.
func TestParquetTypedPathTaken(t *testing.T) {
	type row struct {
		Y float64  `parquet:"y"`
		A float64  `parquet:"a,dict"`
		B float32  `parquet:"b,split"`
		C int64    `parquet:"c"`
		D *int32   `parquet:"d,optional"`
		G bool     `parquet:"g"`
		N *float64 `parquet:"n,optional"`
	}
	rows := make([]row, 5000)
	for i := range rows {
		d := int32(i)
		rows[i] = row{float64(i), float64(i % 7), float32(i) / 4, int64(i) << 20, &d, i%2 == 0, nil}
	}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b, parquet.PageBufferSize(1024))
	w.Write(rows)
	w.Close()
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []format.Type{format.Double, format.Double, format.Float, format.Int64, format.Int32, format.Boolean, format.Double}
	var buf []float64
	for _, rg := range f.RowGroups() {
		for j, chunk := range rg.ColumnChunks() {
			pages := chunk.Pages()
			row := 0
			for {
				page, err := pages.ReadPage()
				if err != nil {
					break
				}
				vals, ok := pqTyped(page, kinds[j], &buf)
				if want := j < 5; ok != want {
					t.Fatalf("column %d: typed %v, want %v", j, ok, want)
				}
				for k, v := range vals {
					if !ok {
						break
					}
					i := row + k
					if want := []float64{float64(i), float64(i % 7), float64(float32(i) / 4), float64(int64(i) << 20), float64(i)}[j]; v != want {
						t.Fatalf("column %d row %d: %v, want %v", j, i, v, want)
					}
				}
				row += int(page.NumValues())
				parquet.Release(page)
			}
			pages.Close()
			if row != len(rows) {
				t.Fatalf("column %d: %d rows", j, row)
			}
		}
	}
}

// dictPage is a dictionary-encoded page of given indexes (only what pqTyped
// asks of a page).
type dictPage struct {
	parquet.Page
	dict parquet.Dictionary
	idx  []int32
	n    int64
}

func (p dictPage) Dictionary() parquet.Dictionary { return p.dict }
func (p dictPage) Data() encoding.Values          { return encoding.Int32Values(p.idx) }
func (p dictPage) NumValues() int64               { return p.n }
func (p dictPage) NumNulls() int64                { return 0 }

// An index outside the dictionary, or fewer indexes than the page declares
// values, is left to the value-by-value path (whose decoder reports the
// corrupt page): the typed path neither reads outside the dictionary nor
// makes up values.
func TestParquetTypedDictionaryBounds(t *testing.T) {
	dict := parquet.DoubleType.NewDictionary(0, 3, encoding.DoubleValues([]float64{1.5, -2, 8}))
	var buf []float64
	vals, ok := pqTyped(dictPage{dict: dict, idx: []int32{2, 0, 1, 1}, n: 4}, format.Double, &buf)
	if !ok || fmt.Sprint(vals) != "[8 1.5 -2 -2]" {
		t.Fatalf("well-formed page: %v %v", vals, ok)
	}
	for _, p := range []dictPage{
		{dict: dict, idx: []int32{0, 3}, n: 2},
		{dict: dict, idx: []int32{-1}, n: 1},
		{dict: dict, idx: []int32{0, 1}, n: 3},
	} {
		if vals, ok := pqTyped(p, format.Double, &buf); ok {
			t.Errorf("indexes %v of %d values: read %v", p.idx, p.n, vals)
		}
	}
	if _, ok := pqTyped(dictPage{dict: dict, idx: []int32{0}, n: 1}, format.Float, &buf); ok {
		t.Error("a double dictionary read for a float column")
	}
}
