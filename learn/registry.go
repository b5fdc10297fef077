package learn

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/kernel"
	"github.com/rlskit/rlskit/matrix"
	"github.com/rlskit/rlskit/progress"
)

// ErrUnknown is returned by Lookup for a name no descriptor was registered under.
var ErrUnknown = errors.New("unknown learner")

// Needs says what a learner learns from beyond the rows X it is given.
type Needs uint

const (
	// NeedsLabels: an m×t label matrix Y, one row per training row.
	NeedsLabels Needs = 1 << iota
	// NeedsGroups: a group (query) id per row.
	NeedsGroups
	// NeedsGraph: a preference graph over the rows (Input.Graph); labels,
	// when given, only score the cross-validation.
	NeedsGraph
	// NeedsPairs: row objects (X), column objects (Cols, or X again for a
	// homogeneous network) and labelled (row, column) pairs; Y holds one
	// label per pair.
	NeedsPairs
)

// Has reports whether every need of o is in n.
func (n Needs) Has(o Needs) bool { return n&o == o }

// Loss names the loss a learner minimizes (least squares, or the squared
// hinge of the support vector machine of pairs). Solvers that work
// from the loss rather than from a learner's factorization (conjugate
// gradients, the larger-than-memory statistics) switch on it, never on a
// learner's name.
type Loss int

const (
	// NoLoss: the learner has no loss another solver could minimize for it.
	NoLoss Loss = iota
	// Squared is Σ_i ‖y_i − f(x_i)‖²: regression.
	Squared
	// AllPairs is Σ_{i,j} ((y_i − y_j) − (f_i − f_j))² over all pairs of rows:
	// global ranking (Pahikkala et al. 2009, eq. 3 with the complete graph).
	AllPairs
	// QueryPairs is the same sum over the pairs inside each query.
	QueryPairs
	// GraphPairs is the same sum over the edges of a preference graph.
	GraphPairs
	// PairSquared is the squared loss on the labels of (row, column) pairs.
	PairSquared
	// RowPairs is Σ_i Σ_{j<l} ((Y_ij − Y_il) − (F_ij − F_il))²/q over the
	// pairs of columns inside each row of complete (row, column) pair data:
	// conditional ranking (Pahikkala et al. 2013). Its cross-validation
	// holds out row objects only (a row's centering is over all its columns).
	RowPairs
	// PairSquaredHinge is ½ Σ_h max(0, 1 − y_h f_h)² over labelled (row,
	// column) pairs with labels y_h ∈ {−1, +1}: the Kronecker support vector
	// machine (Airola & Pahikkala 2018). It has no closed form and no exact
	// cross-validation; front ends train it at one λ and check its labels
	// (Loss.Binary) before training.
	PairSquaredHinge
)

// String names the loss in messages: "squared", "all-pairs", "query-pairs",
// "graph-pairs", "pair-squared", "row-pairs", "pair-squared-hinge" ("no"
// for NoLoss).
func (l Loss) String() string {
	switch l {
	case NoLoss:
		return "no"
	case Squared:
		return "squared"
	case AllPairs:
		return "all-pairs"
	case QueryPairs:
		return "query-pairs"
	case GraphPairs:
		return "graph-pairs"
	case PairSquared:
		return "pair-squared"
	case RowPairs:
		return "row-pairs"
	case PairSquaredHinge:
		return "pair-squared-hinge"
	}
	return fmt.Sprintf("loss(%d)", int(l))
}

// Binary reports whether the loss takes the labels −1 and +1 only (the
// squared hinge loss); BadLabel returns the index of the first other label
// of y for such a loss, −1 when there is none or the loss takes any real
// label. O(len(y)).
func (l Loss) Binary() bool { return l == PairSquaredHinge }

// BadLabel: see Binary.
func (l Loss) BadLabel(y []float64) int {
	if !l.Binary() {
		return -1
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return i
		}
	}
	return -1
}

