package main

import (
	"flag"
	"testing"

	"github.com/rlskit/rlskit/plan"
)

// TestFlags: rlskit-beam defines every flag of rlskit fit next to Beam's
// own; only --labels, which Beam's Dataflow runner defines (job labels) and
// which does not apply to a streaming fit, may be Beam's.
func TestFlags(t *testing.T) {
	fit := flag.NewFlagSet("fit", flag.ContinueOnError)
	plan.Define(fit, &plan.Flags{})
	plan.Define(beside{flag.CommandLine}, &plan.Flags{})
	fit.VisitAll(func(fl *flag.Flag) {
		got := flag.CommandLine.Lookup(fl.Name)
		switch {
		case got == nil:
			t.Errorf("--%s is not defined", fl.Name)
		case fl.Name == "labels":
			// Dataflow's job labels (or fit's, which a streaming fit refuses)
		case got.Usage != fl.Usage || got.DefValue != fl.DefValue:
			t.Errorf("--%s is defined by Beam too (%q): rlskit-beam would not take fit's", fl.Name, got.Usage)
		}
	})
}
