package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// logTicks marks a log₁₀ axis: labelled ticks at every m × 10^k (m = 1…9)
// over at most 1.2 decades, at 1, 2 and 5 × 10^k when the range spans at
// most two and a half decades (so that a curve's minimum is
// near a labelled value), else at the powers of ten (every second, fifth, …
// power over very wide ranges), with unlabelled ticks at the other integer
// multiples of each power when there is room.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	span := math.Log10(hi) - math.Log10(lo)
	step := 1
	for (last-first)/step > 8 {
		step++
	}
	var ticks []plot.Tick
	for k := first; k <= last; k++ {
		for m := 1; m <= 9; m++ {
			v := decimal(m, k)
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			labelled := m == 1 && k%step == 0 || span <= 2.5 && (m == 2 || m == 5) || span <= 1.2
			if !labelled && last-first > 6 {
				continue // no minor ticks on a crowded axis
			}
			t := plot.Tick{Value: v}
			if labelled {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// decimal is m·10^k, parsed from its decimal text so that it prints exactly
// ("0.3", not "0.30000000000000004").
func decimal(m, k int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return v
}

// colourScale maps CV values to the heatmap's colour coordinate: log₁₀ of
// the value when the curve plot uses a log axis, else the value; and clipped
// to [Lo, Hi] (in that coordinate) when a few poor cells would otherwise
// take up most of the colours and leave the good region one shade.
type colourScale struct {
	Log    bool
	Lo, Hi float64
	// ClipLow and ClipHigh say that values beyond Lo or Hi exist and are
	// drawn in the end colour.
	ClipLow, ClipHigh bool
}

// at is v's colour coordinate, clamped to [Lo, Hi]; NaN stays NaN.
func (s colourScale) at(v float64) float64 {
	if math.IsNaN(v) {
		return v
	}
	if s.Log {
		v = math.Log10(v)
	}
	return min(max(v, s.Lo), s.Hi)
}

// value is the CV value of colour coordinate c.
func (s colourScale) value(c float64) float64 {
	if s.Log {
		return math.Pow(10, c)
	}
	return c
}

// newColourScale chooses the colour scale of the values: log when logY, and
// clipped on the poor side at the quartile (the 75th percentile when lower is
// better, the 25th when higher is) when the full range is more than three
// times the distance from the best value to that quartile.
func newColourScale(values []float64, logY, higherIsBetter bool) colourScale {
	s := colourScale{Log: logY}
	var t []float64
	for _, v := range values {
		if finite(v) {
			if logY {
				v = math.Log10(v)
			}
			t = append(t, v)
		}
	}
	if len(t) == 0 {
		return colourScale{Lo: 0, Hi: 1}
	}
	slices.Sort(t)
	s.Lo, s.Hi = t[0], t[len(t)-1]
	if len(t) >= 8 {
		q := func(p float64) float64 { return t[int(math.Round(p*float64(len(t)-1)))] }
		if q75 := q(0.75); !higherIsBetter && q75 > s.Lo && s.Hi-s.Lo > 3*(q75-s.Lo) {
			s.Hi, s.ClipHigh = q75, true
		} else if q25 := q(0.25); higherIsBetter && q25 < s.Hi && s.Hi-s.Lo > 3*(s.Hi-q25) {
			s.Lo, s.ClipLow = q25, true
		}
	}
	if !(s.Lo < s.Hi) {
		s.Lo, s.Hi = s.Lo-0.5, s.Hi+0.5
	}
	return s
}

// barTicks labels a colour bar drawn in the colour coordinate of s with CV
// values: log ticks for a log scale, else gonum's default ticks; a clipped
// end is labelled "≥ v" or "≤ v".
type barTicks struct{ s colourScale }

// Ticks implements plot.Ticker.
func (b barTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if b.s.Log {
		for _, t := range (logTicks{}).Ticks(b.s.value(lo), b.s.value(hi)) {
			t.Value = math.Log10(t.Value)
			ticks = append(ticks, t)
		}
	} else {
		ticks = plot.DefaultTicks{}.Ticks(lo, hi)
	}
	// leave room for the clipped end's label
	room := (hi - lo) * 0.08
	kept := ticks[:0]
	for _, t := range ticks {
		if t.Label != "" && (b.s.ClipHigh && t.Value > hi-room || b.s.ClipLow && t.Value < lo+room) {
			t.Label = ""
		}
		kept = append(kept, t)
	}
	if b.s.ClipHigh {
		kept = append(kept, plot.Tick{Value: hi, Label: "≥ " + num(b.s.value(hi))})
	}
	if b.s.ClipLow {
		kept = append(kept, plot.Tick{Value: lo, Label: "≤ " + num(b.s.value(lo))})
	}
	return kept
}

// bluePalette is a white-to-dark-blue palette of n colours, for counts.
type bluePalette int

// Colors implements palette.Palette.
func (n bluePalette) Colors() []color.Color { return sequentialBlue(int(n)) }

// sequentialBlue is a white-to-dark-blue ramp of n colours.
func sequentialBlue(n int) []color.Color {
	from := [3]float64{0xf7, 0xfb, 0xff}
	to := [3]float64{0x08, 0x30, 0x6b}
	out := make([]color.Color, n)
	for i := range out {
		f := float64(i) / float64(max(n-1, 1))
		var c [3]uint8
		for j := range c {
			c[j] = uint8(math.Round(from[j] + f*(to[j]-from[j])))
		}
		out[i] = color.RGBA{c[0], c[1], c[2], 0xff}
	}
	return out
}

// foldTicks labels folds 1…n: every fold when there are at most 20, else
// every ⌈n/10⌉-th (and the last).
type foldTicks struct{ n int }

// Ticks implements plot.Ticker.
func (f foldTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	if f.n > 20 {
		step = (f.n + 9) / 10
	}
	var ticks []plot.Tick
	for i := 1; i <= f.n; i++ {
		t := plot.Tick{Value: float64(i)}
		if (i-1)%step == 0 || i == f.n {
			t.Label = strconv.Itoa(i)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
