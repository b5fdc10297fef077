package dataset

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
)

// MaxClasses bounds the distinct values of a class-label column: one-vs-all
// learns one output per class, and a column with more values is taken for a
// continuous (regression) target and refused.
const MaxClasses = 50

// ErrClasses reports a label column that is not a column of class labels for
// one-vs-all: more than MaxClasses distinct values, non-integer numbers, a
// single class, or a class a model does not know. It wraps ErrOptions.
var ErrClasses = fmt.Errorf("%w: not class labels", ErrOptions)

// continuousHint ends the refusals of a continuous label.
const continuousHint = "a continuous label: --one-vs-all makes one output per class; for regression drop --one-vs-all"

// ClassSet is the classes of a class-label column, sorted. A column whose
// every value is a number (the decimal syntax of CSV values) has numeric
// classes: integers, sorted numerically, named by their shortest decimal
// form ("2", "-1"; "2" and "2.0" are one class). Any other column has string
// classes, the values as written, sorted lexicographically by bytes (for
// UTF-8, code point order: Python's sorted and numpy.unique order them the
// same way); "10" < "9" among names like "10x", "9x".
type ClassSet struct {
	// Names names the classes in order: the outputs of a one-vs-all model.
	Names []string
	// Values holds the numeric classes (ascending), nil for string classes.
	Values []float64
}

// ValueClasses writes numeric labels as a class-label column: the distinct
// values (their shortest decimal form) in order of first appearance, and
// for each row the index of its value among them, as Data.Classes and a
// column of Data.Y hold them. A NaN or infinite value is an error; more
// than MaxClasses distinct values are refused with the hint that the label
// is continuous. O(m) expected time, O(distinct) memory beyond the codes.
func ValueClasses(y []float64) ([]string, []float64, error) {
	seen := make(map[float64]int)
	var tokens []string
	codes := make([]float64, len(y))
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("%w: row %d has label %v", ErrClasses, i+1, v)
		}
		v += 0 // -0 and 0 are one class
		c, ok := seen[v]
		if !ok {
			if len(tokens) == MaxClasses {
				return nil, nil, fmt.Errorf("%w: more than %d distinct values (%s)", ErrClasses, MaxClasses, continuousHint)
			}
			c = len(tokens)
			seen[v] = c
			tokens = append(tokens, strconv.FormatFloat(v, 'g', -1, 64))
		}
		codes[i] = float64(c)
	}
	return tokens, codes, nil
}

// LabelClasses sorts the classes of a class-label column given as tokens
// (the distinct values as written, Data.Classes) and codes (each row's
// index into tokens, a column of Data.Y), and returns the classes and each
// row's index among them. The column is numeric when every token is a
// decimal number; then every one must be an integer (a non-integer is
// refused: the label is continuous), and tokens of the same number are one
// class. More than MaxClasses classes, or fewer than 2, are refused
// (ErrClasses). O(m + c log c) for m rows and c tokens.
func LabelClasses(tokens []string, codes []float64) (*ClassSet, []int, error) {
	if len(tokens) > MaxClasses {
		return nil, nil, fmt.Errorf("%w: %d distinct values, more than %d (%s)", ErrClasses, len(tokens), MaxClasses, continuousHint)
	}
	vals := make([]float64, len(tokens))
	numeric := true
	for k, s := range tokens {
		v, err := parseValue(s)
		if err != nil {
			numeric = false
			break
		}
		vals[k] = v + 0
	}
	// class of each token
	tokClass := make([]int, len(tokens))
	set := &ClassSet{}
	if numeric {
		for _, v := range vals {
			if v != math.Trunc(v) {
				return nil, nil, fmt.Errorf("%w: value %s is not an integer (%s)", ErrClasses, strconv.FormatFloat(v, 'g', -1, 64), continuousHint)
			}
		}
		set.Values = slices.Sorted(slices.Values(vals))
		set.Values = slices.Compact(set.Values)
		for k, v := range vals {
			tokClass[k], _ = slices.BinarySearch(set.Values, v)
		}
		set.Names = ClassNames(set.Values)
	} else {
		set.Names = slices.Sorted(slices.Values(tokens))
		set.Names = slices.Compact(set.Names)
		for k, s := range tokens {
			tokClass[k], _ = slices.BinarySearch(set.Names, s)
		}
	}
	if len(set.Names) < 2 {
		return nil, nil, fmt.Errorf("%w: one-vs-all needs at least 2 classes, the labels have %d", ErrClasses, len(set.Names))
	}
	index := make([]int, len(codes))
	for i, c := range codes {
		k := int(c)
		if float64(k) != c || k < 0 || k >= len(tokens) {
			return nil, nil, fmt.Errorf("%w: row %d has class code %v, not one of the %d tokens", ErrOptions, i+1, c, len(tokens))
		}
		index[i] = tokClass[k]
	}
	return set, index, nil
}