// Param names a learner parameter beyond the kernel and λ: a front end sets
// the Input field of the same name only for a learner whose descriptor lists
// the parameter, and refuses the flag otherwise.
type Param string

// The parameters.
const (
	// ParamCost is Input.Cost: the preference graph's cost (unit, magnitude, inverse).
	ParamCost Param = "cost"
	// ParamQueryNormalize is Input.QueryNormalize: each query's pairs weighed by 1/n_q.
	ParamQueryNormalize Param = "query-normalize"
	// ParamSymmetry is Input.Symmetry: a homogeneous network's symmetry.
	ParamSymmetry Param = "symmetry"
	// ParamSelect is Input.Select: the number of features greedy selection adds.
	ParamSelect Param = "select"
	// ParamColLambda is the second λ of a learner of pairs that has one (Settings.ColLambdas).
	ParamColLambda Param = "col-lambda"
	// ParamBasis is Input.Basis: a subset-of-regressors basis (the sparse form).
	ParamBasis Param = "basis"
	// ParamIntercept is Input.Intercept: an unpenalized intercept b, the
	// model f(x) + b with b free in the loss and absent from the penalty,
	// refit inside every hold-out of the exact cross-validation.
	ParamIntercept Param = "intercept"
	// ParamWeights is Input.Weights: a sample weight per training row, the
	// loss Σ_i w_i‖y_i − f(x_i)‖² + λ‖f‖², every hold-out of the exact
	// cross-validation refit with the weights of the rows it keeps.
	ParamWeights Param = "weights"
	// ParamClusters is Input.Clusters (with Restarts, Seed and Init): the
	// number of clusters of a learner that clusters the rows (mmc).
	ParamClusters Param = "clusters"
	// ParamSteps is Input.Steps: the steps of an interactive labelling
	// (interactive), with Input.Clusters and Input.Init.
	ParamSteps Param = "steps"
)

// Step is one step of an interactive labelling (ParamSteps): Op "ws" sets
// the working set to Rows, "claim" moves N rows into Class, "all" moves
// the whole working set into Class, "descend" runs a descent with the
// balance limit Limit (0: the size of the working set, RLScore's default).
type Step struct {
	Op              string
	Rows            []int
	N, Class, Limit int
}

// Edge is one preference of a graph: row I is preferred over row J by
// Magnitude, and the pair's loss is weighed by Weight (1 when 0).
// Magnitudes, when set, gives one magnitude per output (every edge the same
// number): with the unit and magnitude costs the Laplacian is shared, so t
// outputs cost one training.
type Edge struct {
	I, J       int
	Magnitude  float64
	Weight     float64
	Magnitudes []float64
}

// ObjectPair is a (row object, column object) pair of a learner of pairs:
// 0-based indices into X and Cols.
type ObjectPair struct{ Row, Col int }

