package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestFitSparseDesigns(t *testing.T) {
	dir := t.TempDir()
	data := writeCSV(t, dir, 60, 8)
	grouped := writeSVM(t, dir, 40, 8, 9)
	cases := []struct {
		name     string
		args     []string
		strategy string
		policy   string
		nBasis   int
	}{
		{"kfold remove (default)", []string{"--basis", "11", "--cv", "kfold:5"}, "kfold:5", "remove", 11},
		{"kfold keep", []string{"--basis", "11", "--cv", "kfold:5", "--basis-holdout", "keep"}, "kfold:5", "keep", 11},
		{"loo keep (default)", []string{"--basis", "11"}, "loo", "keep", 11},
		{"loo skip", []string{"--basis", "11", "--basis-holdout", "skip"}, "loo", "skip", 11},
		{"loo remove", []string{"--basis", "11", "--basis-holdout", "remove"}, "loo", "remove", 11},
		{"design 1", []string{"--basis", "11", "--cv", "kfold:5", "--basis-design", "1"}, "kfold:5,basis-design:1", "remove", 11},
		{"design 2", []string{"--basis", "10", "--cv", "kfold:5", "--basis-design", "2"}, "kfold:5,basis-design:2", "remove", 10},
		{"design 3", []string{"--basis", "10", "--cv", "kfold:5", "--basis-design", "3"}, "kfold:5,basis-design:3", "remove", 10},
		{"greedy", []string{"--basis", "8", "--basis-select", "greedy"}, "loo", "keep", 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--gamma", "0.3",
				"--lambda-grid", "0.01,1", "--quiet", "--model", filepath.Join(dir, "m.json")}, c.args...)
			stdout, _, err := run(t, "", args...)
			if err != nil {
				t.Fatal(err)
			}
			o := decodeFit(t, stdout)
			if o.CV.Strategy != c.strategy || o.CV.BasisHoldOut != c.policy || o.NBasis != c.nBasis || o.Form != "sparse" {
				t.Errorf("got strategy %q policy %q basis %d form %s", o.CV.Strategy, o.CV.BasisHoldOut, o.NBasis, o.Form)
			}
		})
	}
	// one basis vector per query
	stdout, _, err := run(t, "", "fit", "--data", grouped, "--kernel", "gaussian", "--basis-select", "per-group", "--lambda", "1", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if o := decodeFit(t, stdout); o.NBasis != 8 {
		t.Errorf("per-group basis of %d vectors, want 8", o.NBasis)
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"--basis-holdout", "remove"}, "sparse models"},
		{[]string{"--basis", "5", "--basis-holdout", "skip", "--cv", "kfold:3"}, "leave-one-out design"},
		{[]string{"--basis", "5", "--basis-holdout", "drop"}, "want remove"},
		{[]string{"--basis-select", "greedy"}, "needs --basis N"},
		{[]string{"--basis-select", "best", "--basis", "3"}, "want random"},
		{[]string{"--basis", "5", "--basis-design", "1"}, "--cv kfold:K"},
		{[]string{"--basis", "5", "--cv", "kfold:3", "--basis-design", "4"}, "want 1, 2 or 3"},
		{[]string{"--basis-select", "per-group"}, "group ids"},
		{[]string{"--basis", "61"}, "more basis vectors"},
	}
	for _, c := range bad {
		args := append([]string{"fit", "--data", data, "--label", "y", "--kernel", "gaussian", "--lambda", "1", "--quiet"}, c.args...)
		_, _, err := run(t, "", args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want it to mention %q", c.args, err, c.want)
		}
	}
}
