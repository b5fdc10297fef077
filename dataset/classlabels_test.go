package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/gonum/mat"
)

// classesOf sorts the class-label column of d and returns the class names
// and each row's class name.
func classesOf(t *testing.T, d *Data) ([]string, []string) {
	t.Helper()
	tokens, codes, err := ClassLabelsOf(d)
	if err != nil {
		t.Fatal(err)
	}
	set, index, err := LabelClasses(tokens, codes)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]string, len(index))
	for i, k := range index {
		rows[i] = set.Names[k]
	}
	return set.Names, rows
}

// TestCSVClassLabels: a string class column is read as written (spaces
// trimmed, quotes removed) and sorted by bytes; an integer column is sorted
// numerically ("10" after "9"), "2" and "2.0" one class; the reader codes
// tokens in order of appearance, on the fast and the general path alike.
func TestCSVClassLabels(t *testing.T) {
	cases := []struct {
		name, csv   string
		names, rows []string
		numeric     bool
	}{
		{"strings", "x,species\n1,virginica\n2,setosa\n3, versicolor\n4,\"setosa\"\n5,Zebra\n",
			[]string{"Zebra", "setosa", "versicolor", "virginica"}, []string{"virginica", "setosa", "versicolor", "setosa", "Zebra"}, false},
		{"integers", "x,species\n1,10\n2,9\n3,-1\n4,2\n5,2.0\n6,9\n",
			[]string{"-1", "2", "9", "10"}, []string{"10", "9", "-1", "2", "2", "9"}, true},
		{"signed zero", "x,species\n1,-0\n2,0\n3,1\n",
			[]string{"0", "1"}, []string{"0", "0", "1"}, true},
		{"mixed: strings", "x,species\n1,10\n2,9\n3,a\n",
			[]string{"10", "9", "a"}, []string{"10", "9", "a"}, false},
	}
	for _, c := range cases {
		d, err := ReadCSV(strings.NewReader(c.csv), "t.csv", CSVOptions{Labels: []string{"species"}, ClassLabels: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		names, rows := classesOf(t, d)
		if !reflect.DeepEqual(names, c.names) || !reflect.DeepEqual(rows, c.rows) {
			t.Errorf("%s: classes %q rows %q, want %q %q", c.name, names, rows, c.names, c.rows)
		}
		set, _, _ := LabelClasses(d.Classes, mat.Col(nil, 0, d.Y))
		if (set.Values != nil) != c.numeric {
			t.Errorf("%s: numeric %v, want %v", c.name, set.Values != nil, c.numeric)
		}
		if r, cols := d.X.Dims(); r != len(c.rows) || cols != 1 {
			t.Errorf("%s: X is %d×%d", c.name, r, cols)
		}
	}
	// the same classes read as numbers (the default) and as class labels
	// give the same one-vs-all outputs
	in := "x,y\n1,2\n2,0\n3,1\n4,2\n"
	num, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	cls, err := ReadCSV(strings.NewReader(in), "t.csv", CSVOptions{Labels: []string{"y"}, ClassLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	y1, c1, err := OneVsAll(mat.Col(nil, 0, num.Y))
	if err != nil {
		t.Fatal(err)
	}
	tokens, codes, _ := ClassLabelsOf(cls)
	set, index, err := LabelClasses(tokens, codes)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(y1, OneVsAllMatrix(index, len(set.Names))) || !reflect.DeepEqual(c1, set.Values) {
		t.Errorf("numbers and class labels differ: %v %v", c1, set.Values)
	}
	// a string label read as numbers names the flags
	_, err = ReadCSV(strings.NewReader("x,species\n1,setosa\n"), "t.csv", CSVOptions{Labels: []string{"species"}})
	if err == nil || !strings.Contains(err.Error(), "--one-vs-all") || !strings.Contains(err.Error(), "--positive") {
		t.Errorf("string label without ClassLabels: %v", err)
	}
	// class labels are one column
	_, err = ReadCSV(strings.NewReader("a,b,x\n1,2,3\n"), "t.csv", CSVOptions{Labels: []string{"a", "b"}, ClassLabels: true})
	if !errors.Is(err, ErrOptions) {
		t.Errorf("two class columns: %v", err)
	}
}

// TestClassRefusals: more than MaxClasses distinct values (at the reader,
// naming the line, and in LabelClasses and ValueClasses), non-integer
// numbers and a single class are refused with the continuous-label hint.
func TestClassRefusals(t *testing.T) {
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := 0; i <= MaxClasses; i++ {
		fmt.Fprintf(&b, "%d,c%d\n", i, i)
	}
	_, err := ReadCSV(strings.NewReader(b.String()), "t.csv", CSVOptions{Labels: []string{"y"}, ClassLabels: true})
	var pe *ParseError
	if !errors.Is(err, ErrClasses) || !errors.As(err, &pe) || pe.Line != MaxClasses+2 || !strings.Contains(err.Error(), "for regression drop --one-vs-all") {
		t.Errorf("51 classes at the reader: %v", err)
	}
	// exactly MaxClasses are taken
	lines := strings.SplitAfter(b.String(), "\n")
	if _, err := ReadCSV(strings.NewReader(strings.Join(lines[:MaxClasses+1], "")), "t.csv", CSVOptions{Labels: []string{"y"}, ClassLabels: true}); err != nil {
		t.Errorf("%d classes: %v", MaxClasses, err)
	}
	tokens := make([]string, MaxClasses+1)
	vals := make([]float64, MaxClasses+1)
	for k := range tokens {
		tokens[k] = fmt.Sprint(k)
		vals[k] = float64(k)
	}
	if _, _, err := LabelClasses(tokens, nil); !errors.Is(err, ErrClasses) || !strings.Contains(err.Error(), "continuous") {
		t.Errorf("51 tokens: %v", err)
	}
	if _, _, err := LabelClasses(tokens[:MaxClasses], nil); err != nil {
		t.Errorf("%d tokens: %v", MaxClasses, err)
	}
	if _, _, err := ValueClasses(vals); !errors.Is(err, ErrClasses) || !strings.Contains(err.Error(), "continuous") {
		t.Errorf("51 values: %v", err)
	}
	if _, _, err := OneVsAll(vals); !errors.Is(err, ErrClasses) {
		t.Errorf("OneVsAll of 51 values: %v", err)
	}
	for _, toks := range [][]string{{"1", "2.5", "3"}, {"0.1", "1"}} {
		if _, _, err := LabelClasses(toks, []float64{0, 1}); !errors.Is(err, ErrClasses) || !strings.Contains(err.Error(), "not an integer") ||
			!strings.Contains(err.Error(), "for regression drop --one-vs-all") {
			t.Errorf("non-integers %q: %v", toks, err)
		}
	}
	if _, _, err := OneVsAll([]float64{0, 0.5, 1}); !errors.Is(err, ErrClasses) {
		t.Errorf("OneVsAll of non-integers: %v", err)
	}
	if _, _, err := LabelClasses([]string{"a", "a"}, []float64{0, 1}); !errors.Is(err, ErrClasses) {
		t.Errorf("one class: %v", err)
	}
}

// TestClassEncode: a model's classes encode new labels by name, numeric
// ones by value; an unknown class names its row.
func TestClassEncode(t *testing.T) {
	num := NamedClasses([]string{"2", "9", "10"})
	if num.Values == nil {
		t.Fatal("numeric names not numeric")
	}
	index, err := num.Encode([]string{"10.0", "2"}, []float64{0, 1, 0})
	if err != nil || !reflect.DeepEqual(index, []int{2, 0, 2}) {
		t.Errorf("numeric: %v %v", index, err)
	}
	str := NamedClasses([]string{"no", "yes"})
	if _, err := str.Encode([]string{"yes", "maybe"}, []float64{0, 1}); !errors.Is(err, ErrClasses) || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("unknown class: %v", err)
	}
	y := BinaryLabels([]int{1, 0, 1}, 1)
	if !mat.Equal(y, mat.NewDense(3, 1, []float64{1, -1, 1})) {
		t.Errorf("binary %v", mat.Formatted(y))
	}
}

// TestParquetClassLabels: a BYTE_ARRAY (string) label column is read as
// class labels; a numeric one gives the same classes as CSV; without
// ClassLabels the string label is refused naming the flags.
func TestParquetClassLabels(t *testing.T) {
	type row struct {
		X       float64 `parquet:"x"`
		Species string  `parquet:"species"`
		Code    int64   `parquet:"code"`
	}
	rows := []row{{1, "virginica", 10}, {2, "setosa", 9}, {3, "versicolor", -1}, {4, "setosa", 9}}
	var b bytes.Buffer
	w := parquet.NewGenericWriter[row](&b)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(opt CSVOptions) (*Data, error) {
		return ReadParquet(bytes.NewReader(b.Bytes()), int64(b.Len()), "t.parquet", opt)
	}
	d, err := read(CSVOptions{Labels: []string{"species"}, ClassLabels: true, Columns: Columns{Features: []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	names, got := classesOf(t, d)
	if !reflect.DeepEqual(names, []string{"setosa", "versicolor", "virginica"}) || !reflect.DeepEqual(got, []string{"virginica", "setosa", "versicolor", "setosa"}) {
		t.Errorf("string column: %q %q", names, got)
	}
	d, err = read(CSVOptions{Labels: []string{"code"}, ClassLabels: true, Columns: Columns{Features: []string{"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	names, got = classesOf(t, d)
	if !reflect.DeepEqual(names, []string{"-1", "9", "10"}) || !reflect.DeepEqual(got, []string{"10", "9", "-1", "9"}) {
		t.Errorf("integer column: %q %q", names, got)
	}
	_, err = read(CSVOptions{Labels: []string{"species"}, Columns: Columns{Features: []string{"x"}}})
	if err == nil || !strings.Contains(err.Error(), "--one-vs-all") || !strings.Contains(err.Error(), "--positive") {
		t.Errorf("string label without ClassLabels: %v", err)
	}
}
