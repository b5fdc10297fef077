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
//   - dataset reads CSV, svmlight, NumPy, Parquet, pairs and fold files;
//     matrix holds the sparse (CSR) data matrices;
//   - kernel forms kernel matrices (linear, gaussian, polynomial,
//     precomputed);
//   - factor factorizes them (dual, linear and sparse forms); basis chooses
//     the basis vectors of sparse models;
//   - learn is the learner contract and registry: each learner package
//     registers a Descriptor (learn.Register) that declares what it needs and
//     what its solutions can do (hold-outs, leave-pair-out, designs of pairs);
//     importing learners registers them all;
//   - rls, rank, greedy, pairwise and stream are the learners; cg solves
//     large problems iteratively;
//   - measure scores predictions (mse, r2, auc, c-index, …);
//   - cv builds folds and pairs; selection is the one search over kernel
//     settings, λ grids and CV schemes, with the forward-error tie rule;
//   - model holds trained predictors and their JSON files; report draws
//     the CV curves; progress observes long computations;
//   - plan turns a fit's flags into a plan, summary is a fit's JSON report:
//     both shared by the front ends.
//
// The front ends are the command-line tool cmd/rlskit (go run ./cmd/rlskit
// demo runs an example on embedded data) and the Apache Beam pipeline in
// beam/; the README and docs/ describe them.
package rlskit
