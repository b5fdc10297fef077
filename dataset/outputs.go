package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Errors of an Outputs set; they are wrapped in an *OutputError naming the
// output.
var (
	// ErrSameFile reports an output that is the same file as an input or as
	// another output (compared by resolved path and by inode).
	ErrSameFile = errors.New("dataset: output is the same file as an input or another output")
	// ErrOutputPath reports an output path that cannot be written: a
	// directory, a missing or read-only directory, or a device without write
	// permission.
	ErrOutputPath = errors.New("dataset: unusable output path")
)

// OutputError is the error of one output of an Outputs set.
type OutputError struct {
	Flag string // the option that named the output ("--out"), or "" (WriteFileAtomic)
	Path string // the path as given
	Err  error  // the cause: ErrSameFile, ErrOutputPath, or a write error (e.g. syscall.ENOSPC)
}

// Error reads "FLAG PATH: cause", or "writing PATH: cause" without a flag.
func (e *OutputError) Error() string {
	if e.Flag == "" {
		return "writing " + e.Path + ": " + e.Err.Error()
	}
	return e.Flag + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *OutputError) Unwrap() error { return e.Err }

// Outputs is the set of files a command writes, committed together: either
// every output is replaced by its complete new content, or (on any failure,
// and on SIGINT or SIGTERM while the files are being written) none is touched
// and no temporary file is left behind.
//
// A command adds its outputs first, checks them before doing any work, and
// commits them once everything it computes has succeeded:
//
//	var outs dataset.Outputs
//	var pred *mat.Dense // computed later; the write functions run in Commit
//	outs.Add("--out", outPath, func(w io.Writer) error { return dataset.WritePredictions(w, pred) })
//	outs.Add("--model", modelPath, func(w io.Writer) error { return predictor.Save(w) })
//	if err := outs.Check(); err != nil { // directories exist and are writable, no two outputs are one file
//		return err
//	}
//	if err := outs.CheckInputs(dataPath, foldsPath); err != nil { // no output overwrites an input
//		return err
//	}
//	pred, err = compute() // the work; on error nothing has been written
//	...
//	return outs.Commit()
//
// Each output is one of three kinds. A regular file (or a path that does not
// exist yet) is written to a temporary file in its directory, synced, and
// renamed over the target only when every output has been written; a
// replaced file keeps its permissions, a new one gets 0644. A symbolic link is
// followed: its final target is replaced atomically and the link kept. A
// device or FIFO (/dev/null, /dev/stdout, a named pipe) cannot be replaced, so
// it is written in place — after every temporary file succeeded, before the
// renames — and its write and close errors are returned (ENOSPC from
// /dev/full). The path "-" writes to Stdout the same way.
//
// An Outputs is used by one goroutine and committed once.
type Outputs struct {
	// Stdout receives the outputs whose path is "-"; nil means os.Stdout.
	Stdout io.Writer
	// NoSignalHandler leaves SIGINT and SIGTERM alone during Commit (for a
	// program with its own handling); see Commit.
	NoSignalHandler bool

	outs      []*output
	committed bool
}

type outKind int

const (
	toRegular outKind = iota // atomic replacement through a temporary file
	toDevice                 // written in place
	toStdout
)

type output struct {
	flag, path string
	write      func(io.Writer) error

	kind   outKind
	target string      // the file written or replaced, symbolic links followed
	info   fs.FileInfo // the target's, when it exists
	canon  string      // absolute target with its directory's links resolved ("" when unknown)
	mode   fs.FileMode
	tmp    string
}

// Add adds an output: flag names it in errors (the command-line option, e.g.
// "--out"), path is where it goes ("-" for Stdout), and write produces its
// content when Commit runs — typically a closure over results computed after
// Add. An empty path adds nothing, so an option that was not given can be
// added unconditionally.
func (o *Outputs) Add(flag, path string, write func(io.Writer) error) {
	if path == "" {
		return
	}
	o.outs = append(o.outs, &output{flag: flag, path: path, write: write})
}

// Len returns the number of outputs added.
func (o *Outputs) Len() int { return len(o.outs) }

func (out *output) fail(err error) error {
	return &OutputError{Flag: out.flag, Path: out.path, Err: err}
}

// followLinks returns path with symbolic links in its last element followed,
// up to the final target, which need not exist.
func followLinks(path string) (string, error) {
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
}

// canonical returns the absolute form of a target whose last element is not
// a link, with the links of its directory resolved; "" when the directory
// cannot be resolved.
func canonical(target string) string {
	abs, err := filepath.Abs(target)
	if err != nil {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(abs))
}

