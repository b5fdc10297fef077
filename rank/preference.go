package rank

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/internal/linalg"
	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/matrix"
)

// Cost selects how a preference edge's magnitude y enters the cost (Pahikkala et al. 2009, sect. 2.4).
type Cost int

const (
	// Unit is cost (20): z = 1, w = 1 (magnitudes ignored).
	Unit Cost = iota
	// Magnitude is cost (21): z = y, w = 1 (magnitude preserving).
	Magnitude
	// Inverse is cost (22): z = y, w = 1/y (an upper bound on the disagreement error).
	Inverse
)

func (c Cost) String() string {
	switch c {
	case Unit:
		return "unit"
	case Magnitude:
		return "magnitude"
	case Inverse:
		return "inverse"
	}
	return fmt.Sprintf("Cost(%d)", int(c))
}

// Edge is a preference: row I is preferred over row J with the given magnitude
// (≥ 0) and importance weight (> 0; 0 means 1) — learn.Edge, the type every
// front end builds a preference graph of.
type Edge = learn.Edge

// edgeGraph is L = MMᵀ = Σ_e w_e²(e_i − e_j)(e_i − e_j)ᵀ and b = MN = Σ_e w_e² z_e (e_i − e_j),
// built in O(l) (Pahikkala et al. 2009, eq. (18)).
type edgeGraph struct {
	m    int
	t    int
	i, j []int
	w2   []float64
	z    [][]float64 // per edge, one target per output
	adj  [][]int     // row → edges incident to it
}

// maxEdgeScale bounds w²·max(1, z) per edge: sums over up to 10¹⁰⁰ such terms
// times kernel values of any reasonable size stay finite in float64.
const maxEdgeScale = 1e100

func newEdgeGraph(m int, edges []Edge, cost Cost) (*edgeGraph, error) {
	g := &edgeGraph{m: m, t: 1, adj: make([][]int, m)}
	if len(edges) > 0 && edges[0].Magnitudes != nil {
		g.t = len(edges[0].Magnitudes)
		if g.t == 0 {
			return nil, fmt.Errorf("%w: edge 0 has an empty magnitude list", ErrGraph)
		}
		if cost == Inverse && g.t > 1 {
			return nil, fmt.Errorf("%w: the inverse cost weighs each edge by its magnitude, so several outputs cannot share one graph", ErrGraph)
		}
	}
	for n, e := range edges {
		if e.I < 0 || e.I >= m || e.J < 0 || e.J >= m {
			return nil, fmt.Errorf("%w: edge %d (%d, %d) outside rows [0,%d)", ErrGraph, n, e.I, e.J, m)
		}
		if e.I == e.J {
			return nil, fmt.Errorf("%w: edge %d is a self-loop on row %d", ErrGraph, n, e.I)
		}
		mags := e.Magnitudes
		if mags == nil {
			if g.t != 1 {
				return nil, fmt.Errorf("%w: edge %d has no magnitude list, edge 0 has %d", ErrGraph, n, g.t)
			}
			mags = []float64{e.Magnitude}
		}
		if len(mags) != g.t {
			return nil, fmt.Errorf("%w: edge %d has %d magnitudes, edge 0 has %d", ErrGraph, n, len(mags), g.t)
		}
		for _, mg := range mags {
			if mg < 0 || math.IsNaN(mg) || math.IsInf(mg, 0) {
				return nil, fmt.Errorf("%w: edge %d (%d, %d) has magnitude %v, want a finite number ≥ 0", ErrGraph, n, e.I, e.J, mg)
			}
		}
		w := e.Weight
		if w == 0 {
			w = 1
		}
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%w: edge %d (%d, %d) has weight %v, want a finite number > 0", ErrGraph, n, e.I, e.J, e.Weight)
		}
		for _, mg := range mags {
			if w*w*math.Max(1, mg) > maxEdgeScale {
				return nil, fmt.Errorf("%w: edge %d (%d, %d): weight² × magnitude = %g × %g overflows the learner's sums (keep it below %g; rescale the graph)", ErrGraph, n, e.I, e.J, w*w, mg, maxEdgeScale)
			}
		}
		z := make([]float64, g.t)
		switch cost {
		case Magnitude:
			copy(z, mags)
		case Inverse:
			if mags[0] == 0 {
				return nil, fmt.Errorf("%w: edge %d (%d, %d) has magnitude 0, which the inverse cost divides by", ErrGraph, n, e.I, e.J)
			}
			z[0] = mags[0]
			w /= mags[0]
		case Unit:
			for c := range z {
				z[c] = 1
			}
		default:
			return nil, fmt.Errorf("%w: unknown cost %d", ErrGraph, int(cost))
		}
		k := len(g.i)
		g.i, g.j = append(g.i, e.I), append(g.j, e.J)
		g.w2, g.z = append(g.w2, w*w), append(g.z, z)
		g.adj[e.I] = append(g.adj[e.I], k)
		g.adj[e.J] = append(g.adj[e.J], k)
	}
	return g, nil
}

// mulL computes L·X in O(l·k).
func (g *edgeGraph) mulL(x *mat.Dense) *mat.Dense {
	_, k := x.Dims()
	out := mat.NewDense(g.m, k, nil)
	for e := range g.i {
		xi, xj := x.RawRowView(g.i[e]), x.RawRowView(g.j[e])
		oi, oj := out.RawRowView(g.i[e]), out.RawRowView(g.j[e])
		w2 := g.w2[e]
		for c := range oi {
			d := w2 * (xi[c] - xj[c])
			oi[c] += d
			oj[c] -= d
		}
	}
	return out
}

