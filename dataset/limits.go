package dataset

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rlskit/rlskit/internal/sysmem"
)

// Bounded reading. Every reader of this package holds at most a bounded
// amount of its input at once, so that a small hostile file — a gzip stream
// of zeros, a NumPy header or a zip entry declaring gigabytes — ends in an
// error naming the file, the line or entry, the limit and the environment
// variable that raises it, never in the Go runtime's "out of memory" fatal
// error. Two bounds apply:
//
//   - The line bound (RLSKIT_MAX_LINE, default DefaultMaxLine = 64 MiB): a
//     line of a text file (svmlight, fold, index, preference and pair
//     files), or a record of a CSV file (a quoted field may span lines),
//     longer than this is an error on that line. A line is held whole while
//     it is parsed: the cost is up to twice the bound, transiently.
//
//   - The decompression budget (RLSKIT_MAX_DECOMPRESSED, default 1/8 of the
//     memory the process may still use, at least MinDecompressed): the
//     bytes that compressed input may expand to while held in memory. It
//     counts the decompressed text of a gzip-compressed svmlight or CSV file
//     read whole (ReadSVMLight, ReadCSV), or the text of each chunk
//     (ReadChunks: a streamed file of any length stays readable); a gzip
//     .npz or .parquet file, held whole for random access; and, for the
//     binary formats, what the data decode to — 8 bytes (one float64) an
//     element of a gzip .npy array or a deflated .npz entry (all entries of
//     an archive together), and 8 bytes a value of a Parquet table (its
//     pages are compressed and run-length encoded), each Parquet page's
//     uncompressed size as well. Parsed text costs a few times its bytes
//     (an svmlight "0 1:0" of 6 bytes holds 32 bytes of values), hence the
//     default share of 1/8. The memory the process may use is the least of
//     /proc/meminfo's MemAvailable, the cgroup v2 limit minus usage
//     (internal/sysmem), and the address-space and data-segment limits
//     (ulimit -v, ulimit -d) minus what the process has mapped; where none
//     can be read, DefaultDecompressed applies. The budget is computed when
//     a reader opens its input.
//
// Uncompressed NumPy, Parquet and text files are bounded by their own size on
// disk (their declared sizes are checked against it) and are not charged to
// the budget, except for the Parquet table's values, which its encodings
// compress.
//
// Both variables take a number of bytes, with an optional suffix K, M, G or
// T (powers of 1024; "64M", "2G"), or "unlimited". A malformed value is an
// error (ErrOptions) naming the variable.
const (
	// EnvMaxLine names the environment variable that sets the line bound.
	EnvMaxLine = "RLSKIT_MAX_LINE"
	// EnvMaxDecompressed names the environment variable that sets the
	// decompression budget.
	EnvMaxDecompressed = "RLSKIT_MAX_DECOMPRESSED"

	// DefaultMaxLine is the line bound when RLSKIT_MAX_LINE is not set.
	DefaultMaxLine = 64 << 20
	// DecompressedShare is the default budget's share of the memory the
	// process may use: 1/DecompressedShare of it.
	DecompressedShare = 8
	// MinDecompressed is the least default budget, however little memory
	// is reported available.
	MinDecompressed = 16 << 20
	// DefaultDecompressed is the budget when neither RLSKIT_MAX_DECOMPRESSED
	// nor the memory available can be read (systems without /proc).
	DefaultDecompressed = 1 << 30
)

// ErrLimit reports input beyond a reading bound: a line longer than the line
// bound, or compressed data expanding beyond the decompression budget. The
// error is a *LimitError, inside a *ParseError naming the file.
var ErrLimit = errors.New("dataset: input beyond a reading limit")

// LimitError is a bound reached while reading: what exceeded it, the bound,
// where it came from and the environment variable that raises it.
type LimitError struct {
	// What exceeded the bound: "a line", "a CSV record", "the decompressed
	// data", "the array's data", ….
	What string
	// Limit is the bound, in bytes.
	Limit int64
	// Need, when positive, is the bytes the input declares or would take.
	Need int64
	// Line is the 1-based line reached in a text file, 0 if not applicable.
	Line int
	// Source says how the bound was set: "default", "RLSKIT_MAX_LINE=…" or
	// "1/8 of the 1.3 GiB of memory this process may use".
	Source string
	// Env is the environment variable that raises the bound.
	Env string
}

