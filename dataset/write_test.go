package dataset

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestWritePredictionsRoundTrip(t *testing.T) {
	vals := []float64{
		0.1, 1.0 / 3, -2, 0,
		math.Copysign(0, -1), 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64,
		123456789012345680, -7.5e-7, 2.5, 1,
	}
	tests := []struct {
		name string
		r, c int
	}{
		{"single output", 12, 1},
		{"multi-output", 3, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			P := mat.NewDense(tt.r, tt.c, append([]float64(nil), vals...))
			var buf bytes.Buffer
			if err := WritePredictions(&buf, P); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != tt.r {
				t.Fatalf("got %d lines, want %d", len(lines), tt.r)
			}
			for i, line := range lines {
				fields := strings.Split(line, "\t")
				if len(fields) != tt.c {
					t.Fatalf("line %d has %d fields, want %d", i+1, len(fields), tt.c)
				}
				for j, f := range fields {
					v, err := strconv.ParseFloat(f, 64)
					if err != nil {
						t.Fatal(err)
					}
					if want := P.At(i, j); math.Float64bits(v) != math.Float64bits(want) {
						t.Errorf("(%d,%d) = %v, want %v", i, j, v, want)
					}
				}
			}
		})
	}
}

func TestWritePredictionsFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePredictions(&buf, mat.NewDense(2, 2, []float64{0.1, -2, 1e21, 0.5})); err != nil {
		t.Fatal(err)
	}
	if want := "0.1\t-2\n1e+21\t0.5\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	if err := WritePredictions(&buf, nil); !errors.Is(err, ErrOptions) {
		t.Errorf("nil matrix: got %v, want ErrOptions", err)
	}
	boom := errors.New("boom")
	if err := WritePredictions(failWriter{boom}, mat.NewDense(1, 1, nil)); !errors.Is(err, boom) {
		t.Errorf("write error: got %v, want it returned", err)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteFileAtomic(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		existing string // "" means no file beforehand
		write    func(io.Writer) error
		wantErr  error
		want     string // content afterwards; "" with existing "" means absent
	}{
		{
			name:  "success creates",
			write: func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err },
			want:  "hello\n",
		},
		{
			name:     "success replaces",
			existing: "old\n",
			write:    func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err },
			want:     "new\n",
		},
		{
			name: "error leaves no file",
			write: func(w io.Writer) error {
				io.WriteString(w, strings.Repeat("partial ", 100000))
				return boom
			},
			wantErr: boom,
		},
		{
			name:     "error keeps old file",
			existing: "old\n",
			write: func(w io.Writer) error {
				io.WriteString(w, "partial")
				return boom
			},
			wantErr: boom,
			want:    "old\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			if tt.existing != "" {
				if err := os.WriteFile(path, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFileAtomic(path, tt.write)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			got, rerr := os.ReadFile(path)
			switch {
			case tt.want == "" && !errors.Is(rerr, os.ErrNotExist):
				t.Errorf("file exists (%q, %v), want none", got, rerr)
			case tt.want != "" && string(got) != tt.want:
				t.Errorf("file holds %q (%v), want %q", got, rerr, tt.want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != "out.txt" {
					t.Errorf("left temporary file %s", e.Name())
				}
			}
			if tt.existing != "" {
				if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want the old file's 0600", fi.Mode().Perm())
				}
			}
		})
	}
}

func TestWriteFileAtomicBadDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	if err := WriteFileAtomic(path, func(io.Writer) error { return nil }); err == nil {
		t.Error("no error for a missing directory")
	}
	if err := WriteFileAtomic(t.TempDir(), func(io.Writer) error { return nil }); err == nil {
		t.Error("no error for a directory path")
	}
}

func TestWritePredictionsAtomicReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pred.txt")
	P := mat.NewDense(2, 1, []float64{0.3, -1.25})
	if err := WriteFileAtomic(path, func(w io.Writer) error { return WritePredictions(w, P) }); err != nil {
		t.Fatal(err)
	}
	// Prediction files are svmlight files without features.
	d, err := ReadFile(path, "svmlight", CSVOptions{}, SVMLightOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(d.Y, P) {
		t.Errorf("read back %v, want %v", mat.Formatted(d.Y), mat.Formatted(P))
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.CSV")
	svmPath := filepath.Join(dir, "d.txt")
	os.WriteFile(csvPath, []byte("a,y\n1,2\n"), 0o600)
	os.WriteFile(svmPath, []byte("2 1:1\n"), 0o600)
	y := CSVOptions{Labels: []string{"y"}}
	tests := []struct {
		name, path, format string
		wantDense          bool
	}{
		{"csv by extension", csvPath, "", true},
		{"svmlight by extension", svmPath, "", false},
		{"explicit csv", csvPath, "csv", true},
		{"explicit svmlight", svmPath, "SVMLight", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadFile(tt.path, tt.format, y, SVMLightOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := d.X.(*mat.Dense); ok != tt.wantDense {
				t.Errorf("X is %T", d.X)
			}
			if d.Y.At(0, 0) != 2 || d.X.At(0, 0) != 1 {
				t.Error("wrong values")
			}
		})
	}
	if _, err := ReadFile(svmPath, "arff", y, SVMLightOptions{}); !errors.Is(err, ErrOptions) {
		t.Errorf("unknown format: got %v, want ErrOptions", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none.csv"), "", y, SVMLightOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.svm")
	os.WriteFile(bad, []byte("1 1:1\n1 x:1\n"), 0o600)
	_, err := ReadFile(bad, "", y, SVMLightOptions{})
	checkErr(t, err, bad, errCase{ErrSyntax, 2, 2, "x:1"})
}
