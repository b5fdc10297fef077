package dataset_test

import (
	"errors"
	"fmt"
	"os"
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
