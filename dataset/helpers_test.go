package dataset

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"gonum.org/v1/gonum/mat"
)

// errCase describes an expected error: its sentinel and position.
type errCase struct {
	sentinel error
	line     int    // expected ParseError.Line (0: the message must not show a line)
	col      int    // expected ParseError.Column
	tok      string // expected token (checked when col > 0)
}

// checkErr asserts that err wraps want.sentinel, is a *ParseError with the
// wanted position, and that the message shows the file, line, column and token.
func checkErr(t *testing.T, err error, file string, want errCase) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", want.sentinel)
	}
	if !errors.Is(err, want.sentinel) {
		t.Errorf("error %q does not wrap %v", err, want.sentinel)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %q (%T) is not a *ParseError", err, err)
	}
	if pe.Line != want.line || pe.Column != want.col {
		t.Errorf("error %q at line %d column %d, want line %d column %d", err, pe.Line, pe.Column, want.line, want.col)
	}
	msg := err.Error()
	prefix := file + ":"
	if want.line > 0 {
		prefix = file + ":" + strconv.Itoa(want.line) + ": "
	}
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("error %q does not start with %q", msg, prefix)
	}
	if want.col > 0 {
		if sub := "column " + strconv.Itoa(want.col) + " (token " + strconv.Quote(want.tok) + ")"; !strings.Contains(msg, sub) {
			t.Errorf("error %q does not contain %q", msg, sub)
		}
		if pe.Token != want.tok {
			t.Errorf("token %q, want %q", pe.Token, want.tok)
		}
	}
	if !strings.HasSuffix(msg, want.sentinel.Error()) {
		t.Errorf("error %q does not end with %q", msg, want.sentinel.Error())
	}
}

// denseOf returns the contents of m as rows.
func denseOf(m mat.Matrix) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = m.At(i, j)
		}
	}
	return out
}

func equalRows(a, b [][]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// iotestErrAfter returns a reader that yields s and then fails with err.
func iotestErrAfter(s string, err error) io.Reader {
	return io.MultiReader(strings.NewReader(s), iotest.ErrReader(err))
}