// resolve classifies an output by what its path names now.
func (out *output) resolve() error {
	if out.write == nil {
		return out.fail(fmt.Errorf("%w: nil write function", ErrOptions))
	}
	if out.path == "-" {
		out.kind = toStdout
		return nil
	}
	t, err := followLinks(out.path)
	if err != nil {
		return out.fail(fmt.Errorf("%w: %v", ErrOutputPath, err))
	}
	out.target, out.info, out.kind, out.mode = t, nil, toRegular, 0o644
	fi, err := os.Stat(t)
	switch {
	case err == nil && fi.IsDir():
		return out.fail(fmt.Errorf("%w: %s is a directory", ErrOutputPath, t))
	case err == nil && fi.Mode().IsRegular():
		out.info, out.mode = fi, fi.Mode().Perm()
	case err == nil:
		out.info, out.kind = fi, toDevice
	case !errors.Is(err, fs.ErrNotExist):
		return out.fail(fmt.Errorf("%w: %v", ErrOutputPath, err))
	}
	out.canon = canonical(t)
	return nil
}

func (o *Outputs) resolveAll() error {
	for _, out := range o.outs {
		if err := out.resolve(); err != nil {
			return err
		}
	}
	return nil
}

func isCharDevice(fi fs.FileInfo) bool { return fi != nil && fi.Mode()&fs.ModeCharDevice != 0 }

// sameFile reports whether two resolved files are one: by inode when both
// exist, else by canonical path. Character devices (/dev/null) are never the
// same file: writing one twice is harmless.
func sameFile(ai fs.FileInfo, ac string, bi fs.FileInfo, bc string) bool {
	if isCharDevice(ai) || isCharDevice(bi) {
		return false
	}
	if ai != nil && bi != nil {
		return os.SameFile(ai, bi)
	}
	return ac != "" && ac == bc
}

// checkDistinct refuses two outputs that are one file (or both "-").
func (o *Outputs) checkDistinct() error {
	for i, a := range o.outs {
		for _, b := range o.outs[:i] {
			switch {
			case a.kind == toStdout && b.kind == toStdout:
				return a.fail(fmt.Errorf("%w: %s also writes to standard output", ErrSameFile, b.describe()))
			case a.kind == toStdout || b.kind == toStdout:
			case sameFile(a.info, a.canon, b.info, b.canon):
				return a.fail(fmt.Errorf("%w: %s writes the same file", ErrSameFile, b.describe()))
			}
		}
	}
	return nil
}

func (out *output) describe() string {
	if out.flag == "" {
		return out.path
	}
	return out.flag + " " + out.path
}

// Check verifies, before any work is done, that every output can be written:
// a file's directory exists and a file can be created in it (checked by
// creating and removing a probe file), a device is writable, no path is a
// directory, and no two outputs are the same file (by resolved path or inode;
// character devices such as /dev/null excepted) or both "-". The error is an
// *OutputError naming the flag and path, wrapping ErrOutputPath or ErrSameFile.
func (o *Outputs) Check() error {
	if err := o.resolveAll(); err != nil {
		return err
	}
	for _, out := range o.outs {
		switch out.kind {
		case toRegular:
			dir := filepath.Dir(out.target)
			fi, err := os.Stat(dir)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return out.fail(fmt.Errorf("%w: directory %s does not exist", ErrOutputPath, dir))
			case err != nil:
				return out.fail(fmt.Errorf("%w: %v", ErrOutputPath, err))
			case !fi.IsDir():
				return out.fail(fmt.Errorf("%w: %s is not a directory", ErrOutputPath, dir))
			}
			f, err := os.CreateTemp(dir, ".rlskit-probe-*")
			if err != nil {
				return out.fail(fmt.Errorf("%w: cannot create files in %s: %v", ErrOutputPath, dir, errors.Unwrap(err)))
			}
			f.Close()
			os.Remove(f.Name())
		case toDevice:
			if err := canWrite(out.target); err != nil {
				return out.fail(fmt.Errorf("%w: %s is not writable: %v", ErrOutputPath, out.target, err))
			}
		}
	}
	return o.checkDistinct()
}

// CheckInputs refuses an output that is one of the input files paths (by
// resolved path, following symbolic links, or by inode, so hard links count),
// before any work is done: writing it would destroy the input. Empty paths and
// "-" are skipped, and so are character devices. The error is an *OutputError
// naming the output's flag and path, wrapping ErrSameFile.
func (o *Outputs) CheckInputs(paths ...string) error {
	if err := o.resolveAll(); err != nil {
		return err
	}
	for _, in := range paths {
		if in == "" || in == "-" {
			continue
		}
		t, err := followLinks(in)
		if err != nil {
			continue // an input that cannot be resolved is reported when it is read
		}
		fi, err := os.Stat(t)
		if err != nil {
			fi = nil
		}
		c := canonical(t)
		for _, out := range o.outs {
			if out.kind != toStdout && sameFile(out.info, out.canon, fi, c) {
				return out.fail(fmt.Errorf("%w: it is the input %s", ErrSameFile, in))
			}
		}
	}
	return nil
}

// tempFiles registers the temporary files of running Commits, for the signal
// handler to remove. A file is created and registered under the lock, and the
// handler exits holding it, so no temporary file escapes.
var tempFiles = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func createTemp(dir, pattern string) (*os.File, error) {
	tempFiles.Lock()
	defer tempFiles.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		tempFiles.names[f.Name()] = true
	}
	return f, err
}