func (g *edgeGraph) b() *mat.Dense {
	out := mat.NewDense(g.m, g.t, nil)
	for e := range g.i {
		oi, oj := out.RawRowView(g.i[e]), out.RawRowView(g.j[e])
		for c, z := range g.z[e] {
			v := g.w2[e] * z
			oi[c] += v
			oj[c] -= v
		}
	}
	return out
}

// components labels the connected components of the undirected graph (union–find).
func (g *edgeGraph) components() []int {
	parent := make([]int, g.m)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for e := range g.i {
		a, b := find(g.i[e]), find(g.j[e])
		if a != b {
			parent[a] = b
		}
	}
	code := map[int]int{}
	out := make([]int, g.m)
	for i := range out {
		r := find(i)
		c, ok := code[r]
		if !ok {
			c = len(code)
			code[r] = c
		}
		out[i] = c
	}
	return out
}

// removal collects the edges incident to U: T = U ∪ their other ends.
func (g *edgeGraph) removal(u []int) ([]int, *mat.Dense, *mat.Dense) {
	seen := map[int]bool{}
	var removed []int
	t := append([]int(nil), u...)
	for _, r := range u {
		for _, e := range g.adj[r] {
			if !seen[e] {
				seen[e] = true
				removed = append(removed, e)
				t = append(t, g.i[e], g.j[e])
			}
		}
	}
	t = sortedUnion(t, nil)
	pos := make(map[int]int, len(t))
	for n, i := range t {
		pos[i] = n
	}
	dl := mat.NewDense(len(t), len(t), nil)
	db := mat.NewDense(len(t), g.t, nil)
	for _, e := range removed {
		a, b, w2 := pos[g.i[e]], pos[g.j[e]], g.w2[e]
		dl.Set(a, a, dl.At(a, a)+w2)
		dl.Set(b, b, dl.At(b, b)+w2)
		dl.Set(a, b, dl.At(a, b)-w2)
		dl.Set(b, a, dl.At(b, a)-w2)
		da, dbb := db.RawRowView(a), db.RawRowView(b)
		for c, z := range g.z[e] {
			da[c] += w2 * z
			dbb[c] -= w2 * z
		}
	}
	return t, dl, db
}

// Preference is RankRLS on an arbitrary preference graph (Pahikkala et al. 2009, eqs. (12)–(17)),
// with one output per edge magnitude (Edge.Magnitudes) under the unit and
// magnitude costs.
type Preference struct {
	*graphModel
}

// FitPreference trains on X (m×d) and the preference graph over its rows.
// Cost: the factor, O(l·k + m·k²) for ΦᵀLΦ and O(k³) for its eigendecomposition.
func FitPreference(x mat.Matrix, edges []Edge, cost Cost, opt Options) (*Preference, error) {
	if err := matrix.Check(x); err != nil {
		return nil, fmt.Errorf("rank: %w: %w", learn.ErrShape, err)
	}
	m, _ := x.Dims()
	if len(edges) == 0 {
		return nil, fmt.Errorf("%w: no edges", ErrGraph)
	}
	g, err := newEdgeGraph(m, edges, cost)
	if err != nil {
		return nil, err
	}
	outs := opt.Outputs
	if outs == nil {
		outs = []string{"score"}
		for c := 1; c < g.t; c++ {
			outs = append(outs, fmt.Sprintf("score%d", c))
		}
	}
	if len(outs) != g.t {
		return nil, fmt.Errorf("rank: %w: %d output names for %d magnitudes per edge", learn.ErrShape, len(outs), g.t)
	}
	d, sc, err := build(x, opt)
	if err != nil {
		return nil, err
	}
	gm, err := newGraphModel(learn.Meta{Name: learn.PrefRank, Data: d, Outputs: outs, Scaler: sc}, g)
	if err != nil {
		return nil, err
	}
	return &Preference{gm}, nil
}

// Solve returns the model at λ: O(m·k), no refactorization.
func (p *Preference) Solve(lambda float64) (*GraphSolution, error) { return p.solve(lambda) }

// Perturbed is the twin of learn.Perturber: every edge's target z_e times s,
// the Laplacian unchanged, the eigenvalues of ΦᵀLΦ moved up by their rounding
// error. O(l + m·k·t).
func (p *Preference) Perturbed(s float64) (learn.Learner, error) {
	eg := p.g.(*edgeGraph)
	scaled := *eg
	scaled.z = make([][]float64, len(eg.z))
	for e, z := range eg.z {
		scaled.z[e] = make([]float64, len(z))
		for c, v := range z {
			scaled.z[e][c] = s * v
		}
	}
	gm := p.withGraph(&scaled, p.meta.Outputs)
	gm.lam = perturbed(gm.lam)
	return &Preference{gm}, nil
}

// Name is learn.PrefRank.
func (p *Preference) Name() learn.Name { return learn.PrefRank }

// Labels is nil: a preference graph, not labels, is what the model learns from.
// Cross-validation scores it against labels given to it separately (in
// package selection, Options.Labels). Preference offers no learn.Relabeler: its
// Laplacian depends on the edges' magnitudes under the inverse cost, and
// permuting a graph's magnitudes is not a null hypothesis about the rows.
func (p *Preference) Labels() *mat.Dense { return nil }

// At is Solve as the learn.Learner contract.
func (p *Preference) At(lambda float64) (learn.Solution, error) { return p.Solve(lambda) }

func linalgMul(a, b *mat.Dense) *mat.Dense { return linalg.Mul(false, false, a, b) }
