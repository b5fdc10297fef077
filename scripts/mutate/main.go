// Command mutate is rlskit's mutation tester: it makes small faults in the
// exactness code (one operator at a time), runs the package's tests on each,
// and reports per package how many of those faults the tests catch.
//
// A mutant changes one token of a non-test source file:
//
//	arithmetic   + ↔ -,  * ↔ /,  % → *         (and += ↔ -=, *= ↔ /=)
//	boundary     < → <=, <= → <, > → >=, >= → >
//	negation     == ↔ !=, < → >=, <= → >, > → <=, >= → <
//	logical      && ↔ ||,  !x → x
//	sign         -x → x
//	step         ++ ↔ --
//
// It is applied through `go test -overlay`, so the working tree is never
// touched and an interrupted run leaves nothing behind. A mutant whose package
// no longer compiles is "invalid" and not counted; one the tests fail on (or
// time out on) is "killed"; one they pass is "survived" — unless it is listed
// in the equivalents file with the reason it computes the same results, in
// which case it is "equivalent". The score is killed / (killed + survived).
//
// A mutant's identity — package/file:function:operator:original:k, where k
// numbers the identical (function, operator, original) sites in file order —
// does not change when unrelated code moves, so a report and its equivalents
// file stay valid across edits.
//
// Usage:
//
//	go run ./scripts/mutate -pkgs rls,rank -sample 40 -seed 1 -report mutation.json
//	go run ./scripts/mutate -recheck mutation.json -sample 12   # killed mutants must stay killed
//	go run ./scripts/mutate -list -pkgs cv                       # the mutants, not run
//	go run ./scripts/mutate -markdown mutation.json              # the report as a Markdown table
//
// See scripts/mutation.sh for the run that produced docs/mutation.md.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Mutant is one single-token change to one source file.
type Mutant struct {
	ID       string `json:"id"`
	Pkg      string `json:"pkg"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Func     string `json:"func"`
	Operator string `json:"operator"`
	From     string `json:"from"`
	To       string `json:"to"`
	Snippet  string `json:"snippet"`
	offset   int
	length   int
}

// Outcome of running one mutant.
type Outcome struct {
	Mutant
	Status string  `json:"status"` // killed, survived, equivalent, invalid, timeout
	Reason string  `json:"reason,omitempty"`
	Secs   float64 `json:"secs"`
	Test   string  `json:"test,omitempty"` // the first failing test, when killed
}

// Report is what a run writes.
type Report struct {
	Seed     uint64             `json:"seed"`
	Sample   int                `json:"sample"`
	Total    map[string]int     `json:"total"` // mutants per package before sampling
	Outcomes []Outcome          `json:"outcomes"`
	Summary  map[string]Summary `json:"summary"`
	Started  string             `json:"started"`
	Duration float64            `json:"duration_secs"`
	GoFlags  string             `json:"go_test_flags"`
	// Updates records each -update pass: the same sample, its survivors
	// and timeouts rerun against the tests of that day.
	Updates []Update `json:"updates,omitempty"`
}

// Update is one -update pass over a report.
type Update struct {
	At       string `json:"at"`
	Rerun    int    `json:"rerun"`    // survived and timed-out outcomes rerun
	Killed   int    `json:"killed"`   // of those, now killed (timeouts included)
	Equiv    int    `json:"equiv"`    // now listed as equivalent
	Survived int    `json:"survived"` // still surviving
	Stale    int    `json:"stale"`    // mutant no longer in the code: outcome dropped
}

// Summary per package.
type Summary struct {
	Mutants    int     `json:"mutants"` // run (sampled), invalid excluded
	Killed     int     `json:"killed"`  // timeouts included
	Equivalent int     `json:"equivalent"`
	Survived   int     `json:"survived"`
	Score      float64 `json:"score"` // killed / (killed + survived)
}

var (
	flagPkgs     = flag.String("pkgs", "rls,rank,pairwise,greedy,stream,cv,factor,selection", "comma-separated package directories")
	flagSample   = flag.Int("sample", 0, "mutants per package, drawn at random (0: all)")
	flagSeed     = flag.Uint64("seed", 1, "random seed for the sample")
	flagReport   = flag.String("report", "", "write the JSON report here")
	flagEquiv    = flag.String("equivalent", "scripts/mutate/equivalent", "directory of equivalent mutants: files *.txt of lines ID<TAB>reason")
	flagOnly     = flag.String("only", "", "only the mutants whose ID contains this string (before sampling)")
	flagList     = flag.Bool("list", false, "list the mutants and stop")
	flagRecheck  = flag.String("recheck", "", "rerun a sample of this report's killed mutants; fail if one survives")
	flagUpdate   = flag.String("update", "", "rerun this report's survived and timed-out mutants with the current tests and equivalents, and rewrite it")
	flagMarkdown = flag.String("markdown", "", "print this report as Markdown and stop")
	flagTimeout  = flag.Duration("timeout", 0, "per-mutant time limit (default: 3 × the unmutated run, at least 60 s)")
	flagShort    = flag.Bool("short", false, "run the tests with -short")
	flagVerbose  = flag.Bool("v", false, "print every outcome")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *flagMarkdown != "" {
		r, err := readReport(*flagMarkdown)
		if err != nil {
			return err
		}
		writeMarkdown(os.Stdout, r)
		return nil
	}
	equiv, err := readEquivalents(*flagEquiv)
	if err != nil {
		return err
	}
	if *flagRecheck != "" {
		return recheck(ctx, *flagRecheck, equiv)
	}
	if *flagUpdate != "" {
		return update(ctx, *flagUpdate, equiv)
	}
	pkgs := strings.Split(*flagPkgs, ",")
	rng := rand.New(rand.NewPCG(*flagSeed, 0x6d757461))
	report := &Report{Seed: *flagSeed, Sample: *flagSample, Total: map[string]int{},
		Summary: map[string]Summary{}, Started: time.Now().UTC().Format(time.RFC3339), GoFlags: testFlags()}
	start := time.Now()
	for _, pkg := range pkgs {
		all, err := Enumerate(pkg)
		if err != nil {
			return err
		}
		report.Total[pkg] = len(all)
		if *flagOnly != "" {
			var keep []Mutant
			for _, m := range all {
				if strings.Contains(m.ID, *flagOnly) {
					keep = append(keep, m)
				}
			}
			all = keep
		}
		if *flagList {
			for _, m := range all {
				fmt.Printf("%s\t%s:%d\t%s\n", m.ID, m.File, m.Line, m.Snippet)
			}
			continue
		}
		sample := all
		if *flagSample > 0 && *flagSample < len(all) {
			sample = draw(rng, all, *flagSample)
		}

		out, err := runPackage(ctx, pkg, sample, equiv)
		if err != nil {
			return err
		}
		report.Outcomes = append(report.Outcomes, out...)
		report.Summary[pkg] = summarize(out)
		s := report.Summary[pkg]
		fmt.Printf("%-10s %4d of %4d mutants: killed %d, equivalent %d, survived %d — score %.1f%%\n",
			pkg, s.Mutants, len(all), s.Killed, s.Equivalent, s.Survived, 100*s.Score)
	}
	if *flagList {
		return nil
	}
	report.Duration = time.Since(start).Seconds()
	all := summarize(report.Outcomes)
	report.Summary["all"] = all
	fmt.Printf("%-10s %4d mutants: killed %d, equivalent %d, survived %d — score %.1f%%\n",
		"all", all.Mutants, all.Killed, all.Equivalent, all.Survived, 100*all.Score)
	if *flagReport != "" {
		if err := writeJSON(*flagReport, report); err != nil {
			return err
		}
	}
	return nil
}

// draw returns n of the mutants, chosen uniformly without replacement, in
// their enumeration order.
func draw(rng *rand.Rand, all []Mutant, n int) []Mutant {
	idx := rng.Perm(len(all))[:n]
	sort.Ints(idx)
	out := make([]Mutant, n)
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

func summarize(out []Outcome) Summary {
	var s Summary
	for _, o := range out {
		switch o.Status {
		case "killed", "timeout":
			s.Killed++
		case "survived":
			s.Survived++
		case "equivalent":
			s.Equivalent++
		default:
			continue
		}
		s.Mutants++
	}
	if s.Killed+s.Survived > 0 {
		s.Score = float64(s.Killed) / float64(s.Killed+s.Survived)
	}
	return s
}

// Enumerate lists every mutant of the non-test Go files in directory pkg.
func Enumerate(pkg string) ([]Mutant, error) {
	files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Mutant
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if ast.IsGenerated(file) {
			continue
		}
		out = append(out, mutantsOf(pkg, f, fset, file, src)...)
	}
	return out, nil
}

var binary = map[token.Token][]struct{ op, to string }{
	token.ADD:  {{"arithmetic", "-"}},
	token.SUB:  {{"arithmetic", "+"}},
	token.MUL:  {{"arithmetic", "/"}},
	token.QUO:  {{"arithmetic", "*"}},
	token.REM:  {{"arithmetic", "*"}},
	token.LSS:  {{"boundary", "<="}, {"negation", ">="}},
	token.LEQ:  {{"boundary", "<"}, {"negation", ">"}},
	token.GTR:  {{"boundary", ">="}, {"negation", "<="}},
	token.GEQ:  {{"boundary", ">"}, {"negation", "<"}},
	token.EQL:  {{"negation", "!="}},
	token.NEQ:  {{"negation", "=="}},
	token.LAND: {{"logical", "||"}},
	token.LOR:  {{"logical", "&&"}},
}

var assign = map[token.Token]string{
	token.ADD_ASSIGN: "-=", token.SUB_ASSIGN: "+=", token.MUL_ASSIGN: "/=", token.QUO_ASSIGN: "*=",
}

func mutantsOf(pkg, path string, fset *token.FileSet, file *ast.File, src []byte) []Mutant {
	var out []Mutant
	seen := map[string]int{}
	tf := fset.File(file.Pos())
	add := func(fn string, pos token.Pos, op, from, to string) {
		off := tf.Offset(pos)
		line := tf.Line(pos)
		key := fmt.Sprintf("%s:%s:%s:%s→%s", fn, op, snippetAt(src, off, from), from, to)
		k := seen[key]
		seen[key]++
		out = append(out, Mutant{
			ID:  fmt.Sprintf("%s/%s:%s:%d", pkg, filepath.Base(path), key, k),
			Pkg: pkg, File: path, Line: line, Func: fn, Operator: op, From: from, To: to,
			Snippet: lineAt(src, off), offset: off, length: len(from),
		})
	}
	for _, decl := range file.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		fn := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			fn = recvName(fd.Recv.List[0].Type) + "." + fn
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch e := n.(type) {
			case *ast.BinaryExpr:
				if isStringLit(e.X) || isStringLit(e.Y) {
					return true
				}
				for _, m := range binary[e.Op] {
					add(fn, e.OpPos, m.op, e.Op.String(), m.to)
				}
			case *ast.AssignStmt:
				if to, ok := assign[e.Tok]; ok {
					add(fn, e.TokPos, "arithmetic", e.Tok.String(), to)
				}
			case *ast.IncDecStmt:
				to := "--"
				if e.Tok == token.DEC {
					to = "++"
				}
				add(fn, e.TokPos, "step", e.Tok.String(), to)
			case *ast.UnaryExpr:
				switch e.Op {
				case token.SUB:
					add(fn, e.OpPos, "sign", "-", " ")
				case token.NOT:
					add(fn, e.OpPos, "logical", "!", " ")
				}
			}
			return true
		})
	}
	return out
}

func recvName(t ast.Expr) string {
	switch x := t.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	}
	return "?"
}

func isStringLit(e ast.Expr) bool {
	b, ok := e.(*ast.BasicLit)
	return ok && b.Kind == token.STRING
}

// snippetAt is the operator with a few bytes of context on each side, with
// white space squeezed: the part of a mutant's identity that names its site.
func snippetAt(src []byte, off int, op string) string {
	lo, hi := off-12, off+len(op)+12
	lo = max(lo, 0)
	hi = min(hi, len(src))
	for lo > 0 && src[lo-1] != '\n' && lo > off-24 && isIdentByte(src[lo]) {
		lo--
	}
	s := string(src[lo:hi])
	if i := strings.LastIndexByte(s[:off-lo], '\n'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.Join(strings.Fields(s), " ")
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func lineAt(src []byte, off int) string {
	lo := bytes.LastIndexByte(src[:off], '\n') + 1
	hi := bytes.IndexByte(src[off:], '\n')
	if hi < 0 {
		hi = len(src) - off
	}
	return strings.TrimSpace(string(src[lo : off+hi]))
}

func testFlags() string {
	f := "-count=1 -failfast"
	if *flagShort {
		f += " -short"
	}
	return f
}

// runPackage times the unmutated tests, then runs each mutant.
func runPackage(ctx context.Context, pkg string, ms []Mutant, equiv map[string]string) ([]Outcome, error) {
	tmp, err := os.MkdirTemp("", "rlskit-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	t0 := time.Now()
	if res := goTest(ctx, pkg, "", 30*time.Minute); res.status != "survived" {
		return nil, fmt.Errorf("%s: the unmutated tests do not pass (%s): %v\n%s", pkg, res.status, res.err, res.output)
	}
	base := time.Since(t0)
	limit := *flagTimeout
	if limit == 0 {
		limit = max(3*base, 60*time.Second)
	}
	var out []Outcome
	for i, m := range ms {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		o := runMutant(ctx, tmp, m, limit)
		if o.Status == "survived" {
			if why, ok := equiv[m.ID]; ok {
				o.Status, o.Reason = "equivalent", why
			}
		}
		if *flagVerbose || o.Status == "survived" {
			fmt.Printf("  [%d/%d] %-10s %s:%d %s  (%s → %s)  %s\n", i+1, len(ms), o.Status, m.File, m.Line, m.Snippet, m.From, m.To, o.Test)
		}
		out = append(out, o)
	}
	return out, nil
}

func runMutant(ctx context.Context, tmp string, m Mutant, limit time.Duration) Outcome {
	o := Outcome{Mutant: m}
	src, err := os.ReadFile(m.File)
	if err != nil || m.offset+m.length > len(src) || string(src[m.offset:m.offset+m.length]) != m.From {
		o.Status = "stale"
		return o
	}
	mut := append(append(append([]byte{}, src[:m.offset]...), m.To...), src[m.offset+m.length:]...)
	mf := filepath.Join(tmp, "mutant.go")
	abs, _ := filepath.Abs(m.File)
	ov := filepath.Join(tmp, "overlay.json")
	b, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mf}})
	if err := os.WriteFile(mf, mut, 0o644); err != nil {
		o.Status, o.Reason = "error", err.Error()
		return o
	}
	if err := os.WriteFile(ov, b, 0o644); err != nil {
		o.Status, o.Reason = "error", err.Error()
		return o
	}
	t0 := time.Now()
	res := goTest(ctx, "./"+m.Pkg, ov, limit)
	o.Secs = time.Since(t0).Seconds()
	o.Status, o.Test = res.status, res.failed
	return o
}

type testResult struct {
	status string // killed, survived, invalid, timeout
	failed string
	output string
	err    error
}

// goTest runs the package's tests, with the overlay when given.
func goTest(ctx context.Context, pkg, overlay string, limit time.Duration) testResult {
	if !strings.HasPrefix(pkg, "./") {
		pkg = "./" + pkg
	}
	args := []string{"test", "-count=1", "-failfast"}
	if *flagShort {
		args = append(args, "-short")
	}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(args, pkg)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, "go", args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	out := buf.String()
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		return testResult{status: "timeout", output: out}
	case ctx.Err() != nil:
		return testResult{status: "error", err: ctx.Err(), output: out}
	case err == nil:
		return testResult{status: "survived", output: out}
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") || strings.Contains(out, "vet:"):
		return testResult{status: "invalid", output: out}
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return testResult{status: "error", err: err, output: out}
	}
	return testResult{status: "killed", failed: firstFailure(out), output: out}
}

func firstFailure(out string) string {
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "--- FAIL: ") {
			f := strings.Fields(l)
			if len(f) >= 3 {
				return f[2]
			}
		}
		if strings.HasPrefix(l, "panic:") {
			return "panic"
		}
	}
	return ""
}

// readEquivalents reads every *.txt file of dir: lines "ID<TAB>reason",
// blank lines and # comments.
func readEquivalents(dir string) (map[string]string, error) {
	m := map[string]string{}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := readEquivalentFile(f, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func readEquivalentFile(path string, m map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for i, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		id, why, ok := strings.Cut(l, "\t")
		if !ok || strings.TrimSpace(why) == "" {
			return fmt.Errorf("%s:%d: want ID<TAB>reason", path, i+1)
		}
		if _, dup := m[id]; dup {
			return fmt.Errorf("%s:%d: %s listed twice", path, i+1, id)
		}
		m[id] = strings.TrimSpace(why)
	}
	return nil
}

func readReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// writeJSON writes v to path through a temporary file in the same directory.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".mutate-*.json")
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// recheck reruns a random sample of the report's killed mutants (those that
// still exist): each must still be killed.
func recheck(ctx context.Context, path string, equiv map[string]string) error {
	r, err := readReport(path)
	if err != nil {
		return err
	}
	byPkg := map[string]map[string]Mutant{}
	var killed []Outcome
	for _, o := range r.Outcomes {
		if o.Status == "killed" || o.Status == "timeout" {
			killed = append(killed, o)
		}
	}
	rng := rand.New(rand.NewPCG(*flagSeed, 0x72656368))
	n := *flagSample
	if n <= 0 || n > len(killed) {
		n = len(killed)
	}
	idx := rng.Perm(len(killed))[:n]
	sort.Ints(idx)
	tmp, err := os.MkdirTemp("", "rlskit-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var lived []string
	stale := 0
	for _, i := range idx {
		o := killed[i]
		cur, ok := byPkg[o.Pkg]
		if !ok {
			ms, err := Enumerate(o.Pkg)
			if err != nil {
				return err
			}
			cur = map[string]Mutant{}
			for _, m := range ms {
				cur[m.ID] = m
			}
			byPkg[o.Pkg] = cur
		}
		m, ok := cur[o.ID]
		if !ok {
			stale++
			fmt.Printf("  stale      %s (the code changed; regenerate the report)\n", o.ID)
			continue
		}
		limit := *flagTimeout
		if limit == 0 {
			limit = max(time.Duration(3*o.Secs*float64(time.Second)), 120*time.Second)
		}
		res := runMutant(ctx, tmp, m, limit)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Printf("  %-10s %s:%d %s  (%s → %s)  %s\n", res.Status, m.File, m.Line, m.Snippet, m.From, m.To, res.Test)
		if res.Status == "survived" {
			if _, eq := equiv[m.ID]; !eq {
				lived = append(lived, m.ID)
			}
		}
	}
	fmt.Printf("rechecked %d killed mutants of %s (seed %d): %d survived, %d stale\n", n-stale, path, *flagSeed, len(lived), stale)
	if len(lived) > 0 {
		return fmt.Errorf("mutants the tests used to kill now survive (a test was weakened?):\n  %s", strings.Join(lived, "\n  "))
	}
	if stale > n/2 {
		return fmt.Errorf("%d of %d sampled mutants are stale: regenerate %s with scripts/mutation.sh", stale, n, path)
	}
	return nil
}

// update reruns the survived and timed-out outcomes of the report at path —
// the same sample, judged by the current tests and equivalents list — and
// rewrites the report with the new outcomes and summaries. A survivor whose
// code changed so that its mutant no longer exists is dropped and counted
// stale. Killed outcomes are not rerun here: -recheck samples those.
func update(ctx context.Context, path string, equiv map[string]string) error {
	r, err := readReport(path)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rlskit-mutate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cur := map[string]map[string]Mutant{}
	limits := map[string]time.Duration{}
	u := Update{At: time.Now().UTC().Format(time.RFC3339)}
	var keep []Outcome
	for _, o := range r.Outcomes {
		if o.Status == "equivalent" {
			if why, ok := equiv[o.ID]; ok {
				o.Reason = why
			} else {
				o.Status = "survived" // no longer listed: rerun below
			}
		}
		if o.Status != "survived" && o.Status != "timeout" {
			keep = append(keep, o)
			continue
		}
		ms, ok := cur[o.Pkg]
		if !ok {
			all, err := Enumerate(o.Pkg)
			if err != nil {
				return err
			}
			ms = map[string]Mutant{}
			for _, m := range all {
				ms[m.ID] = m
			}
			cur[o.Pkg] = ms
			t0 := time.Now()
			if res := goTest(ctx, o.Pkg, "", 30*time.Minute); res.status != "survived" {
				return fmt.Errorf("%s: the unmutated tests do not pass (%s): %v\n%s", o.Pkg, res.status, res.err, res.output)
			}
			limits[o.Pkg] = *flagTimeout
			if limits[o.Pkg] == 0 {
				limits[o.Pkg] = max(3*time.Since(t0), 60*time.Second)
			}
		}
		m, ok := ms[o.ID]
		if !ok {
			u.Stale++
			fmt.Printf("  stale      %s (the code changed: dropped)\n", o.ID)
			continue
		}
		u.Rerun++
		n := runMutant(ctx, tmp, m, limits[o.Pkg])
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if n.Status == "survived" {
			if why, ok := equiv[m.ID]; ok {
				n.Status, n.Reason = "equivalent", why
			}
		}
		switch n.Status {
		case "killed", "timeout":
			u.Killed++
		case "equivalent":
			u.Equiv++
		case "survived":
			u.Survived++
		}
		fmt.Printf("  %-10s %s:%d %s  (%s → %s)  %s\n", n.Status, m.File, m.Line, m.Snippet, m.From, m.To, n.Test)
		keep = append(keep, n)
	}
	r.Outcomes = keep
	r.Updates = append(r.Updates, u)
	r.Summary = map[string]Summary{}
	byPkg := map[string][]Outcome{}
	for _, o := range keep {
		byPkg[o.Pkg] = append(byPkg[o.Pkg], o)
	}
	for p, outs := range byPkg {
		r.Summary[p] = summarize(outs)
	}
	r.Summary["all"] = summarize(keep)
	a := r.Summary["all"]
	fmt.Printf("updated %s: rerun %d (now killed %d, equivalent %d, survived %d), stale %d; all: killed %d, equivalent %d, survived %d — score %.1f%%\n",
		path, u.Rerun, u.Killed, u.Equiv, u.Survived, u.Stale, a.Killed, a.Equivalent, a.Survived, 100*a.Score)
	return writeJSON(path, r)
}

// writeMarkdown prints the report: a table per package, then every mutant
// that survived and every one judged equivalent, with its reason.
func writeMarkdown(w *os.File, r *Report) {
	var pkgs []string
	for p := range r.Summary {
		if p != "all" {
			pkgs = append(pkgs, p)
		}
	}
	sort.Strings(pkgs)
	fmt.Fprintf(w, "Seed %d, %d mutants per package drawn at random (0: all), `go test %s`, %.0f min.\n", r.Seed, r.Sample, r.GoFlags, r.Duration/60)
	for _, u := range r.Updates {
		fmt.Fprintf(w, "Updated %s (`-update`): %d survivors and timeouts rerun against that day's tests — %d now killed, %d equivalent, %d still survive; %d dropped because their code changed.\n",
			u.At[:10], u.Rerun, u.Killed, u.Equiv, u.Survived, u.Stale)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| package | mutants in the code | run | killed | equivalent | survived | score |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, p := range append(pkgs, "all") {
		s := r.Summary[p]
		total := 0
		if p == "all" {
			for _, n := range r.Total {
				total += n
			}
		} else {
			total = r.Total[p]
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %.1f %% |\n", p, total, s.Mutants, s.Killed, s.Equivalent, s.Survived, 100*s.Score)
	}
	for _, st := range []string{"survived", "equivalent"} {
		var rows []Outcome
		for _, o := range r.Outcomes {
			if o.Status == st {
				rows = append(rows, o)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n**%s** (%d):\n\n", st, len(rows))
		for _, o := range rows {
			line := fmt.Sprintf("- `%s:%d` `%s` (%s → %s)", o.File, o.Line, o.Snippet, o.From, strings.TrimSpace(o.To))
			if o.Reason != "" {
				line += ": " + o.Reason
			}
			fmt.Fprintln(w, line)
		}
	}
}