// Error says what exceeded which bound and how to raise it.
func (e *LimitError) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	if e.Need > 0 {
		fmt.Fprintf(&b, " (%s)", byteSize(e.Need))
	}
	fmt.Fprintf(&b, " exceeds the limit of %s (%s; set %s to raise it, e.g. %s=%s)",
		byteSize(e.Limit), e.Source, e.Env, e.Env, suggestSize(max(e.Need, e.Limit)))
	return b.String()
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// byteSize writes n bytes for people: "67108864 bytes (64 MiB)".
func byteSize(n int64) string {
	const (
		kib = 1 << 10
		mib = 1 << 20
		gib = 1 << 30
	)
	switch {
	case n >= gib:
		return fmt.Sprintf("%d bytes, %.1f GiB", n, float64(n)/gib)
	case n >= mib:
		return fmt.Sprintf("%d bytes, %.1f MiB", n, float64(n)/mib)
	case n >= kib:
		return fmt.Sprintf("%d bytes, %.1f KiB", n, float64(n)/kib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// suggestSize returns a value of the variable above n: the next power of two
// in the largest unit that writes it whole.
func suggestSize(n int64) string {
	v := int64(1 << 20)
	for v <= n && v < 1<<62 {
		v <<= 1
	}
	switch {
	case v >= 1<<30:
		return strconv.FormatInt(v>>30, 10) + "G"
	default:
		return strconv.FormatInt(v>>20, 10) + "M"
	}
}

// qidCost is the memory charged for a new query name besides its bytes: its
// string header, map entry and name slot.
const qidCost = 64

// limits are the bounds of one reader, read when it opens its input.
type limits struct {
	line       int64 // ≤ 0: none
	lineSource string
	budget     int64 // decompression budget; ≤ 0: none
	budgetFrom string
}

// testLimits, when set (by tests and fuzz targets of this package), replaces
// the limits read from the environment.
var testLimits *limits

// readLimits returns the bounds: the environment variables, or the defaults.
// It is the one place RLSKIT_MAX_LINE and RLSKIT_MAX_DECOMPRESSED are read.
// O(1): a few small reads of /proc.
func readLimits() (limits, error) {
	if testLimits != nil {
		return *testLimits, nil
	}
	l := limits{line: DefaultMaxLine, lineSource: "the default"}
	if v, ok := os.LookupEnv(EnvMaxLine); ok && v != "" {
		n, err := parseSize(v)
		if err != nil {
			return l, fmt.Errorf("%w: %s=%q: %v", ErrOptions, EnvMaxLine, v, err)
		}
		l.line, l.lineSource = n, EnvMaxLine+"="+v
	}
	if v, ok := os.LookupEnv(EnvMaxDecompressed); ok && v != "" {
		n, err := parseSize(v)
		if err != nil {
			return l, fmt.Errorf("%w: %s=%q: %v", ErrOptions, EnvMaxDecompressed, v, err)
		}
		l.budget, l.budgetFrom = n, EnvMaxDecompressed+"="+v
		return l, nil
	}
	avail, ok := memoryAvailable()
	if !ok {
		l.budget, l.budgetFrom = DefaultDecompressed, "the default where the memory available is unknown"
		return l, nil
	}
	l.budget = max(int64(min(avail/DecompressedShare, 1<<62)), MinDecompressed)
	l.budgetFrom = fmt.Sprintf("1/%d of the %.2f GiB of memory this process may use", DecompressedShare, float64(avail)/(1<<30))
	return l, nil
}

// parseSize parses "123", "64K", "64M", "2G", "1T" (powers of 1024) or
// "unlimited" (0: no bound).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "unlimited") {
		return 0, nil
	}
	shift := 0
	if t != "" {
		switch t[len(t)-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		case 't', 'T':
			shift = 40
		}
		if shift > 0 {
			t = t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, errors.New("want a positive number of bytes, with an optional suffix K, M, G or T (64M, 2G), or unlimited")
	}
	return n << shift, nil
}

// memoryAvailable returns the bytes of memory the process may still allocate:
// the least of the machine's available memory and the room left under the
// process's address-space and data limits (sysmem.Available).
func memoryAvailable() (uint64, bool) { return sysmem.Available() }

// lineError returns a *LimitError for a line (or CSV record: what) beyond
// the line bound.
func (l limits) lineError(what string, line int) *LimitError {
	return &LimitError{What: what, Limit: l.line, Line: line, Source: l.lineSource, Env: EnvMaxLine}
}

// budgetError returns a *LimitError for data beyond the decompression budget.
func (l limits) budgetError(what string, need int64, line int) *LimitError {
	return &LimitError{What: what, Limit: l.budget, Need: need, Line: line, Source: l.budgetFrom, Env: EnvMaxDecompressed}
}
