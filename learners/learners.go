// Package learners registers every learner of this module with the learner
// registry of package learn: import it for its side effect,
//
//	import _ "github.com/rlskit/rlskit/learners"
//
// and learn.Lookup, learn.Descriptors and every front end built on them
// (the command line, rlskit-beam, the Python bindings) see rls, the rankers
// (globalrank, queryrank, prefrank), the learners of pairs (kronrls,
// twostep, kronrank, kronsvm), greedy selection and maximum margin
// clustering (mmc). A new learner is its own package, whose
// init calls learn.Register, plus one import here.
package learners

import (
	_ "github.com/rlskit/rlskit/greedy"   // greedy
	_ "github.com/rlskit/rlskit/mmc"      // mmc
	_ "github.com/rlskit/rlskit/pairwise" // kronrls, twostep, kronrank, kronsvm
	_ "github.com/rlskit/rlskit/rank"     // globalrank, queryrank, prefrank
	_ "github.com/rlskit/rlskit/rls"      // rls
)
