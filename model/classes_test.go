package model

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
)

// TestClassNames: a one-vs-all model's string class names and a binary
// model's two classes with its positive one round-trip through the file
// (version 4; numeric classes stay version 2), and Load refuses them where
// they cannot be.
func TestClassNames(t *testing.T) {
	ova := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 2, Outputs: []string{"setosa", "versicolor"},
		W: mat.NewDense(2, 2, []float64{2, -1, 0.5, 1}), B: []float64{0.5, 0}, ClassLabel: "species", ClassNames: []string{"setosa", "versicolor"}}
	bin := &Predictor{Kernel: kernel.Spec{Name: "linear"}, Lambda: 1, Width: 2, Outputs: []string{"outcome"},
		W: mat.NewDense(2, 1, []float64{2, -1}), B: []float64{0.5}, ClassLabel: "outcome", ClassNames: []string{"no", "yes"}, Positive: "yes"}
	save := func(p *Predictor) string {
		var b bytes.Buffer
		if err := p.Save(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	ovaText, binText := save(ova), save(bin)
	for _, c := range []struct {
		text string
		p    *Predictor
	}{{ovaText, ova}, {binText, bin}} {
		if !strings.Contains(c.text, `"version":4`) {
			t.Errorf("saved %s", c.text)
		}
		q, err := Load(strings.NewReader(c.text))
		if err != nil || !slices.Equal(q.ClassNames, c.p.ClassNames) || q.Positive != c.p.Positive || q.ClassLabel != c.p.ClassLabel {
			t.Fatalf("loaded %+v, %v", q, err)
		}
	}
	num := *ova
	num.ClassNames, num.Classes = nil, []float64{0, 1}
	if text := save(&num); !strings.Contains(text, `"version":2`) || !strings.Contains(text, `"classes":[0,1]`) {
		t.Errorf("numeric classes: %s", text)
	}
	for _, c := range []struct{ name, text, from, to, want string }{
		{"version 3", ovaText, `"version":4`, `"version":3`, "class_names in a version 3 model"},
		{"not increasing", ovaText, `["setosa","versicolor"],"type"`, `["versicolor","setosa"],"type"`, "are not increasing"},
		{"count", ovaText, `["setosa","versicolor"],"type"`, `["setosa"],"type"`, "1 class_names for 2 outputs"},
		{"beside classes", ovaText, `"class_names"`, `"classes":[0,1],"class_names"`, "both classes and class_names"},
		{"empty name", binText, `["no","yes"]`, `["","yes"]`, "an empty name"},
		{"positive not a class", binText, `"positive_class":"yes"`, `"positive_class":"maybe"`, `positive_class "maybe" is not one of the class_names`},
		{"positive without names", binText, `"class_names":["no","yes"],`, ``, "positive_class \"yes\" without class_names"},
		{"binary of one name", binText, `["no","yes"]`, `["yes","yes"]`, "two distinct class_names"},
		{"positive on two outputs", ovaText, `"class_names"`, `"positive_class":"setosa","class_names"`, "a binary model has one output"},
	} {
		bad := strings.Replace(c.text, c.from, c.to, 1)
		if bad == c.text {
			t.Fatalf("%s: %q not in %s", c.name, c.from, c.text)
		}
		_, err := Load(strings.NewReader(bad))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
