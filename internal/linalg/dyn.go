//go:build !openblas

package linalg

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"gonum.org/v1/gonum/blas/blas64"
)

// The default build loads an optimized BLAS/LAPACK at run time with purego
// (no cgo, no C toolchain): the first use of the package tries, in order,
//
//	RLSKIT_LAPACK=/path/lib.so     that library (RLSKIT_LAPACK=gonum forces pure Go)
//	libopenblas.so.0, libopenblas.so (Linux), libopenblas.dylib (macOS, Homebrew paths)
//	liblapack.so.3 + libblas.so.3  the system's reference or alternative implementation
//	libmkl_rt.so                   Intel MKL's single dynamic library
//	Accelerate                     on macOS
//
// and calls the Fortran-ABI symbols (dsyevd_, dgesdd_, dpotrf_, dpotri_, dsytrd_, dormtr_,
// dgemm_, dsyrk_, dtrsm_, dsymm_) so any of them works without LAPACKE. When none loads, the
// pure-Go gonum routines run, correctly and slowly; SetNotice names a writer
// that is told so once, the first time a large problem (n ≥ NoticeSize) is
// factored. The -tags openblas build links OpenBLAS with cgo instead.

// Fortran-ABI signatures: every argument by reference, then the hidden lengths
// of the character arguments (gfortran's convention; 1 each).
type (
	fDsyevd func(jobz, uplo *byte, n *int32, a *float64, lda *int32, w, work *float64, lwork *int32, iwork *int32, liwork, info *int32, l1, l2 uintptr)
	fDgesdd func(jobz *byte, m, n *int32, a *float64, lda *int32, s, u *float64, ldu *int32, vt *float64, ldvt *int32, work *float64, lwork, iwork, info *int32, l1 uintptr)
	fDpotrf func(uplo *byte, n *int32, a *float64, lda, info *int32, l1 uintptr)
	fDgemm  func(ta, tb *byte, m, n, k *int32, alpha, a *float64, lda *int32, b *float64, ldb *int32, beta, c *float64, ldc *int32, l1, l2 uintptr)
	fDsyrk  func(uplo, trans *byte, n, k *int32, alpha, a *float64, lda *int32, beta, c *float64, ldc *int32, l1, l2 uintptr)
	fDtrsm  func(side, uplo, transa, diag *byte, m, n *int32, alpha, a *float64, lda *int32, b *float64, ldb *int32, l1, l2, l3, l4 uintptr)
	fDsymm  func(side, uplo *byte, m, n *int32, alpha, a *float64, lda *int32, b *float64, ldb *int32, beta, c *float64, ldc *int32, l1, l2 uintptr)
	fDpotri func(uplo *byte, n *int32, a *float64, lda, info *int32, l1 uintptr)
	fDsytrd func(uplo *byte, n *int32, a *float64, lda *int32, d, e, tau, work *float64, lwork, info *int32, l1 uintptr)
	fDormtr func(side, uplo, trans *byte, m, n *int32, a *float64, lda *int32, tau, c *float64, ldc *int32, work *float64, lwork, info *int32, l1, l2, l3 uintptr)
)

// dynLib is a loaded BLAS/LAPACK.
type dynLib struct {
	info       BackendInfo
	dsyevd     fDsyevd
	dgesdd     fDgesdd
	dpotrf     fDpotrf
	dgemm      fDgemm
	dsyrk      fDsyrk
	dtrsm      fDtrsm
	dsymm      fDsymm
	dsytrd     fDsytrd
	dpotri     fDpotri
	dormtr     fDormtr
	setThreads func(int32) // nil when the library has no thread control
	getThreads func() int32
}

var (
	loadOnce sync.Once
	lib      *dynLib // nil: pure Go
	libInfo  BackendInfo

	noticeMu   sync.Mutex
	noticeW    io.Writer
	noticeDone bool
)

// NoticeSize is the order of an O(n³) step from which running it in pure Go
// is worth a notice (see SetNotice).
const NoticeSize = 1000

// BackendInfo describes the numerical backend in use.
type BackendInfo struct {
	// Name is "openblas", "lapack", "mkl", "accelerate" or "gonum".
	Name string
	// Path is the library loaded ("" for gonum).
	Path string
	// Version is the library's own description where it gives one (OpenBLAS's openblas_get_config).
	Version string
	// Threads is the library's thread count (0 when unknown, 1 for gonum).
	Threads int
	// Tried lists the libraries attempted before this one, each with why it was not used.
	Tried []string
}

