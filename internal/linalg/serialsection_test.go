package linalg

import (
	"testing"
	"time"
)

// SerialSection: one thread while any section is open, however they nest
// and overlap — a SerialBLAS call inside one included — and the count from
// before the first restored when the last ends, once, however often end is
// called; a section begun while SerialBLAS runs restores the count from
// before that call too.
func TestSerialSection(t *testing.T) {
	before := blasThreads()
	end1 := SerialSection()
	end2 := SerialSection()
	if n := blasThreads(); n != 1 {
		t.Errorf("two sections open: %d threads", n)
	}
	end1()
	end1() // a second call does nothing: the other section stays open
	inside := 0
	SerialBLAS(func() { inside = blasThreads() })
	if n := blasThreads(); n != 1 || inside != 1 {
		t.Errorf("one section open: %d threads (SerialBLAS inside: %d)", n, inside)
	}
	end2()
	if n := blasThreads(); n != before {
		t.Errorf("every section ended: %d threads, want %d", n, before)
	}
	begun := make(chan struct{})
	ended := make(chan func())
	SerialBLAS(func() {
		go func() {
			close(begun)
			ended <- SerialSection() // waits for SerialBLAS to return
		}()
		<-begun
		time.Sleep(time.Millisecond)
	})
	end := <-ended
	if n := blasThreads(); n != 1 {
		t.Errorf("a section begun during SerialBLAS: %d threads", n)
	}
	end()
	if n := blasThreads(); n != before {
		t.Errorf("after SerialBLAS and the section: %d threads, want %d", n, before)
	}
}