// Input is everything a learner can learn from. A descriptor's Needs and
// Params say which fields it reads; the others are left zero by front ends
// and ignored by the learner.
type Input struct {
	// X holds the m training rows (*mat.Dense or *matrix.CSR) or, for a
	// learner of pairs, the row objects.
	X mat.Matrix
	// Y holds the labels: m×t for rows, n×1 for n pairs.
	Y *mat.Dense
	// Outputs names the columns of Y (optional).
	Outputs []string
	// Groups holds a group (query) id per row (NeedsGroups).
	Groups []int
	// Graph is the preference graph (NeedsGraph).
	Graph []Edge
	// Cols holds the column objects of a learner of pairs; nil for a
	// homogeneous network, whose columns are the rows.
	Cols mat.Matrix
	// Pairs are the labelled pairs (NeedsPairs), in the order of Y's rows.
	Pairs []ObjectPair
	// Basis lists the training rows that are basis vectors (ParamBasis).
	Basis []int
	// Intercept adds an unpenalized intercept to the model (ParamIntercept).
	Intercept bool
	// Weights holds a sample weight > 0 per row of X (ParamWeights); nil
	// weighs every row 1.
	Weights []float64
	// Form is the factorization (Auto by default), or Iterative: conjugate
	// gradients on the features, stopped by Tol and MaxIter (0: the
	// solver's defaults).
	Form    Form
	Tol     float64
	MaxIter int
	// Cost is the preference graph's cost: "unit" (default), "magnitude" or "inverse" (ParamCost).
	Cost string
	// QueryNormalize weighs each query's pairs by 1/n_q (ParamQueryNormalize).
	QueryNormalize bool
	// Symmetry is "symmetric" or "antisymmetric" for a homogeneous network
	// (Cols nil), "" for two sets of objects (ParamSymmetry).
	Symmetry string
	// Select is the number of features greedy selection adds (ParamSelect).
	Select int
	// Clusters is the number of clusters of a clustering learner (0: its
	// default), Restarts its number of seeded random starts, Seed their
	// seed and Init, when not nil, its initial labelling: a cluster index
	// per row (ParamClusters).
	Clusters, Restarts int
	Seed               uint64
	Init               []int
	// Fixed lists the rows whose cluster of Init the search never changes
	// (ParamClusters; mmc).
	Fixed []int
	// Steps are the steps of an interactive labelling (ParamSteps).
	Steps []Step
	// Standardize asks a learner that standardizes its own inputs (one whose
	// descriptor sets SelfScaling: the sides of a learner of pairs) to do
	// so; for the others the search standardizes X once.
	Standardize bool
	// ChooseBasis, when set, chooses the basis anew for each kernel setting
	// (a greedy basis selection, say) from the (standardized) rows; it
	// replaces Basis.
	ChooseBasis func(x mat.Matrix, k kernel.Kernel) ([]int, error)
	// Observe, when set, is told of each long step of training before it
	// starts (progress reports).
	Observe progress.Observer
}

// Options returns the training options of a learner on rows for one kernel:
// the kernel, form, basis (chosen for the kernel when ChooseBasis is set),
// intercept, output names and observer. Cost: ChooseBasis's.
func (in *Input) Options(k kernel.Kernel) (Options, error) {
	opt := Options{Kernel: k, Form: in.Form, Basis: in.Basis, Intercept: in.Intercept, Weights: in.Weights, Outputs: in.Outputs, Observe: in.Observe}
	if in.ChooseBasis != nil {
		b, err := in.ChooseBasis(in.X, k)
		if err != nil {
			return opt, err
		}
		opt.Basis = b
	}
	return opt, nil
}

// RowMethod is the method of a learner on rows: for each setting it builds
// the Options (Input.Options) and calls fit on the input's rows.
func RowMethod(in *Input, fit func(x mat.Matrix, opt Options) (Learner, error)) Method {
	if in == nil {
		in = &Input{}
	}
	return func(s Setting) (Learner, error) {
		opt, err := in.Options(s.Kernel)
		if err != nil {
			return nil, err
		}
		return fit(in.X, opt)
	}
}

// Check returns an error wrapping ErrShape for a nil input or one without
// rows (X nil or empty): what every descriptor's New checks first.
func (in *Input) Check() error {
	if in == nil {
		return fmt.Errorf("%w: no input", ErrShape)
	}
	if err := matrix.Check(in.X); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	return nil
}

// Rows is the number of training rows (pairs for a learner of pairs, whose
// rows are its labelled pairs).
func (in *Input) Rows() int {
	if in.Pairs != nil {
		return len(in.Pairs)
	}
	if in.X == nil {
		return 0
	}
	m, _ := in.X.Dims()
	return m
}

// Setting is one point of a kernel grid: the kernel of the rows and, for a
// learner of pairs with two sets of objects, the kernel of the columns.
type Setting struct {
	Kernel    kernel.Kernel
	ColKernel kernel.Kernel
}

// Method trains a learner for one kernel setting: one factorization; every
// λ after it is cheap. A method may cache work shared by settings (a side of
// a learner of pairs is factored once for all settings of the other side).
type Method func(s Setting) (Learner, error)

