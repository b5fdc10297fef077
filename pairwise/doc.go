// Package pairwise is regularized least-squares learning on pairs of objects
// (dyadic data): each label belongs to a pair (u, v) of a row object (say a
// drug) and a column object (say a protein target), each set with its own
// kernel, and the question is how a model does on new pairs of known objects,
// on new drugs, on new targets, or on both new — with exact, nearly free
// cross-validation for each.
//
// # Model
//
// The m row objects have the kernel matrix K (m×m), the q column objects G
// (q×q); a Side holds one set with its kernel and, computed once and shared,
// its eigendecomposition K = U diag(e) Uᵀ (G = V diag(s) Vᵀ). Models are
//
//	f(u, v) = k(u)ᵀ A g(v),   k(u) = (k(u, u_i))_i,  g(v) = (g(v, v_j))_j.
//
// Kronecker RLS (KronRLS; Pahikkala et al. 2013, Stock et al. 2018) is kernel
// ridge regression with the product kernel k(u,u')·g(v,v'), whose kernel
// matrix on a complete grid of labels Y (m×q) is G⊗K:
//
//	vec(A) = (G⊗K + λI)⁻¹ vec(Y)   ⇔   A = U [(UᵀYV) ⊘ (e sᵀ + λ)] Vᵀ.
//
// Two-step RLS (TwoStep; Stock et al. 2016, 2018; Pahikkala et al. 2014) is a
// ridge regression over the rows followed by one over the columns:
//
//	A = (K + λ_r I)⁻¹ Y (G + λ_c I)⁻¹.
//
// Both are spectral filters on the same eigenbasis (Stock et al. 2018,
// sect. 3): training predictions are U [(UᵀYV) ∘ h] Vᵀ with
// h_kl = e_k s_l/(e_k s_l + λ) (Kronecker) or e_k/(e_k + λ_r) · s_l/(s_l + λ_c)
// (two-step). On incomplete labels (n observed pairs) Kronecker RLS is
// trained by conjugate gradients whose products with the sampled kernel
// matrix use the generalized vec trick (Airola & Pahikkala 2018): FitKronCG,
// optionally stopped early on a validation set of pairs.
//
// Every solution gives PairModel, a model.PairPredictor that predicts pairs
// of training or new objects and is saved in its own versioned file format.
//
// Homogeneous networks (rows and columns the same objects, Options.Symmetry)
// use the symmetric or antisymmetric Kronecker kernel
// ½(k(a,c)k(b,d) ± k(a,d)k(b,c)) (Stock et al. 2018, sect. 6): a pair labels
// both orientations (the antisymmetric one with the negated label), which
// makes the model Kronecker RLS on the mirrored labels.
//
// # Cross-validation settings
//
// Pahikkala et al. (2015) and Stock et al. (2018) distinguish four settings;
// a Design names one, with folds of objects for the k-fold variants:
//
//	A  Pairs     a pair's label left out alone; both objects known
//	B  Rows      every pair of a row object (or fold of rows): new rows
//	C  Cols      every pair of a column object (or fold): new columns
//	D  Both      row u, column v and every pair touching either: (u, v) new–new
//	   Vertices  homogeneous networks: a vertex and all its pairs
//
// Each prediction equals retraining on the reduced data, to rounding (the
// tests hold every one to brute force at 1e-8 relative).
//
// # The learner contract
//
// Both closed-form learners join the contract of package learn, so that
// package selection cross-validates them as it does every learner, with the
// one tie rule. KronRLS and TwoStep are learn.Learner (two-step RLS's At(λ)
// solves at (λ, λ); AtBoth at any (λ, λ_c), learn.ColLambdaLearner), cross-
// validate a learn.Design along their λ grid(s) at once
// (CrossValidateDesign, learn.DesignValidator: the n×1 CV predictions of the
// labelled pairs in their given order) and give their Perturbed twin
// (learn.Perturber): the labels times s on both eigendecompositions with
// every eigenvalue moved up by about its rounding error, whose CV
// predictions, divided by s, differ from the learner's by their forward
// error only — the tolerance below which ordinal measures count predictions
// as ties, so a kernel that carries no information (K = I, K = 11ᵀ) cannot
// score by rounding noise. KronRLSDescriptor and TwoStepDescriptor describe
// them to the registry (learn.Register, at init); their method builds and
// caches the sides per kernel setting. The per-row measures of pairs are
// those of package measure scored with each pair's row object as its query
// id ("disagreement", "cindex-row").
//
// # Costs
//
// After the two eigendecompositions, O(m³ + q³) once per kernel setting:
//
//	KronRLS    Solve (residuals, model)          O(mq(m+q)) per λ
//	           A: Y − R ⊘ diag(𝒜)                 O(mq(m+q)) per λ (homogeneous O(m⁴))
//	           B, C: block diagonal in V (or U)   O(mq(m+q)) per λ; folds O(Σ_F |F|²mq)
//	           D: one eigendecomposition of the   O(min(m,q)⁴ + mq·min(m,q)²) once,
//	              smaller side per held-out fold   O(m²q²) per λ (leave-one-out)
//	           hold-out of any pair set H         O(|H|²mq + |H|³)
//	TwoStep    A–D and their folds                 O(mq·max(m,q)) per outer λ,
//	                                               O(mq·min(m,q)) per (λ_r, λ_c)
//	Perturbed  the twin of either learner          O(mq + m + q)
//	KronCG     one conjugate-gradient iteration   O(n(m+q) + mq) for n observed pairs
//	PairModel  predicting n' pairs of m' rows     O(m'm(d+q) + n'q)
//
// where 𝒜 = λ(G⊗K + λI)⁻¹ = (V⊗U) diag(g) (V⊗U)ᵀ, g_kl = λ/(e_k s_l + λ), and
// R = Y − F = U (UᵀYV ∘ g) Vᵀ: the prediction for a held-out set H of pairs is
// Y_H − 𝒜_HH⁻¹ R_H. Setting D for Kronecker RLS has no shortcut that avoids
// factoring per fold — the held-out row and column are coupled through λ, so
// its (m+q−1)-sized hold-out system is not separable; rlskit eigendecomposes
// the side with the cheaper total once per fold of that side (shared by every
// fold of the other side and every λ) and downdates the other side exactly.
// Retraining would cost O(mq(m³ + q³)).
//
// # References
//
// Stock, Pahikkala, Airola, De Baets & Waegeman (2018), A comparative study
// of pairwise learning methods based on kernel ridge regression, Neural
// Computation 30(8). Stock, Pahikkala, Airola, De Baets & Waegeman (2016),
// Efficient pairwise learning using kernel ridge regression: an exact
// two-step method, arXiv:1606.04275. Airola & Pahikkala (2018), Fast
// Kronecker product kernel methods via generalized vec trick, IEEE TNNLS.
// Pahikkala, Airola, Pietilä, Shakyawar, Szwajda, Tang & Aittokallio (2015),
// Toward more realistic drug–target interaction predictions, Briefings in
// Bioinformatics. Pahikkala, Airola, Stock, De Baets & Waegeman (2013),
// Efficient regularized least-squares algorithms for conditional ranking on
// relational data, Machine Learning. Pahikkala, Stock, Airola, Aittokallio,
// De Baets & Waegeman (2014), A two-step learning approach for solving full
// and almost full cold start problems in dyadic prediction, ECML PKDD.
package pairwise
