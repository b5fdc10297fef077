package main

/*
#include <stdint.h>
*/
import "C"

import (
	"encoding/json"
	"fmt"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/rlskit/rlskit/learn"
	"github.com/rlskit/rlskit/mmc"
	"github.com/rlskit/rlskit/plan"
	"github.com/rlskit/rlskit/summary"
)

// clusterResult is the JSON document of rlskit_result after a clustering
// fit: the summary, and the model's shape (one output per cluster).
type clusterResult struct {
	Summary  *summary.Cluster `json:"summary"`
	NOutputs int              `json:"n_outputs"`
	Width    int              `json:"width"`
	// Clustering says the fit labelled unlabelled rows (no search, no CV).
	Clustering bool `json:"clustering"`
}

// rlskit_init_labels stages an initial labelling for the next rlskit_fit
// (or rlskit_fit_csr) on h, for a learner that clusters unlabelled rows
// (its descriptor takes learn.ParamClusters: mmc): labels[i] in 0 … K−1 is
// row i's cluster, the lines of rlskit fit --init FILE. The m labels are
// copied (O(m)); that fit checks them against X and the setting
// "clusters", consumes them whether it succeeds or not, and refuses them
// for a learner that does not cluster.
//
//export rlskit_init_labels
func rlskit_init_labels(h C.uintptr_t, labels *C.int64_t, m C.int64_t) C.int {
	return call(h, func(s *session) error {
		s.init = nil
		if m < 1 || labels == nil {
			return fmt.Errorf("init: %d labels: want one cluster index per row", m)
		}
		s.init = make([]int, int(m))
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(labels)), int(m)) {
			if v < 0 {
				s.init = nil
				return fmt.Errorf("init: row %d has cluster %d: want 0 … K−1", i, v)
			}
			s.init[i] = int(v)
		}
		return nil
	})
}

// rlskit_fixed_rows stages the rows whose cluster of the staged initial
// labelling (rlskit_init_labels) the next rlskit_fit keeps — rlskit fit
// --fixed FILE (mmc): n distinct 0-based row indices, copied (O(n)); that
// fit checks them against X and consumes them whether it succeeds or not;
// a failed call unstages the initial labelling too.
//
//export rlskit_fixed_rows
func rlskit_fixed_rows(h C.uintptr_t, rows *C.int64_t, n C.int64_t) C.int {
	return call(h, func(s *session) error {
		s.fixed = nil
		if n < 1 || rows == nil {
			s.init = nil // a failed staging unstages the labelling it belongs to
			return fmt.Errorf("fixed: %d rows: want one index or more", n)
		}
		s.fixed = make([]int, int(n))
		for i, v := range unsafe.Slice((*int64)(unsafe.Pointer(rows)), int(n)) {
			if v < 0 {
				s.fixed, s.init = nil, nil // a failed staging unstages the labelling it belongs to
				return fmt.Errorf("fixed: entry %d is row %d: want a 0-based row index", i, v)
			}
			s.fixed[i] = int(v)
		}
		return nil
	})
}

// fitCluster is rlskit_fit for a learner that clusters unlabelled rows (one
// that takes learn.ParamClusters), as rlskit fit does for it: plan.New
// checks the settings ("clusters", "restarts", "seed", one kernel and λ;
// the flags of a supervised fit refused by name), then the registered
// learner's method runs at the plan's kernel and λ from the seeded random
// starts and the staged initial labelling (init, or nil) with its fixed
// rows (fixed, or nil; they need init). The handle keeps
// the one-versus-all RLS model of the labelling (rlskit_predict: one
// output per cluster, the cluster the argmax) and the summary. Cost: the
// learner's (mmc: R from a Cholesky factor and dpotri, O(m³) dual, then about
// 2m–3m moves of O(m) per start).
func (s *session) fitCluster(f *plan.Flags, given map[string]bool, x mat.Matrix, caller []region, init, fixed []int, start time.Time) error {
	f.Data = "(X array)" // plan.New asks for a source of rows
	p, err := plan.New(f, func(name string) bool { return given[name] })
	if err != nil {
		return err
	}
	le := p.Learner
	m, width := x.Dims()
	if f.Clusters > m {
		return fmt.Errorf("--clusters %d: %w: X has %d rows", f.Clusters, mmc.ErrClusters, m)
	}
	if p.Kernels[0].Name == "precomputed" && m != width {
		return fmt.Errorf("X: a precomputed kernel matrix must be square, got %d rows and %d columns", m, width)
	}
	if init != nil {
		if len(init) != m {
			return fmt.Errorf("init: %d labels for the %d rows of X", len(init), m)
		}
		for i, c := range init {
			if c >= f.Clusters {
				return fmt.Errorf("init: row %d has cluster %d outside 0 … %d (--clusters %d)", i, c, f.Clusters-1, f.Clusters)
			}
		}
	}
	if fixed != nil && init == nil {
		return fmt.Errorf("fixed: %d fixed rows keep their clusters of an initial labelling: stage one (init)", len(fixed))
	}
	in := &learn.Input{X: x, Clusters: f.Clusters, Restarts: f.Restarts, Seed: f.Seed, Standardize: f.Standardize,
		Init: init, Fixed: fixed, Observe: s.observer()}
	cs, err := mmc.Run(le, in, p.Kernels[0], p.Lambdas[0])
	if err != nil {
		return err
	}
	pred := cs.Predictor()
	ownPoints(pred, caller)
	out := summary.Clustering(string(le.Name), p.Kernels[0], p.Lambdas[0], m, cs)
	out.Timing = summary.Timing{Train: time.Since(start).Seconds(), Total: time.Since(start).Seconds()}
	doc := clusterResult{Summary: out, NOutputs: len(cs.Counts), Width: width, Clustering: true}
	if s.result, err = json.Marshal(doc); err != nil {
		return err
	}
	s.pred = pred
	return nil
}
