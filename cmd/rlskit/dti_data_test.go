package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// updateDTI regenerates docs/data/dti-*: go test ./cmd/rlskit -run TestDTIData -update-dti
var updateDTI = flag.Bool("update-dti", false, "rewrite the synthetic drug–target files in docs/data")

// The synthetic drug–target interaction data of the tutorial, shaped like
// the kinase-inhibitor binding data of Davis et al. (2011) that drug–target
// papers use: affinities as pKd = −log10(Kd/M), 5 (Kd ≥ 10 µM, no measurable
// binding — the value most pairs take) up to about 10.
//
// Drugs come from 6 chemical scaffolds and targets from 5 kinase families:
// each object has a latent vector (its cluster's centre plus its own
// deviation); the affinity is 5 plus a sigmoid of a bilinear interaction of
// the latent vectors, a drug's promiscuity and a target's druggability, plus
// measurement noise, censored at 5. The features are noisy linear mixtures of
// the latent vectors — 12 descriptors per drug, 10 sequence features per
// target — so the kernels see the objects only through them.
const (
	dtiDrugs    = 60 // training drugs
	dtiNewDrugs = 12 // drugs held back as new
	dtiTargets  = 40
	dtiLatent   = 4
)

type dtiFiles struct {
	drugs, newDrugs, targets     []byte // CSV
	pairs, newPairs              []byte // all pairs of the training drugs; of the new drugs × targets
	trainPairs, valPairs, unseen []byte // 70 % / 10 % / 20 % of the training drugs' pairs
}

func dtiGenerate() dtiFiles {
	rng := rand.New(rand.NewPCG(2011, 11))
	norm := func() float64 { return rng.NormFloat64() }
	cluster := func(n, k int, spread float64) [][]float64 {
		centres := make([][]float64, k)
		for c := range centres {
			centres[c] = make([]float64, dtiLatent)
			for j := range centres[c] {
				centres[c][j] = norm()
			}
		}
		out := make([][]float64, n)
		for i := range out {
			c := centres[rng.IntN(k)]
			out[i] = make([]float64, dtiLatent)
			for j := range out[i] {
				out[i][j] = c[j] + spread*norm()
			}
		}
		return out
	}
	drugs := cluster(dtiDrugs+dtiNewDrugs, 6, 0.5)
	targets := cluster(dtiTargets, 5, 0.4)
	w := make([][]float64, dtiLatent)
	for i := range w {
		w[i] = make([]float64, dtiLatent)
		for j := range w[i] {
			w[i][j] = norm() / 2
		}
	}
	promisc := make([]float64, len(drugs))
	for i := range promisc {
		promisc[i] = 0.6 * norm()
	}
	drug := make([]float64, len(targets))
	for j := range drug {
		drug[j] = 0.6 * norm()
	}
	aff := func(i, j int) float64 {
		s := promisc[i] + drug[j]
		for a := 0; a < dtiLatent; a++ {
			for b := 0; b < dtiLatent; b++ {
				s += drugs[i][a] * w[a][b] * targets[j][b]
			}
		}
		v := 4.6 + 5.4/(1+math.Exp(-1.6*(s-2.5))) + 0.25*norm()
		return math.Round(math.Max(v, 5)*100) / 100
	}
	features := func(lat [][]float64, d int, noise float64) [][]float64 {
		mix := make([][]float64, dtiLatent)
		for a := range mix {
			mix[a] = make([]float64, d)
			for b := range mix[a] {
				mix[a][b] = norm()
			}
		}
		out := make([][]float64, len(lat))
		for i := range lat {
			out[i] = make([]float64, d)
			for b := 0; b < d; b++ {
				v := noise * norm()
				for a := 0; a < dtiLatent; a++ {
					v += lat[i][a] * mix[a][b]
				}
				out[i][b] = math.Round(v*1000) / 1000
			}
		}
		return out
	}
	df := features(drugs, 12, 0.3)
	tf := features(targets, 10, 0.3)
	csv := func(rows [][]float64, prefix string) []byte {
		var b bytes.Buffer
		for j := range rows[0] {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s%02d", prefix, j+1)
		}
		b.WriteByte('\n')
		for _, r := range rows {
			for j, v := range r {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%g", v)
			}
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	var out dtiFiles
	out.drugs, out.newDrugs, out.targets = csv(df[:dtiDrugs], "desc"), csv(df[dtiDrugs:], "desc"), csv(tf, "seq")
	var all, nw, tr, va, un bytes.Buffer
	for _, b := range []*bytes.Buffer{&all, &tr, &va, &un} {
		b.WriteString("# drug target pKd\n")
	}
	nw.WriteString("# new drug (row of dti-drugs-new.csv) target pKd\n")
	for i := 0; i < dtiDrugs+dtiNewDrugs; i++ {
		for j := 0; j < dtiTargets; j++ {
			v := aff(i, j)
			if i >= dtiDrugs {
				fmt.Fprintf(&nw, "%d %d %g\n", i-dtiDrugs, j, v)
				continue
			}
			line := fmt.Sprintf("%d %d %g\n", i, j, v)
			all.WriteString(line)
			switch u := rng.Float64(); {
			case u < 0.7:
				tr.WriteString(line)
			case u < 0.8:
				va.WriteString(line)
			default:
				un.WriteString(line)
			}
		}
	}
	out.pairs, out.newPairs, out.trainPairs, out.valPairs, out.unseen = all.Bytes(), nw.Bytes(), tr.Bytes(), va.Bytes(), un.Bytes()
	return out
}

// The files in docs/data are what dtiGenerate writes (go test -update-dti rewrites them).
func TestDTIData(t *testing.T) {
	g := dtiGenerate()
	for name, content := range map[string][]byte{
		"dti-drugs.csv": g.drugs, "dti-drugs-new.csv": g.newDrugs, "dti-targets.csv": g.targets,
		"dti-pairs.txt": g.pairs, "dti-pairs-new.txt": g.newPairs,
		"dti-pairs-train.txt": g.trainPairs, "dti-pairs-val.txt": g.valPairs, "dti-pairs-unseen.txt": g.unseen,
	} {
		path := filepath.Join("..", "..", "docs", "data", name)
		if *updateDTI {
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (regenerate with go test ./cmd/rlskit -run TestDTIData -update-dti)", err)
		}
		if !bytes.Equal(have, content) {
			t.Errorf("%s differs from what dtiGenerate writes (regenerate with -update-dti)", path)
		}
	}
}