// Find returns the index of the class a label token names: for numeric
// classes the token read as a number ("2.0" is class "2"), for string
// classes the token itself. O(log c).
func (s *ClassSet) Find(token string) (int, bool) {
	if s.Values != nil {
		v, err := parseValue(token)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearch(s.Values, v+0)
	}
	return slices.BinarySearch(s.Names, token)
}

// Encode maps a class-label column (tokens and codes, as LabelClasses takes
// them) onto the classes of s — a model's — and returns each row's class
// index; a label that is not one of them is an error naming its row. O(m +
// t log c).
func (s *ClassSet) Encode(tokens []string, codes []float64) ([]int, error) {
	tokClass := make([]int, len(tokens))
	for k, t := range tokens {
		c, ok := s.Find(t)
		if !ok {
			tokClass[k] = -1
			continue
		}
		tokClass[k] = c
	}
	index := make([]int, len(codes))
	for i, c := range codes {
		k := int(c)
		if float64(k) != c || k < 0 || k >= len(tokens) {
			return nil, fmt.Errorf("%w: row %d has class code %v, not one of the %d tokens", ErrOptions, i+1, c, len(tokens))
		}
		if tokClass[k] < 0 {
			name := strconv.Quote(tokens[k])
			if s.Values != nil {
				name = tokens[k] // a number
			}
			return nil, fmt.Errorf("%w: row %d has class %s, which the model does not know (classes %q)", ErrClasses, i+1, name, s.Names)
		}
		index[i] = tokClass[k]
	}
	return index, nil
}

// OneVsAllMatrix writes the m×c ±1 one-vs-all matrix of rows whose classes
// are index (+1 in the column of the row's class, -1 elsewhere). O(m·c).
func OneVsAllMatrix(index []int, c int) *mat.Dense {
	out := mat.NewDense(len(index), c, nil)
	for i, k := range index {
		row := out.RawRowView(i)
		for j := range row {
			row[j] = -1
		}
		row[k] = 1
	}
	return out
}

// OneVsAll turns a column of numeric class labels into one ±1 output per
// class (+1 in the column of the row's class), the classes ascending, with
// the refusals of ValueClasses and LabelClasses (more than MaxClasses
// values, non-integers, one class). Learned together, the outputs cost one
// training. O(m·c + c log c).
func OneVsAll(y []float64) (*mat.Dense, []float64, error) {
	tokens, codes, err := ValueClasses(y)
	if err != nil {
		return nil, nil, err
	}
	set, index, err := LabelClasses(tokens, codes)
	if err != nil {
		return nil, nil, err
	}
	return OneVsAllMatrix(index, len(set.Names)), set.Values, nil
}

// EncodeClasses writes the ±1 one-vs-all matrix of y for the given classes; a
// label that is not one of them is an error naming its row. O(m·c).
func EncodeClasses(y []float64, classes []float64) (*mat.Dense, error) {
	out := mat.NewDense(len(y), len(classes), nil)
	for i, v := range y {
		k, ok := slices.BinarySearch(classes, v)
		if !ok {
			return nil, fmt.Errorf("%w: row %d has class %v, which the model does not know (classes %v)", ErrOptions, i, v, classes)
		}
		row := out.RawRowView(i)
		for c := range row {
			row[c] = -1
		}
		row[k] = 1
	}
	return out, nil
}

// ClassNames formats class labels as the output names of a one-vs-all model.
func ClassNames(classes []float64) []string {
	out := make([]string, len(classes))
	for k, c := range classes {
		out[k] = strconv.FormatFloat(c, 'g', -1, 64)
	}
	return out
}

// NamedClasses rebuilds the classes a model records by name, in the order
// LabelClasses gave them: numeric (Values set) when every name is a
// decimal number, else string classes. O(c).
func NamedClasses(names []string) *ClassSet {
	s := &ClassSet{Names: names}
	vals := make([]float64, len(names))
	for k, n := range names {
		v, err := parseValue(n)
		if err != nil {
			return s
		}
		vals[k] = v + 0
	}
	s.Values = vals
	return s
}

// ClassLabelsOf returns the class-label column of d's one label column: the
// tokens and codes the reader kept (Data.Classes), or else the numbers of Y
// as ValueClasses writes them.
func ClassLabelsOf(d *Data) ([]string, []float64, error) {
	y := mat.Col(nil, 0, d.Y)
	if d.Classes != nil {
		return d.Classes, y, nil
	}
	return ValueClasses(y)
}

// BinaryLabels writes a two-class label as one ±1 column: +1 for the rows of
// class positive (an index into s), -1 for the others. O(m).
func BinaryLabels(index []int, positive int) *mat.Dense {
	y := mat.NewDense(len(index), 1, nil)
	for i, k := range index {
		y.Set(i, 0, -1)
		if k == positive {
			y.Set(i, 0, 1)
		}
	}
	return y
}
