package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/sbinet/npyio/npy"
)

// npyCase is a random array of one element type: its .npy bytes and the
// float64 values npyio (the oracle) decodes from them, in file order.
func npyCase(t *testing.T, rng *rand.Rand, descr string, fortran bool, m, c int) ([]byte, []float64) {
	t.Helper()
	n := m * c
	var data any
	switch descr[1:] {
	case "b1":
		v := make([]bool, n)
		for k := range v {
			v[k] = rng.IntN(2) == 1
		}
		data = v
	case "i1":
		v := make([]int8, n)
		for k := range v {
			v[k] = int8(rng.Uint32())
		}
		data = v
	case "u1":
		v := make([]uint8, n)
		for k := range v {
			v[k] = uint8(rng.Uint32())
		}
		data = v
	case "i2":
		v := make([]int16, n)
		for k := range v {
			v[k] = int16(rng.Uint32())
		}
		data = v
	case "u2":
		v := make([]uint16, n)
		for k := range v {
			v[k] = uint16(rng.Uint32())
		}
		data = v
	case "i4":
		v := make([]int32, n)
		for k := range v {
			v[k] = int32(rng.Uint32())
		}
		data = v
	case "u4":
		v := make([]uint32, n)
		for k := range v {
			v[k] = rng.Uint32()
		}
		data = v
	case "i8":
		v := make([]int64, n)
		for k := range v {
			v[k] = int64(rng.Uint64())
		}
		data = v
	case "u8":
		v := make([]uint64, n)
		for k := range v {
			v[k] = rng.Uint64()
		}
		data = v
	case "f4":
		v := make([]float32, n)
		for k := range v {
			v[k] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(60)-30)))
		}
		data = v
	case "f8":
		v := make([]float64, n)
		for k := range v {
			v[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		}
		data = v
	}
	file := npyBytes(descr, fortran, []int{m, c}, data)
	// the oracle: npyio reads the same data as a flat array
	flat := npyBytes(descr, false, []int{n}, data)
	rd, err := npy.NewReader(bytes.NewReader(flat))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, n)
	read := func(p any) {
		if err := rd.Read(p); err != nil {
			t.Fatalf("%s: npyio: %v", descr, err)
		}
	}
	switch descr[1:] {
	case "b1":
		v := make([]bool, n)
		read(&v)
		for k, x := range v {
			if x {
				want[k] = 1
			}
		}
	case "f4":
		v := make([]float32, n)
		read(&v)
		for k, x := range v {
			want[k] = float64(x)
		}
	case "f8":
		read(&want)
	case "i1", "i2", "i4", "i8": // npyio reads integers at their own width
		switch descr[1:] {
		case "i1":
			w := make([]int8, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "i2":
			w := make([]int16, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "i4":
			w := make([]int32, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "i8":
			w := make([]int64, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		}
	default:
		switch descr[1:] {
		case "u1":
			w := make([]uint8, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "u2":
			w := make([]uint16, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "u4":
			w := make([]uint32, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		case "u8":
			w := make([]uint64, n)
			read(&w)
			for k, x := range w {
				want[k] = float64(x)
			}
		}
	}
	return file, want
}

// Every element type, both byte orders and both memory orders read the
// values npyio decodes, bit for bit, at the right row and column — from a
// file of known size (the '<f8' case straight into the matrix) and from a
// stream, whole or a byte at a time.
func TestNpyDecodeMatchesNpyio(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, kind := range []string{"b1", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"} {
		orders := []string{"<", ">"}
		if kind[1] == '1' {
			orders = []string{"|"}
		}
		for _, order := range orders {
			for _, fortran := range []bool{false, true} {
				for _, shape := range [][2]int{{1, 1}, {7, 3}, {1, 9}, {9, 1}, {64, 33}} {
					descr := order + kind
					m, c := shape[0], shape[1]
					file, flat := npyCase(t, rng, descr, fortran, m, c)
					for _, size := range []int64{int64(len(file)), -1} {
						for _, src := range []io.Reader{bytes.NewReader(file), iotest.OneByteReader(bytes.NewReader(file))} {
							x, err := ReadNpy(src, "f", size)
							if err != nil {
								t.Fatalf("%s fortran=%v %dx%d size %d: %v", descr, fortran, m, c, size, err)
							}
							if xr, xc := x.Dims(); xr != m || xc != c {
								t.Fatalf("%s: %d×%d, want %d×%d", descr, xr, xc, m, c)
							}
							for k, want := range flat {
								i, j := k/c, k%c
								if fortran {
									i, j = k%m, k/m
								}
								if got := x.At(i, j); math.Float64bits(got) != math.Float64bits(want) {
									t.Fatalf("%s fortran=%v %d×%d: (%d,%d) = %v, npyio %v", descr, fortran, m, c, i, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}

// A bool stored as a byte other than 0 or 1 is true, as numpy reads it.
func TestNpyBoolNonzero(t *testing.T) {
	file := npyBytes("|b1", false, []int{4}, []uint8{0, 1, 2, 255})
	x, err := ReadNpy(bytes.NewReader(file), "f", int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0, 1, 1, 1} {
		if x.At(i, 0) != want {
			t.Fatalf("element %d = %v, want %v", i, x.At(i, 0), want)
		}
	}
}

// A NaN or an infinity is refused naming its row, column and byte, the
// first in file order, in either memory order, read in place or converted.
func TestNpyNonFiniteNamed(t *testing.T) {
	for _, descr := range []string{"<f8", ">f8", "<f4"} {
		for _, fortran := range []bool{false, true} {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				const m, c = 5, 4
				vals := make([]float64, m*c)
				for k := range vals {
					vals[k] = float64(k)
				}
				vals[13], vals[17] = bad, bad // file order: the first is element 13
				var data any = vals
				size := 8
				if descr == "<f4" {
					v32 := make([]float32, len(vals))
					for k, v := range vals {
						v32[k] = float32(v)
					}
					data, size = v32, 4
				}
				file := npyBytes(descr, fortran, []int{m, c}, data)
				_, err := ReadNpy(bytes.NewReader(file), "f", int64(len(file)))
				var pe *ParseError
				if !errors.As(err, &pe) || !errors.Is(err, ErrNonFinite) {
					t.Fatalf("%s fortran=%v %v: %v", descr, fortran, bad, err)
				}
				i, j := 13/c, 13%c
				if fortran {
					i, j = 13%m, 13/m
				}
				start := int64(len(file) - m*c*size)
				if pe.Row != i+1 || pe.Byte != start+int64(13*size) || !bytes.Contains([]byte(err.Error()), []byte(fmt.Sprintf("column %d:", j+1))) {
					t.Fatalf("%s fortran=%v: %v (row %d byte %d), want row %d column %d byte %d", descr, fortran, err, pe.Row, pe.Byte, i+1, j+1, start+int64(13*size))
				}
			}
		}
	}
}