// String is a one-line description: name, path, version and threads.
func (b BackendInfo) String() string {
	if b.Path == "" {
		return b.Name + " (pure Go)"
	}
	s := fmt.Sprintf("%s (%s", b.Name, b.Path)
	if b.Version != "" {
		s += ", " + b.Version
	}
	if b.Threads > 0 {
		s += fmt.Sprintf(", %d threads", b.Threads)
	}
	return s + ")"
}

// load loads the backend once; safe for concurrent use.
func load() *dynLib {
	loadOnce.Do(func() {
		lib, libInfo = loadFrom(os.Getenv("RLSKIT_LAPACK"), candidates())
		if lib != nil {
			blas64.Use(dynBLAS{lib: lib})
			if n, err := strconv.Atoi(os.Getenv("RLSKIT_THREADS")); err == nil && n > 0 {
				setThreads(lib, n)
			}
			lib.info.Threads = threads(lib)
			libInfo = lib.info
		}
	})
	return lib
}

// candidate is a library to try: its name, and for a split BLAS/LAPACK the BLAS.
type candidate struct {
	name, lapack, blas string
	paths              []string
}

func candidates() []candidate {
	if runtime.GOOS == "darwin" {
		return []candidate{
			{name: "openblas", paths: []string{"/opt/homebrew/opt/openblas/lib/libopenblas.dylib", "/usr/local/opt/openblas/lib/libopenblas.dylib", "libopenblas.dylib"}},
			{name: "accelerate", paths: []string{"/System/Library/Frameworks/Accelerate.framework/Accelerate"}},
		}
	}
	return []candidate{
		{name: "openblas", paths: []string{"libopenblas.so.0", "libopenblas.so"}},
		{name: "lapack", lapack: "liblapack.so.3", blas: "libblas.so.3"},
		{name: "mkl", paths: []string{"libmkl_rt.so", "libmkl_rt.so.2"}},
	}
}

// loadFrom loads the library named by env ("" to search the candidates,
// "gonum" for none) and returns it with its description (the gonum
// description, with what was tried, when nothing loads).
func loadFrom(env string, cands []candidate) (*dynLib, BackendInfo) {
	var tried []string
	pure := func() (*dynLib, BackendInfo) {
		return nil, BackendInfo{Name: "gonum", Threads: 1, Tried: tried}
	}
	switch env {
	case "gonum":
		tried = append(tried, "RLSKIT_LAPACK=gonum: pure Go asked for")
		return pure()
	case "":
	default:
		l, err := open(env, env, nameOf(env))
		if err == nil {
			return l, l.info
		}
		tried = append(tried, fmt.Sprintf("RLSKIT_LAPACK=%s: %v", env, err))
		return pure()
	}
	for _, c := range cands {
		if c.lapack != "" {
			l, err := open(c.lapack, c.blas, c.name)
			if err == nil {
				l.info.Tried = tried
				return l, l.info
			}
			tried = append(tried, fmt.Sprintf("%s + %s: %v", c.lapack, c.blas, err))
			continue
		}
		for _, p := range c.paths {
			l, err := open(p, p, c.name)
			if err == nil {
				l.info.Tried = tried
				return l, l.info
			}
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
		}
	}
	return pure()
}

// nameOf guesses the backend name of an explicit library path.
func nameOf(path string) string {
	base := strings.ToLower(path[strings.LastIndex(path, "/")+1:])
	switch {
	case strings.Contains(base, "openblas"):
		return "openblas"
	case strings.Contains(base, "mkl"):
		return "mkl"
	case strings.Contains(base, "accelerate"):
		return "accelerate"
	}
	return "lapack"
}

