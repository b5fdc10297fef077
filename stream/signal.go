package stream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ErrInterrupted is the cause of a context of NotifyContext cancelled by a
// signal (errors.Is(err, ErrInterrupted) for what Run returns then).
var ErrInterrupted = errors.New("interrupted")

// cleanupKey keys a context's cleanups (NotifyContext).
type cleanupKey struct{}

// cleanups counts what is spilled to disk under a context and not yet removed.
type cleanups struct{ wg sync.WaitGroup }

// HoldCleanup registers, under a context of NotifyContext, something on disk
// that its holder removes — a prediction store, an engine's temporary
// directory — and returns the function the holder calls once it has removed
// it. NotifyContext's stop waits for every registered removal. Under another
// context it does nothing. O(1).
func HoldCleanup(ctx context.Context) (release func()) {
	c, ok := ctx.Value(cleanupKey{}).(*cleanups)
	if !ok {
		return func() {}
	}
	c.wg.Add(1)
	var once sync.Once
	return func() { once.Do(c.wg.Done) }
}

// NotifyContext ties SIGINT and SIGTERM to a streaming fit, for front ends:
// ctx is cancelled by the first of them (its cause wraps ErrInterrupted and
// names the signal), and Run — or another engine given ctx — stops its pass
// and removes what it spilled to disk (prediction stores, temporary
// directories) before it returns. A front end defers stop, or calls it before
// exiting: stop waits, up to a minute, for every removal registered under ctx
// (HoldCleanup) to finish, then releases the signals — until then a second
// signal does not end the process half-way through the removal — and
// returns the signal received, or nil. The conventional exit status after a
// signal is 128 + its number (130 for SIGINT, 143 for SIGTERM).
//
//	ctx, stop := stream.NotifyContext(context.Background())
//	defer stop()
//	res, err := stream.Run(ctx, opt, src, ro)
func NotifyContext(parent context.Context) (ctx context.Context, stop func() os.Signal) {
	c := &cleanups{}
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, cleanupKey{}, c))
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var (
		mu  sync.Mutex
		got os.Signal
	)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			mu.Lock()
			got = s
			mu.Unlock()
			cancel(fmt.Errorf("%w by %v", ErrInterrupted, s))
		case <-done:
		}
	}()
	var once sync.Once
	stop = func() os.Signal {
		once.Do(func() {
			close(done)
			waited := make(chan struct{})
			go func() { c.wg.Wait(); close(waited) }()
			select {
			case <-waited:
			case <-time.After(time.Minute):
			}
			signal.Stop(ch)
			cancel(context.Canceled)
		})
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, stop
}
