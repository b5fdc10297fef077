package dataset

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestReadChunksMatchesWholeFile(t *testing.T) {
	var csvText, svmText strings.Builder
	csvText.WriteString("y,a,b\n")
	for i := 0; i < 23; i++ {
		fmt.Fprintf(&csvText, "%d,%d.5,%d\n", i, i, 2*i)
		fmt.Fprintf(&svmText, "%d 1:%d.5 2:%d\n", i, i, 2*i)
		if i == 10 {
			csvText.WriteString("\n")
			svmText.WriteString("# a comment\n")
		}
	}
	for _, c := range []struct {
		format string
		text   string
	}{{"csv", csvText.String()}, {"svmlight", svmText.String()}} {
		var whole *Data
		var err error
		if c.format == "csv" {
			whole, err = ReadCSV(strings.NewReader(c.text), "f", CSVOptions{Labels: []string{"y"}})
		} else {
			whole, err = ReadSVMLight(strings.NewReader(c.text), "f", SVMLightOptions{Width: 2, Dense: true})
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{1, 4, 7, 23, 100} {
			seen := 0
			err := ReadChunks(strings.NewReader(c.text), "f", c.format, CSVOptions{Labels: []string{"y"}}, SVMLightOptions{Width: 2, Dense: true}, rows,
				func(d *Data, offset int) error {
					if offset != seen {
						return fmt.Errorf("offset %d, want %d", offset, seen)
					}
					for i := 0; i < d.Rows(); i++ {
						if d.Y.At(i, 0) != whole.Y.At(seen+i, 0) || d.X.At(i, 1) != whole.X.At(seen+i, 1) {
							return fmt.Errorf("row %d differs", seen+i)
						}
					}
					if d.Rows() > rows {
						return fmt.Errorf("chunk of %d rows", d.Rows())
					}
					seen += d.Rows()
					return nil
				})
			if err != nil || seen != 23 {
				t.Errorf("%s rows=%d: %v, %d rows seen", c.format, rows, err, seen)
			}
		}
	}

}

func TestReadChunksErrorLines(t *testing.T) {
	csvText := "y,a\n1,2\n3,4\n5,x\n"
	err := ReadChunks(strings.NewReader(csvText), "f.csv", "csv", CSVOptions{Labels: []string{"y"}}, SVMLightOptions{}, 1, func(*Data, int) error { return nil })
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || !errors.Is(err, ErrSyntax) {
		t.Errorf("csv: %v", err)
	}
	svm := "1 1:2\n1 qid:3 1:2\n"
	err = ReadChunks(strings.NewReader(svm), "f.svm", "svmlight", CSVOptions{}, SVMLightOptions{Width: 1}, 1, func(*Data, int) error { return nil })
	if !errors.Is(err, ErrQid) {
		t.Errorf("qid on some rows: %v", err)
	}
	err = ReadChunks(strings.NewReader("1 1:2\n1 0:2\n"), "f.svm", "svmlight", CSVOptions{}, SVMLightOptions{Width: 1}, 1, func(*Data, int) error { return nil })
	if !errors.As(err, &pe) || pe.Line != 2 {
		t.Errorf("svmlight index 0: %v", err)
	}
	if err := ReadChunks(strings.NewReader("y,a\n"), "f.csv", "csv", CSVOptions{Labels: []string{"y"}}, SVMLightOptions{}, 5, func(*Data, int) error { return nil }); !errors.Is(err, ErrEmpty) {
		t.Errorf("header only: %v", err)
	}
}
