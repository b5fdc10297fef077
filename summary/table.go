package summary

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable prints a summary for people (rlskit fit --pretty): the JSON summary's fields, one
// per line, nested fields dotted (cv.best.value), long lists summarized by
// their length — the curve is in the JSON (--pretty=false) and the report.
func WriteTable(w io.Writer, s any) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	flatten(tw, "", v)
	return tw.Flush()
}

// flatten writes the rows of v under the key prefix.
func flatten(w io.Writer, prefix string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return fieldRank(keys[i]) < fieldRank(keys[j]) || fieldRank(keys[i]) == fieldRank(keys[j]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(w, key, x[k])
		}
	case []any:
		scalars := true
		for _, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				scalars = false
			}
		}
		switch {
		case len(x) == 0:
			fmt.Fprintf(w, "%s\t(none)\n", prefix)
		case scalars && len(x) <= 12:
			parts := make([]string, len(x))
			for i, e := range x {
				parts[i] = Scalar(e)
			}
			fmt.Fprintf(w, "%s\t%s\n", prefix, strings.Join(parts, ", "))
		case len(x) <= 3:
			for i, e := range x {
				flatten(w, fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		default:
			fmt.Fprintf(w, "%s\t%d entries (in the JSON: --pretty=false)\n", prefix, len(x))
		}
	default:
		fmt.Fprintf(w, "%s\t%s\n", prefix, Scalar(x))
	}
}

// fieldRank orders the summary's leading fields as a reader wants them.
func fieldRank(k string) int {
	for i, f := range []string{"learner", "kernel", "form", "lambda", "n_train", "n_features", "outputs", "strategy", "measure", "best"} {
		if k == f {
			return i
		}
	}
	return 100
}

// Scalar renders one value of the table: integers exactly, other numbers
// to 6 significant digits.
func Scalar(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	case string:
		return x
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
