package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadFolds(t *testing.T) {
	tests := []struct {
		name string
		in   string
		m    int
		want [][]int
	}{
		{"basic", "0 2 4\n1 3\n", 5, [][]int{{0, 2, 4}, {1, 3}}},
		{"blank lines, CRLF, tabs, comments", "\r\n# folds\r\n 3\t0 \r\n\r\n1 # second\n2", 4, [][]int{{3, 0}, {1}, {2}}},
		{"partial cover", "5\n", 10, [][]int{{5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFolds(strings.NewReader(tt.in), "f.txt", tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadFoldsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		m    int
		want errCase
	}{
		{"non-integer", "0 1\n2 x\n", 5, errCase{ErrSyntax, 2, 2, "x"}},
		{"fractional", "0 1.0\n", 5, errCase{ErrSyntax, 1, 2, "1.0"}},
		{"out of range", "0 1\n\n2 5\n", 5, errCase{ErrOutOfRange, 3, 2, "5"}},
		{"negative", "0 -1\n", 5, errCase{ErrOutOfRange, 1, 2, "-1"}},
		{"huge", "99999999999999999999999\n", 5, errCase{ErrOutOfRange, 1, 1, "99999999999999999999999"}},
		{"duplicate within fold", "0 1 0\n", 5, errCase{ErrDuplicate, 1, 3, "0"}},
		{"duplicate across folds", "0 1\n2 3\n4 1\n", 5, errCase{ErrDuplicate, 3, 2, "1"}},
		{"empty file", "", 5, errCase{ErrEmpty, 0, 0, ""}},
		{"blank lines only", "\n  \n# c\n", 5, errCase{ErrEmpty, 0, 0, ""}},
		{"no rows", "0\n", 0, errCase{ErrOutOfRange, 1, 1, "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFolds(strings.NewReader(tt.in), "folds.txt", tt.m)
			checkErr(t, err, "folds.txt", tt.want)
		})
	}
}

func TestReadFoldsMessage(t *testing.T) {
	_, err := ReadFolds(strings.NewReader("0 1\n2 3\n4 1\n"), "folds.txt", 5)
	const want = `folds.txt:3: column 2 (token "1"): index 1 already in fold 0 (line 1): dataset: duplicate index`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestReadIndices(t *testing.T) {
	tests := []struct {
		name string
		in   string
		m    int
		want []int
	}{
		{"one line", "3 1 2\n", 4, []int{3, 1, 2}},
		{"many lines", "3\n\n1\r\n 0\t2 # comment 3\n", 4, []int{3, 1, 0, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadIndices(strings.NewReader(tt.in), "i.txt", tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestReadIndicesErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		m    int
		want errCase
	}{
		{"non-integer", "0 1\n2 1e3\n", 5, errCase{ErrSyntax, 2, 2, "1e3"}},
		{"out of range", "0\n7\n", 5, errCase{ErrOutOfRange, 2, 1, "7"}},
		{"negative", "-3\n", 5, errCase{ErrOutOfRange, 1, 1, "-3"}},
		{"duplicate on one line", "1 2 1\n", 5, errCase{ErrDuplicate, 1, 3, "1"}},
		{"duplicate across lines", "1 2\n\n3 2\n", 5, errCase{ErrDuplicate, 3, 2, "2"}},
		{"empty file", "", 5, errCase{ErrEmpty, 0, 0, ""}},
		{"blank lines only", "\r\n \n", 5, errCase{ErrEmpty, 0, 0, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadIndices(strings.NewReader(tt.in), "idx.txt", tt.m)
			checkErr(t, err, "idx.txt", tt.want)
		})
	}
}

func TestReadIndicesInvalid(t *testing.T) {
	if _, err := ReadIndices(strings.NewReader("0"), "x", -1); !errors.Is(err, ErrOptions) {
		t.Errorf("negative m: got %v, want ErrOptions", err)
	}
	if _, err := ReadFolds(nil, "x", 3); !errors.Is(err, ErrOptions) {
		t.Errorf("nil reader: got %v, want ErrOptions", err)
	}
	boom := errors.New("boom")
	if _, err := ReadFolds(iotestErrAfter("0 1\n", boom), "x", 3); !errors.Is(err, boom) {
		t.Errorf("read error: got %v, want it wrapped", err)
	}
	if _, err := ReadIndices(iotestErrAfter("0 1\n", boom), "x", 3); !errors.Is(err, boom) {
		t.Errorf("read error: got %v, want it wrapped", err)
	}
}
