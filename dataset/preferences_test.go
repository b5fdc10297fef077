package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestReadPreferences(t *testing.T) {
	got, err := ReadPreferences(strings.NewReader("0 1\n# comment\n\n2 0 0.5\n1 2 3 2.5 # trailing\n"), "p.txt", 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Preference{{0, 1, 1, 1}, {2, 0, 0.5, 1}, {1, 2, 3, 2.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	bad := []struct {
		text     string
		line     int
		sentinel error
	}{
		{"0 1\n0\n", 2, ErrSyntax},
		{"0 1\n0 x\n", 2, ErrSyntax},
		{"0 1\n0 3\n", 2, ErrOutOfRange},
		{"-1 1\n", 1, ErrOutOfRange},
		{"0 1\n1 1\n", 2, ErrSyntax},
		{"0 1 -2\n", 1, ErrSyntax},
		{"0 1 NaN\n", 1, ErrNonFinite},
		{"0 1 1 0\n", 1, ErrSyntax},
		{"0 1 1 inf\n", 1, ErrNonFinite},
		{"0 1 1 1 1\n", 1, ErrSyntax},
		{"# nothing\n", 0, ErrEmpty},
	}
	for _, c := range bad {
		_, err := ReadPreferences(strings.NewReader(c.text), "p.txt", 3)
		var pe *ParseError
		if !errors.Is(err, c.sentinel) || !errors.As(err, &pe) || pe.Line != c.line {
			t.Errorf("%q: err = %v, want line %d and %v", c.text, err, c.line, c.sentinel)
		}
	}
}
