// Package rlskit is the documentation root of rlskit: regularized
// least-squares learning — kernel ridge regression (RLS), RankRLS, sparse
// subset-of-regressors models, greedy feature selection, learning on pairs
// of objects (Kronecker and two-step RLS) and linear models on data larger
// than memory — with exact cross-validation: one factorization of the kernel
// matrix gives the whole λ path and every hold-out scheme (leave-one-out,
// k-fold, leave-group-out, leave-pair-out, …), each equal, to rounding, to
// retraining on the reduced data.
//
// This package has no code; the library is in its subpackages, one job each,
// in the order data flows:
//
//   - dataset: reads CSV, svmlight, NumPy, Parquet, pairs and fold files;
//     matrix: the sparse (CSR) data matrices;
//   - kernel: kernel matrices (linear, gaussian, polynomial, precomputed);
//   - factor: factorizes them (dual, linear and sparse forms); basis:
//     chooses the basis vectors of sparse models;
//   - learn: the learner contract and registry — each learner package
//     registers a Descriptor (learn.Register) that declares what it needs and
//     what its solutions can do (hold-outs, leave-pair-out, designs of
//     pairs); learners: importing it registers them all;
//   - the learners (below); cg: solves large problems iteratively;
//   - measure: scores predictions (mse, r2, auc, c-index, …);
//   - cv: builds folds and pairs; selection: the one search over kernel
//     settings, λ grids and CV schemes, with the forward-error tie rule,
//     and nested cross-validation of that search; interval: jackknife+ and
//     CV+ prediction intervals from the exact hold-out models;
//   - model: trained predictors and their JSON files; report: draws the CV
//     curves; progress: observes long computations;
//   - plan: turns a fit's flags into a plan; summary: a fit's JSON report —
//     both shared by the front ends; beam: the Apache Beam pipeline.
//
// The learners — rls: kernel ridge regression (RLS); rank: RankRLS; greedy:
// greedy RLS feature selection; pairwise: Kronecker and two-step RLS,
// Kronecker RankRLS and the Kronecker SVM (squared hinge loss);
// pairkernel: RLS with the pairwise kernels of Kronecker form (cartesian,
// symmetric, antisymmetric, ranking and weighted sums) by conjugate
// gradients and the generalized vec trick;
// stream: linear models on data larger than memory; mmc: maximum margin
// clustering by RLS and the interactive RLS classifier.
//
// The front ends are the command-line tool cmd/rlskit (go run ./cmd/rlskit
// demo runs an example on embedded data) and beam's pipeline; the README and
// docs/ describe them.
package rlskit
