package dataset_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/dataset"
)

func ExampleReadSVMLight() {
	const file = `# two queries
3 qid:q1 1:0.5 4:1
1 qid:q1 2:2
2 qid:q2 1:-1 3:0.25 # a trailing comment
`
	d, err := dataset.ReadSVMLight(strings.NewReader(file), "train.svm", dataset.SVMLightOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("X:\n%v\n", mat.Formatted(d.X))
	fmt.Println("queries:", d.Queries, d.QueryNames)

	// Predictions are written one row per line, outputs tab-separated.
	if err := dataset.WritePredictions(os.Stdout, d.Y); err != nil {
		fmt.Println(err)
	}

	// Errors name the file, line, column and token.
	_, err = dataset.ReadSVMLight(strings.NewReader("1 1:1\n2 2:x\n"), "bad.svm", dataset.SVMLightOptions{})
	fmt.Println(err)
	fmt.Println(errors.Is(err, dataset.ErrSyntax))

	// Output:
	// X:
	// ⎡ 0.5     0     0     1⎤
	// ⎢   0     2     0     0⎥
	// ⎣  -1     0  0.25     0⎦
	// queries: [0 0 1] [q1 q2]
	// 3
	// 1
	// 2
	// bad.svm:2: column 2 (token "2:x"): not a number: dataset: syntax error
	// true
}

// A command checks its outputs before any work, computes, and commits them
// together: both files appear, or (on an error or a signal) neither changes.
func ExampleOutputs() {
	dir, err := os.MkdirTemp("", "outputs-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	dataPath := filepath.Join(dir, "data.svm")
	os.WriteFile(dataPath, []byte("1 1:0.5\n2 1:1.5\n"), 0o644)
	predPath := filepath.Join(dir, "pred.txt")
	modelPath := filepath.Join(dir, "model.txt")

	var (
		outs dataset.Outputs
		pred *mat.Dense // computed after the outputs are added
	)
	outs.Add("--out", predPath, func(w io.Writer) error { return dataset.WritePredictions(w, pred) })
	outs.Add("--model", modelPath, func(w io.Writer) error { _, err := io.WriteString(w, "w = 2\n"); return err })
	if err := outs.Check(); err != nil {
		fmt.Println(err)
		return
	}
	if err := outs.CheckInputs(dataPath); err != nil {
		fmt.Println(err)
		return
	}

	// The work: read the data and predict 2x.
	d, err := dataset.ReadFile(dataPath, "", dataset.CSVOptions{}, dataset.SVMLightOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pred = mat.NewDense(d.Rows(), 1, nil)
	pred.Scale(2, mat.DenseCopyOf(d.X))

	if err := outs.Commit(); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(predPath)
	fmt.Print(string(b))

	// An output that would overwrite an input is refused before any work.
	var bad dataset.Outputs
	bad.Add("--out", dataPath, func(io.Writer) error { return nil })
	err = bad.CheckInputs(dataPath)
	fmt.Println(errors.Is(err, dataset.ErrSameFile))
	// Output:
	// 1
	// 3
	// true
}
