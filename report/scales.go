package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// nearShare is the relative distance from the best value that defines the
// optimum's neighbourhood (values within 10 % of the best), and focusOffset
// the offset c of the focus transform as a fraction of |best| (0.5 %).
const (
	nearShare   = 0.1
	focusOffset = 0.005
)

// Shares of the axis (curve plot, before its padding) and of the colour
// range (heatmap) that the optimum's neighbourhood must at least take: a plot
// whose linear scale gives it less uses the focus transform, and the poor
// end is cut where even that would give less.
const (
	curveNearShare  = 0.3
	colourNearShare = 0.4
)

// focus is the value transform of the CV plots: with e the distance of v
// from the best value b on the poor side (v − b when lower is better, b − v
// when higher is), and c > 0 an offset (0.5 % of |b|, or 10⁻³ of the
// largest distance when b = 0),
//
//	t(v) = log₁₀(e + c)  (lower is better),  −log₁₀(e + c)  (higher is better),
//
// so that t increases with v either way, the best value sits at an end, and
// distances from it are spread logarithmically: values within 10 % of the
// best take log₁₀(1 + 0.1|b|/c) = log₁₀ 21 ≈ 1.32 of the t range, however
// poor the worst value is. Far from b it is a log axis of the distance; near
// b (e ≲ c) it is nearly linear. t is defined for e > −c (the padding
// beyond the best value); values further beyond are held at e = −c(1 − 10⁻⁶).
// Each evaluation is O(1).
type focus struct {
	Best, C float64
	Higher  bool
}

// t is the transformed coordinate of v.
func (f focus) t(v float64) float64 {
	e := v - f.Best
	if f.Higher {
		e = -e
	}
	r := math.Log10(max(e+f.C, f.C*1e-6))
	if f.Higher {
		return -r
	}
	return r
}

// inv is the value whose coordinate is t (the inverse of f.t).
func (f focus) inv(t float64) float64 {
	if f.Higher {
		return f.Best - (math.Pow(10, -t) - f.C)
	}
	return f.Best + math.Pow(10, t) - f.C
}

// Normalize implements plot.Normalizer: x's position between lo and hi in
// the transformed coordinate.
func (f focus) Normalize(lo, hi, x float64) float64 {
	a, b := f.t(lo), f.t(hi)
	return (f.t(x) - a) / (b - a)
}

// poorEnd is the value at distance e from the best on the poor side.
func (f focus) poorEnd(e float64) float64 {
	if f.Higher {
		return f.Best - e
	}
	return f.Best + e
}

// span describes the finite values of a plot relative to its best one: the
// best value, the largest distance from it on the poor side, and the worst
// value. ok is false when there are no finite values.
type span struct {
	Best, Dist, Worst float64
	ok                bool
}

// newSpan scans values (NaN and ±Inf are left out) in O(n).
func newSpan(values []float64, higher bool) span {
	s := span{}
	for _, v := range values {
		if !finite(v) {
			continue
		}
		if !s.ok {
			s = span{Best: v, Worst: v, ok: true}
			continue
		}
		if higher {
			s.Best, s.Worst = max(s.Best, v), min(s.Worst, v)
		} else {
			s.Best, s.Worst = min(s.Best, v), max(s.Worst, v)
		}
	}
	s.Dist = math.Abs(s.Worst - s.Best)
	return s
}

// focusFor chooses the scale of values whose neighbourhood of the optimum
// (within 10 % of the best) must take at least share of the axis: linear
// (ok false) when it already does, 0.1|b| ≥ share·(largest distance); else
// the focus transform, with cut the distance from the best beyond which
// values are drawn at the axis end, chosen so that log₁₀ 21 is share of
// log₁₀(1 + cut/c), that is cut = c·(21^(1/share) − 1) (+Inf when the best
// is 0, whose neighbourhood is a point: then c = 10⁻³ of the largest
// distance and nothing is cut).
func focusFor(s span, higher bool, share float64) (f focus, cut float64, ok bool) {
	if !s.ok || !(s.Dist > 0) {
		return focus{}, 0, false
	}
	near := nearShare * math.Abs(s.Best)
	if near >= share*s.Dist {
		return focus{}, 0, false
	}
	f = focus{Best: s.Best, C: focusOffset * math.Abs(s.Best), Higher: higher}
	cut = math.Inf(1)
	if f.C == 0 {
		f.C = 1e-3 * s.Dist
	} else {
		cut = f.C * (math.Pow(1+near/f.C, 1/share) - 1)
	}
	return f, cut, true
}

// focusTicks labels an axis in the measure's values when it is drawn with
// the focus transform: the best value (printed to 4 significant digits),
// then round values — multiples of 1, 2 and 5 × 10^k, the roundest first
// (larger steps before smaller, each step's multiples from the best outward)
// — kept when at least minTickGap of the axis (in the transformed
// coordinate) from every kept tick. A step is tried only up to 10 steps
// from the best, so that fine steps label the neighbourhood of the best and
// not the far values (no 6600 between 5000 and 10000); each step adds at
// most 11 candidates, and the ticks cost O(k·11·ticks) for k = the steps
// between c and the range.
type focusTicks struct{ f focus }