// open loads the LAPACK symbols from lapackPath and the BLAS ones from
// blasPath (the same library for OpenBLAS and MKL) and checks every symbol.
func open(lapackPath, blasPath, name string) (l *dynLib, err error) {
	defer func() {
		if r := recover(); r != nil { // purego panics on a missing symbol
			l, err = nil, fmt.Errorf("%v", r)
		}
	}()
	hl, err := purego.Dlopen(lapackPath, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, err
	}
	hb := hl
	if blasPath != lapackPath {
		if hb, err = purego.Dlopen(blasPath, purego.RTLD_NOW|purego.RTLD_GLOBAL); err != nil {
			return nil, err
		}
	}
	for _, sym := range []struct {
		h    uintptr
		name string
	}{{hl, "dsyevd_"}, {hl, "dgesdd_"}, {hl, "dpotrf_"}, {hb, "dgemm_"}, {hb, "dsyrk_"}, {hb, "dtrsm_"}, {hb, "dsymm_"}, {hl, "dsytrd_"}, {hl, "dormtr_"}, {hl, "dpotri_"}} {
		if _, err := purego.Dlsym(sym.h, sym.name); err != nil {
			return nil, fmt.Errorf("no symbol %s: %w", sym.name, err)
		}
	}
	l = &dynLib{info: BackendInfo{Name: name, Path: lapackPath}}
	purego.RegisterLibFunc(&l.dsyevd, hl, "dsyevd_")
	purego.RegisterLibFunc(&l.dgesdd, hl, "dgesdd_")
	purego.RegisterLibFunc(&l.dpotrf, hl, "dpotrf_")
	purego.RegisterLibFunc(&l.dgemm, hb, "dgemm_")
	purego.RegisterLibFunc(&l.dsyrk, hb, "dsyrk_")
	purego.RegisterLibFunc(&l.dtrsm, hb, "dtrsm_")
	purego.RegisterLibFunc(&l.dsymm, hb, "dsymm_")
	purego.RegisterLibFunc(&l.dsytrd, hl, "dsytrd_")
	purego.RegisterLibFunc(&l.dpotri, hl, "dpotri_")
	purego.RegisterLibFunc(&l.dormtr, hl, "dormtr_")
	if blasPath != lapackPath {
		l.info.Path = lapackPath + " + " + blasPath
	}
	// thread control and version, where the library has them
	if _, err := purego.Dlsym(hb, "openblas_set_num_threads"); err == nil {
		var set func(int32)
		var get func() int32
		purego.RegisterLibFunc(&set, hb, "openblas_set_num_threads")
		purego.RegisterLibFunc(&get, hb, "openblas_get_num_threads")
		l.setThreads, l.getThreads = set, get
		if _, err := purego.Dlsym(hb, "openblas_get_config"); err == nil {
			var cfg func() *byte
			purego.RegisterLibFunc(&cfg, hb, "openblas_get_config")
			l.info.Version = cString(cfg())
		}
	} else if _, err := purego.Dlsym(hb, "MKL_Set_Num_Threads"); err == nil {
		var set func(int32)
		var get func() int32
		purego.RegisterLibFunc(&set, hb, "MKL_Set_Num_Threads")
		purego.RegisterLibFunc(&get, hb, "MKL_Get_Max_Threads")
		l.setThreads, l.getThreads = set, get
	}
	return l, nil
}

// cString copies a NUL-terminated C string (at most 1 KiB).
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < 1024; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return strings.TrimSpace(string(b))
}

func threads(l *dynLib) int {
	if l == nil || l.getThreads == nil {
		return 0
	}
	return int(l.getThreads())
}

func setThreads(l *dynLib, n int) {
	if l != nil && l.setThreads != nil && n > 0 {
		l.setThreads(int32(n))
	}
}

// Backend names the numerical backend in use: "openblas", "lapack", "mkl",
// "accelerate" (a library loaded at run time) or "gonum" (pure Go).
func Backend() string { load(); return libInfo.Name }

// Fast reports whether an optimized library is in use.
func Fast() bool { return load() != nil }

// Info describes the backend in use: library path, version, threads and what
// was tried before it.
func Info() BackendInfo {
	load()
	info := libInfo
	if lib != nil {
		info.Threads = threads(lib)
	}
	return info
}

// SetThreads sets the loaded library's thread count (openblas_set_num_threads,
// MKL_Set_Num_Threads); no effect for pure Go or a library without thread control.
func SetThreads(n int) { setThreads(load(), n) }

// SetNotice names the writer told once, the first time an O(n³) step with
// n ≥ NoticeSize runs in pure Go, which libraries were tried and how to get a
// fast one. nil (the default) keeps the package silent.
func SetNotice(w io.Writer) {
	noticeMu.Lock()
	defer noticeMu.Unlock()
	noticeW = w
}

// notice tells the notice writer, once, that an n×n step runs in pure Go.
func notice(n int) {
	if n < NoticeSize || load() != nil {
		return
	}
	noticeMu.Lock()
	defer noticeMu.Unlock()
	if noticeW == nil || noticeDone {
		return
	}
	noticeDone = true
	fix := "apt-get install libopenblas0"
	if runtime.GOOS == "darwin" {
		fix = "brew install openblas"
	}
	fmt.Fprintf(noticeW, "rlskit: a %d×%d factorization runs in pure Go (slow): no optimized BLAS/LAPACK loaded (tried: %s). Install one (%s) or name it with RLSKIT_LAPACK=/path/lib.so; --quiet silences this.\n",
		n, n, strings.Join(libInfo.Tried, "; "), fix)
}