// Descriptor describes a learner: its name, what it learns from, what it can
// do — declared before any training, so that a front end checks a plan
// (this scheme, this measure, --stream, --solver cg) against it — and how to
// train it. Each learner package exports its descriptor; Register adds it to
// the registry front ends read.
type Descriptor struct {
	// Name is the learner's name (--learner, model files).
	Name Name
	// Summary is one line for help texts.
	Summary string
	// Needs lists the inputs it learns from.
	Needs Needs
	// Caps lists the capabilities of its learners and solutions (every one
	// is asserted on a trained learner by the registry's tests): the
	// cross-validation schemes it has exact shortcuts for, Relabel
	// (permutation tests), Perturb (the forward-error tie rule), and the
	// solvers that can train its loss (CanStream, CanCG).
	Caps []Capability
	// Params lists the learner parameters it takes.
	Params []Param
	// Loss is the loss it minimizes.
	Loss Loss
	// Kernels lists the kernels it takes (nil: every kernel).
	Kernels []string
	// Bias is the default bias of its linear kernel: 1 for regression, 0
	// for the rankers (a pairwise loss cannot see a constant shift).
	Bias float64
	// Measure returns the default measure for a scheme kind ("loo",
	// "kfold", "lpo", "lgo", "lqo", "folds", "pairs", "rows", …).
	Measure func(scheme string) string
	// SelfScaling says its Method standardizes its own inputs when
	// Input.Standardize is set (and records the scaling in its model).
	SelfScaling bool
	// New checks the input against the learner's needs and returns its
	// method. Cost: O(size of the input) for the checks.
	New func(in *Input) (Method, error)
}

// Can reports whether the descriptor declares every capability.
func (d *Descriptor) Can(caps ...Capability) bool {
	for _, c := range caps {
		if !slices.Contains(d.Caps, c) {
			return false
		}
	}
	return true
}

// Takes reports whether the learner takes the parameter.
func (d *Descriptor) Takes(p Param) bool { return slices.Contains(d.Params, p) }

// TakesKernel reports whether the learner takes the kernel name.
func (d *Descriptor) TakesKernel(name string) bool {
	return d.Kernels == nil || slices.Contains(d.Kernels, name)
}

// Require returns an error wrapping ErrCapability naming the learner and the
// first capability it does not declare.
func (d *Descriptor) Require(caps ...Capability) error {
	for _, c := range caps {
		if !slices.Contains(d.Caps, c) {
			return fmt.Errorf("%w: learner %s has no %s", ErrCapability, d.Name, c)
		}
	}
	return nil
}

var (
	regMu    sync.RWMutex
	registry = map[Name]*Descriptor{}
)

// Register adds a learner to the registry, as database/sql.Register adds a
// driver. It panics when the name is empty or taken, or when the
// descriptor has no New, or no Measure: a programming error at start-up.
func Register(d Descriptor) {
	regMu.Lock()
	defer regMu.Unlock()
	switch {
	case d.Name == "":
		panic("learn: Register with an empty name")
	case d.New == nil || d.Measure == nil:
		panic("learn: Register " + string(d.Name) + " without New or Measure")
	case registry[d.Name] != nil:
		panic("learn: Register called twice for " + string(d.Name))
	}
	d.Caps, d.Params, d.Kernels = slices.Clone(d.Caps), slices.Clone(d.Params), slices.Clone(d.Kernels)
	registry[d.Name] = &d
}

// Lookup returns the registered descriptor of a name, or an error wrapping
// ErrUnknown that lists the registered names.
func Lookup(name string) (*Descriptor, error) {
	regMu.RLock()
	d := registry[Name(name)]
	regMu.RUnlock()
	if d == nil {
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknown, name, Names())
	}
	return d, nil
}

// Descriptors returns every registered descriptor, sorted by name.
func Descriptors() []*Descriptor {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]*Descriptor, 0, len(registry))
	for _, d := range registry {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered names, sorted.
func Names() []Name {
	var out []Name
	for _, d := range Descriptors() {
		out = append(out, d.Name)
	}
	return out
}