// dropTemps removes (when remove is set) and unregisters temporary files.
func dropTemps(names []string, remove bool) {
	tempFiles.Lock()
	defer tempFiles.Unlock()
	for _, n := range names {
		if remove {
			os.Remove(n)
		}
		delete(tempFiles.names, n)
	}
}

// catchSignals removes every registered temporary file and exits with status
// 128+signal (130 for SIGINT, 143 for SIGTERM) when SIGINT or SIGTERM arrives,
// until stop is called.
func catchSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			tempFiles.Lock() // held until exit: no new temporary file, no rename
			for n := range tempFiles.names {
				os.Remove(n)
			}
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// writeBuffered runs write on a buffered w and flushes it.
func writeBuffered(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// writeTemp writes out to a new temporary file beside its target.
func (out *output) writeTemp() error {
	dir, base := filepath.Split(out.target)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp*")
	if err != nil {
		return out.fail(err)
	}
	out.tmp = f.Name()
	closed := false
	defer func() { // also when write panics
		if !closed {
			f.Close()
		}
	}()
	err = writeBuffered(f, out.write)
	if err == nil {
		err = f.Chmod(out.mode)
	}
	if err == nil {
		err = f.Sync()
	}
	closed = true
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return out.fail(err)
	}
	return nil
}

// writeInPlace writes out to its device or to stdout.
func (out *output) writeInPlace(stdout io.Writer) error {
	if out.kind == toStdout {
		if stdout == nil {
			stdout = os.Stdout
		}
		if err := writeBuffered(stdout, out.write); err != nil {
			return out.fail(err)
		}
		return nil
	}
	f, err := os.OpenFile(out.target, os.O_WRONLY, 0)
	if err != nil {
		return out.fail(err)
	}
	err = writeBuffered(f, out.write)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return out.fail(err)
	}
	return nil
}

// Commit writes every output and then makes them all visible at once. Each
// regular file is written (through a buffer, by its write function, in the
// order added) to a temporary file beside its target and synced; then the
// devices and "-" are written in place; and only when all of that succeeded
// are the temporary files renamed over their targets. On any failure every
// temporary file is removed, no target is renamed over, and the error is an
// *OutputError naming the output; a write function's error is returned
// wrapped as it is. (A rename itself failing after others succeeded is
// reported with the outputs already replaced named.) Commit re-checks that no
// two outputs are one file but does not repeat Check's probes.
//
// Unless NoSignalHandler is set, Commit handles SIGINT and SIGTERM while it
// runs: on either, it removes every temporary file, leaves the old outputs
// intact (a signal during the renames waits for them to finish, so the set
// stays whole) and exits the program with status 130 (SIGINT) or 143
// (SIGTERM). The previous signal behaviour is restored when Commit returns.
func (o *Outputs) Commit() error {
	if o.committed {
		return fmt.Errorf("%w: Outputs committed twice", ErrOptions)
	}
	o.committed = true
	if len(o.outs) == 0 {
		return nil
	}
	if err := o.resolveAll(); err != nil {
		return err
	}
	if err := o.checkDistinct(); err != nil {
		return err
	}
	if !o.NoSignalHandler {
		stop := catchSignals()
		defer stop()
	}
	renamed := false
	defer func() { // also when a write function panics
		if !renamed {
			dropTemps(o.temps(), true)
		}
	}()
	for _, out := range o.outs {
		if out.kind != toRegular {
			continue
		}
		if err := out.writeTemp(); err != nil {
			return err
		}
	}
	for _, out := range o.outs {
		if out.kind == toRegular {
			continue
		}
		if err := out.writeInPlace(o.Stdout); err != nil {
			return err
		}
	}
	return o.renameAll(o.temps(), &renamed)
}

// temps lists the temporary files written so far.
func (o *Outputs) temps() []string {
	var names []string
	for _, out := range o.outs {
		if out.tmp != "" {
			names = append(names, out.tmp)
		}
	}
	return names
}

// renameAll renames the temporary files over their targets, holding the
// temporary-file lock so that a signal waits for the whole set.
func (o *Outputs) renameAll(temps []string, renamed *bool) error {
	tempFiles.Lock()
	defer tempFiles.Unlock()
	var done []string
	dirs := map[string]bool{}
	for _, out := range o.outs {
		if out.kind != toRegular {
			continue
		}
		if err := os.Rename(out.tmp, out.target); err != nil {
			for _, n := range temps {
				os.Remove(n)
				delete(tempFiles.names, n)
			}
			*renamed = true // cleaned up here
			if len(done) > 0 {
				err = fmt.Errorf("%w (already replaced: %s)", err, strings.Join(done, ", "))
			}
			return out.fail(err)
		}
		delete(tempFiles.names, out.tmp)
		done = append(done, out.describe())
		dirs[filepath.Dir(out.target)] = true
	}
	*renamed = true
	// Make the renames durable; not all systems can sync a directory.
	for dir := range dirs {
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	return nil
}
