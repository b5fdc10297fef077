"""RLScore-compatible API over the Go core: ``from rlskit.rlscore.learner
import RLS`` where RLScore scripts write ``from rlscore.learner import RLS``.

Submodules: learner (RLS, LeaveOneOutRLS, KfoldRLS, LeavePairOutRLS,
GlobalRankRLS, KfoldRankRLS, LeavePairOutRankRLS, QueryRankRLS,
LeaveQueryOutRankRLS, GreedyRLS), measure, kernel, predictor, utilities
(reader, cross_validation, multiclass). See docs/python.md, "RLScore
migration", for what is covered and the conventions followed.
"""

from . import kernel, learner, measure, predictor, utilities  # noqa: F401
