package plan

import (
	"strings"
	"testing"
)

// TestReliabStreamSourceFormats is issue 20 item 12: fit --stream on a
// .parquet file said "svmlight files carry their labels and qid: fields"
// (the file read as svmlight). A NumPy or Parquet file, gzipped or not,
// anywhere in the list, is refused as what it is; .tsv is CSV, as fit's
// reader has it.
func TestReliabStreamSourceFormats(t *testing.T) {
	for _, c := range []struct {
		args  []string
		files []string
		want  string
	}{
		{[]string{"--data", "x.parquet", "--stream", "--label", "y"}, []string{"x.parquet"}, "x.parquet is a Parquet file: --stream reads svmlight or CSV shards"},
		{[]string{"--data", "x.parquet", "--stream"}, []string{"x.parquet"}, "x.parquet is a Parquet file"},
		{[]string{"--data", "d/*", "--stream"}, []string{"d/a.svm", "d/b.pq.gz"}, "d/b.pq.gz is a Parquet file"},
		{[]string{"--data", "x.npy", "--stream"}, []string{"x.npy"}, "x.npy is a NumPy .npy file"},
		{[]string{"--data", "x.npz", "--stream", "--label", "y"}, []string{"x.npz"}, "x.npz is a NumPy .npz archive"},
	} {
		p, err := newPlan(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		_, err = p.StreamSource(c.files)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "svmlight files carry") {
			t.Errorf("%v: %v, want %q", c.files, err, c.want)
		}
	}
	p, err := newPlan(t, "--data", "x.tsv.gz", "--stream", "--label", "y")
	if err != nil {
		t.Fatal(err)
	}
	if src, err := p.StreamSource([]string{"x.tsv.gz"}); err != nil || src.Format != "csv" {
		t.Errorf("x.tsv.gz: %+v, %v, want CSV", src, err)
	}
}