// minTickGap is the least distance between two labelled ticks of a focus
// axis or colour bar, as a share of its length.
const minTickGap = 0.1

// Ticks implements plot.Ticker.
func (ft focusTicks) Ticks(lo, hi float64) []plot.Tick {
	f := ft.f
	tlo, thi := f.t(lo), f.t(hi)
	if !(thi > tlo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	pos := func(v float64) float64 { return (f.t(v) - tlo) / (thi - tlo) }
	var kept []float64
	try := func(v float64) {
		if v < lo || v > hi {
			return
		}
		p := pos(v)
		for _, k := range kept {
			if math.Abs(pos(k)-p) < minTickGap || k == v {
				return
			}
		}
		kept = append(kept, v)
	}
	if b := f.Best; b >= lo && b <= hi {
		try(b)
	}
	far := math.Max(math.Abs(hi-f.Best), math.Abs(lo-f.Best))
	top := int(math.Ceil(math.Log10(far)))
	bottom := int(math.Floor(math.Log10(f.C)))
	for k := top; k >= bottom && k > top-30; k-- {
		for _, m := range []int{5, 2, 1} {
			step := decimal(m, k)
			// multiples of step from the best outward, up to 50 steps away
			first := math.Ceil(f.Best / step)
			if f.Higher {
				first = math.Floor(f.Best / step)
			}
			for i := 0; ; i++ {
				n := first + float64(i)
				if f.Higher {
					n = first - float64(i)
				}
				v := n * step
				if n == 0 {
					v = 0
				}
				if math.Abs(v-f.Best) > 10*step {
					break
				}
				v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64) // 0.30000000000000004 → 0.3
				try(v)
			}
		}
	}
	slices.Sort(kept)
	ticks := make([]plot.Tick, len(kept))
	for i, v := range kept {
		l := strconv.FormatFloat(v, 'g', -1, 64)
		if a := math.Abs(v); a >= 1e-4 && a < 1e7 {
			l = strconv.FormatFloat(v, 'f', -1, 64)
		}
		if v == f.Best {
			l = num(v)
		}
		ticks[i] = plot.Tick{Value: v, Label: l}
	}
	return ticks
}

// decimal is m·10^k, parsed from its decimal text so that it prints exactly
// ("0.3", not "0.30000000000000004").
func decimal(m, k int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return v
}

// colourScale maps CV values to the heatmap's colour coordinate, which
// increases with the value: the value itself (Focus nil), or the focus
// transform's t (when the values within 10 % of the best would take less
// than 40 % of a linear colour range), clamped to [Lo, Hi].
type colourScale struct {
	Focus  *focus
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
	if s.Focus != nil {
		v = s.Focus.t(v)
	}
	return min(max(v, s.Lo), s.Hi)
}

// value is the CV value of colour coordinate c.
func (s colourScale) value(c float64) float64 {
	if s.Focus != nil {
		return s.Focus.inv(c)
	}
	return c
}

// newColourScale chooses the colour scale of the values (focusFor with a
// 40 % share): linear from the best to the worst value, or the focus
// transform, its colours stopping at the cut on the poor side (the high end
// when lower is better, the low end when higher is). O(n).
func newColourScale(values []float64, higherIsBetter bool) colourScale {
	sp := newSpan(values, higherIsBetter)
	if !sp.ok {
		return colourScale{Lo: 0, Hi: 1}
	}
	s := colourScale{Lo: min(sp.Best, sp.Worst), Hi: max(sp.Best, sp.Worst)}
	if f, cut, ok := focusFor(sp, higherIsBetter, colourNearShare); ok {
		s.Focus = &f
		end := sp.Worst
		if sp.Dist > cut {
			end = f.poorEnd(cut)
			s.ClipHigh, s.ClipLow = !higherIsBetter, higherIsBetter
		}
		s.Lo, s.Hi = min(f.t(sp.Best), f.t(end)), max(f.t(sp.Best), f.t(end))
	}
	if !(s.Lo < s.Hi) {
		s.Lo, s.Hi = s.Lo-0.5, s.Hi+0.5
	}
	return s
}

// barTicks labels a colour bar drawn in the colour coordinate of s with CV
// values: focusTicks for a focus scale, else gonum's default ticks; a
// clipped end is labelled "≥ v" or "≤ v".
type barTicks struct{ s colourScale }

// Ticks implements plot.Ticker.
func (b barTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	if f := b.s.Focus; f != nil {
		for _, t := range (focusTicks{*f}).Ticks(b.s.value(lo), b.s.value(hi)) {
			t.Value = f.t(t.Value)
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
