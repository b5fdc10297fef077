// Package stream fits linear and fixed-basis RLS and RankRLS on data larger
// than memory, with exact cross-validation over the whole λ grid, from
// additive statistics gathered in one or two passes over the rows.
//
// # The math
//
// For the linear kernel the features of a row are z = [x, √bias] (over a fixed
// basis B, z = K_BB^{-1/2} k(B, x)), and everything the learners compute is a
// function of sums over rows:
//
//	RLS              S_f = Σ_{i∈f} z_i z_iᵀ, c_f = Σ z_i y_iᵀ, Σ y_i², n_f  per fold f;
//	                 w(λ) = (S + λI)⁻¹c,  w₋f = (S − S_f + λI)⁻¹(c − c_f),
//	                 Σ_{i∈f}(y_i − z_iᵀw₋f)² = Σy² − 2w₋fᵀc_f + w₋fᵀS_f w₋f   (no second pass)
//	GlobalRankRLS    ZᵀLZ = nS − ssᵀ (s = Σz), per fold the training part's n, S, s
//	QueryRankRLS     ZᵀLZ = Σ_q (n_q S_q − s_q s_qᵀ): leave-query-out subtracts one query's term
//
// (Pahikkala et al. 2009 for RankRLS; Rifkin & Lippert 2007 for RLS). With
// Options.Intercept RLS fits f(z) = zᵀw + b with b unpenalized, refit on
// every training set T from the same sums: w = (C_T + λI)⁻¹c_T with the
// centred C_T = S_T − s_T s_Tᵀ/n_T, c_T = Z_TᵀY_T − s_T(Σ_T y)ᵀ/n_T, and
// b = (Σ_T y − wᵀs_T)/n_T — no extra statistics, pass or memory. The
// rankers refuse it (their pairwise losses cancel any constant). The
// statistics of every fold (Moments, RankMoments) are gathered in one pass;
// the training set of fold f is the total minus f, subtracted in
// double-double; one eigendecomposition per training set gives every λ
// (O(K·p³) in all, then O(p²t) per fold and λ). Measures other than the
// squared error, and leave-one-out (whose predictions need each row's
// leverage z_iᵀ(S + λI)⁻¹z_i, from the one eigendecomposition of S; for
// query ranking a rank-one downdate per row of H minus its query's scatter),
// take a second pass that applies the per-fold solutions to the rows; leave-group-out
// with many groups, and query ranking, hand the accumulators whole groups,
// wherever their rows lie.
//
// Prediction intervals (Options.Interval): CV+ reads the fold paths at the
// chosen λ, the jackknife+ every row's leave-one-out model from the total's
// eigendecomposition (f₋ᵢ = f − H(·, z_i)(y_i − f(z_i))/(1 − h_i)); one more
// row pass forms the rows' hold-out residuals, O(m) in the model (interval.go).
//
// # Numerics
//
// Rows are summed in blocks of 32 by syrk/gemm, and the blocks' sums are added
// to double-double accumulators (Dekker 1971; Knuth's TwoSum, an FMA TwoProd),
// about the mean of the first rows (the pilot), so neither the number of rows
// nor the features' offset costs digits. The solver works about each training
// set's own mean: RLS eliminates the bias weight exactly (a Schur complement),
// leaving (C + λI + ρμμᵀ)w = c + ρμȳᵀ with C the centred scatter, and the mean
// squared error of a fold is formed in double-double from the sums, so the
// cancellation between its terms costs nothing. A feature that no row of a
// training set holds (or, standardized, that every row holds at a zero's
// value) is a constant column there — counted exactly per feature, whatever
// the width of the chunks its rows came in — and is solved exactly, outside
// the eigendecomposition, instead of as the rounding noise its shifted sums
// leave. Standardization sums each feature scaled by a power of two, as
// model.FitScaler does. TestAccuracy10e7 states the accuracy reached on 10⁷
// rows against a double-double reference; TestStreamReliabProperty holds
// random shardings, chunk widths and byte-range cuts to the in-memory
// learners and to a direct retraining.
//
// # Ties
//
// The plan reads the loss a learner declares (Options.Loss: the squared,
// all-pairs or query-pairs loss; zero takes it from the learner's registered
// descriptor), never its name, and parses the CV spec once
// (selection.ParseSpec). Ordinal measures (auc, cindex, disagreement,
// spearman) score with the one tie rule of every learner family
// (selection.ScoreWithin): hold-out predictions closer than their forward
// error are ties, and a λ whose predictions are all within it is
// Indistinguishable — features that carry no information score the tie
// value, not rounding noise. The forward error is measured as the
// in-memory learners measure it, by a twin (path.twin): every training
// set's statistics solved a second time — labels times selection.TwinScale,
// the p×p matrix eigendecomposed anew, its eigenvalues, the mean and the
// accumulated right-hand side moved by about their rounding error — and its
// hold-out predictions computed in the same pass; selection.NoiseTolerance turns the difference into the
// tolerance. Cost, for ordinal measures only: a second O(p³) per training
// set and twice the prediction pass's arithmetic. TestTwinToleranceBoundsError
// holds the tolerance to the error against 300-bit retraining. The chosen λ
// at an end of its grid, in any order, is reported in Result.OnEdge
// (selection.GridEdge).
//
// # Engines
//
// A Plan does every computation; an engine only moves rows and accumulators.
// Run is the engine for files on one machine (gzip, many shards, all cores);
// the nested module github.com/rlskit/rlskit/beam runs the same Plan as an
// Apache Beam pipeline. The fold of a row under k-fold is Fold — a hash of the
// row's content and the seed — so every engine assigns the same folds.
//
//	plan, _ := stream.NewPlan(opt)
//	_ = plan.SetPilot(firstRows)
//	for pass, more := plan.Next(); more; pass, more = plan.Next() {
//		acc, _ := plan.NewAccumulator()  // one per worker; AddChunk or AddGroup; Merge
//		_ = plan.Finish(merged, store)   // store: predictions, when pass.Predictions
//	}
//	res, _ := plan.Result()             // CV curve, best λ, model on every row
//
// Memory: O(K·p² + p·t) for the statistics (K folds, or groups while they are
// few), the rows of incomplete groups in a grouped pass, and for measures
// that need every prediction a Store on disk scored one λ at a time (O(m·t)).
package stream
