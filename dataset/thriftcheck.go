package dataset

import (
	"errors"
	"fmt"
)

// A Parquet file's metadata (its footer and page headers) is Thrift in the
// compact protocol, and a Thrift decoder allocates what a length field
// declares before it reads the bytes. checkThrift walks one encoded struct
// without allocating and checks every declared length — of binary values,
// lists, sets and maps — against the bytes really present, and bounds the
// memory a decoder would spend on it, so the decoder is only ever handed
// input whose allocations follow its size.

// errThriftShort reports a struct that runs past the bytes given: more bytes
// may complete it (a page header read through a window).
var errThriftShort = errors.New("thrift: the encoding runs past the end of the data")

// Compact protocol types.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
)

// thriftStructCost is the decoder memory counted for every struct: more than
// any Parquet metadata struct takes in Go (format.ColumnChunk, the largest,
// is under 1 KiB).
const thriftStructCost = 1 << 10

// thriftChecker walks compact-protocol bytes.
type thriftChecker struct {
	b      []byte
	pos    int
	cost   int64 // decoder memory counted so far
	budget int64
}

// checkThrift checks the struct encoded at the start of b and returns its
// length in bytes; budget bounds the memory a decoder may spend on it.
func checkThrift(b []byte, budget int64) (int, error) {
	c := &thriftChecker{b: b, budget: budget}
	if err := c.value(thriftStruct, 0); err != nil {
		return 0, err
	}
	return c.pos, nil
}

func (c *thriftChecker) need(n int64) error {
	if n < 0 || n > int64(len(c.b)-c.pos) {
		return errThriftShort
	}
	return nil
}

func (c *thriftChecker) spend(n int64) error {
	c.cost += n
	if c.cost > c.budget {
		return fmt.Errorf("thrift: the metadata would take more than %d bytes of memory to decode", c.budget)
	}
	return nil
}

func (c *thriftChecker) byte1() (byte, error) {
	if err := c.need(1); err != nil {
		return 0, err
	}
	v := c.b[c.pos]
	c.pos++
	return v, nil
}

func (c *thriftChecker) uvarint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b, err := c.byte1()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("thrift: varint longer than 10 bytes")
}

// length reads a size and checks that each of its items, taking at least
// per bytes, fits in what is left.
func (c *thriftChecker) length(per int64) (int64, error) {
	n, err := c.uvarint()
	if err != nil {
		return 0, err
	}
	if n > 1<<31-1 {
		return 0, fmt.Errorf("thrift: size %d", n)
	}
	if err := c.need(int64(n) * per); err != nil {
		return 0, err
	}
	return int64(n), nil
}

// minSize is the fewest bytes a value of type t takes in a container.
func minSize(t byte) int64 {
	switch t {
	case thriftDouble:
		return 8
	case thriftUUID:
		return 16
	}
	return 1
}

func (c *thriftChecker) value(t byte, depth int) error {
	if depth > 64 {
		return errors.New("thrift: nested more than 64 deep")
	}
	switch t {
	case thriftTrue, thriftFalse, thriftByte:
		_, err := c.byte1()
		return err
	case thriftI16, thriftI32, thriftI64:
		_, err := c.uvarint()
		return err
	case thriftDouble:
		if err := c.need(8); err != nil {
			return err
		}
		c.pos += 8
	case thriftUUID:
		if err := c.need(16); err != nil {
			return err
		}
		c.pos += 16
	case thriftBinary:
		n, err := c.length(1)
		if err != nil {
			return err
		}
		c.pos += int(n)
		return c.spend(n + 16)
	case thriftList, thriftSet:
		h, err := c.byte1()
		if err != nil {
			return err
		}
		et := h & 0x0f
		n := int64(h >> 4)
		if n == 15 {
			if n, err = c.length(minSize(et)); err != nil {
				return err
			}
		}
		if err := c.spend(16 * n); err != nil {
			return err
		}
		for k := int64(0); k < n; k++ {
			if err := c.value(et, depth+1); err != nil {
				return err
			}
		}
	case thriftMap:
		n, err := c.length(2)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		kv, err := c.byte1()
		if err != nil {
			return err
		}
		if err := c.spend(32 * n); err != nil {
			return err
		}
		for k := int64(0); k < n; k++ {
			if err := c.value(kv>>4, depth+1); err != nil {
				return err
			}
			if err := c.value(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
	case thriftStruct:
		if err := c.spend(thriftStructCost); err != nil {
			return err
		}
		for {
			h, err := c.byte1()
			if err != nil {
				return err
			}
			if h == 0 {
				return nil
			}
			if h>>4 == 0 {
				if _, err := c.uvarint(); err != nil { // the field id
					return err
				}
			}
			ft := h & 0x0f
			if ft == thriftTrue || ft == thriftFalse {
				continue // a bool field's value is its type
			}
			if err := c.value(ft, depth+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("thrift: unknown type %d", t)
	}
	return nil
}
