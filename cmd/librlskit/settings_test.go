//go:build cgo

package main

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseSettings: the settings are rlskit fit's flags, parsed by
// plan.Define's flag set — values as strings, numbers or booleans; an
// unknown key, a file flag and a value of another JSON type are refused
// as errSetting (TypeError in Python), a bad value with the flag's name.
func TestParseSettings(t *testing.T) {
	f, given, err := parseSettings(`{"learner": "queryrank", "gamma": 0.25, "standardize": true, "lambda-grid": "2^-3..2^3", "seed": 7}`)
	if err != nil {
		t.Fatal(err)
	}
	if f.Learner != "queryrank" || f.GammaText != "0.25" || !f.Standardize || f.LambdaGrid != "2^-3..2^3" || f.Seed != 7 {
		t.Fatalf("flags %+v", f)
	}
	want := map[string]bool{"learner": true, "gamma": true, "standardize": true, "lambda-grid": true, "seed": true}
	if !reflect.DeepEqual(given, want) {
		t.Fatalf("given %v, want %v", given, want)
	}
	for text, msg := range map[string]string{
		`{"nope": 1}`:          `"nope": not a setting of rlskit fit`,
		`{"data": "x.csv"}`:    `"data": not taken by the C ABI yet`,
		`{"model": "m.json"}`:  `"model": not taken by the C ABI yet`,
		`{"stream": true}`:     `"stream": not taken by the C ABI yet`,
		`{"cv": ["loo"]}`:      `"cv": want a string, number or boolean`,
		`{"seed": "x"}`:        `--seed "x"`,
		`{"standardize": "3"}`: `--standardize "3"`,
		`[1]`:                  `settings:`,
	} {
		_, _, err := parseSettings(text)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one containing %q", text, err, msg)
		}
		typed := errors.Is(err, errSetting)
		if wantTyped := strings.Contains(msg, `": `); typed != wantTyped {
			t.Errorf("%s: errors.Is(errSetting) = %v, want %v", text, typed, wantTyped)
		}
	}
}

// TestFoldsOf: a fold number per row becomes the folds' rows; -1 is in no
// fold; a fold number out of range or a gap in the numbering is refused.
func TestFoldsOf(t *testing.T) {
	got, err := foldsOf([]int64{1, 0, -1, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{1, 4}, {0, 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("folds %v, want %v", got, want)
	}
	for _, ids := range [][]int64{{0, 2, 0}, {0, -2}, {5, 0}, {0, 9}} {
		if _, err := foldsOf(ids); err == nil {
			t.Errorf("%v: no error", ids)
		}
	}
}
