package main

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadSteps: any --steps file is steps within the data's m rows and k
// classes, or an error naming the file — never a panic, never more than m
// rows in a working set.
func FuzzReadSteps(f *testing.F) {
	for _, s := range []string{"ws 0-3,5\nclaim 2 1\nall 0\ndescend 10\n", "# c\n\nws all\ndescend\n", "ws 9-2\n", "claim -1 0\n", "ws 0,0,0\n"} {
		f.Add([]byte(s), uint8(6), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, mb, kb uint8) {
		m, k := int(mb)%50+1, int(kb)%4+2
		steps, err := readSteps(bytes.NewReader(data), "steps.txt", m, k)
		if err != nil {
			if !strings.Contains(err.Error(), "steps.txt") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		for i, s := range steps {
			if len(s.Rows) > m {
				t.Fatalf("step %d: %d rows of %d", i, len(s.Rows), m)
			}
			for _, r := range s.Rows {
				if r < 0 || r >= m {
					t.Fatalf("step %d: row %d outside 0..%d", i, r, m-1)
				}
			}
			if s.Class < 0 || s.Class >= k {
				t.Fatalf("step %d: class %d of %d", i, s.Class, k)
			}
		}
	})
}

// FuzzReadClusterLabels: any --init file is m cluster indices in [0, k),
// or an error naming the file — never a panic.
func FuzzReadClusterLabels(f *testing.F) {
	for _, s := range []string{"0\n1\n2\n0\n", "# x\n\n1\n1\n", "3\n", "0\n1\n0\n1\n0\n"} {
		f.Add([]byte(s), uint8(4), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, mb, kb uint8) {
		m, k := int(mb)%50+1, int(kb)%4+2
		labels, err := readClusterLabels(bytes.NewReader(data), "init.txt", m, k)
		if err != nil {
			if !strings.Contains(err.Error(), "init.txt") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if len(labels) != m {
			t.Fatalf("%d labels for %d rows", len(labels), m)
		}
		for i, l := range labels {
			if l < 0 || l >= k {
				t.Fatalf("row %d: cluster %d of %d", i, l, k)
			}
		}
	})
}
