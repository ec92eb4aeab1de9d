package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/reconcile"
)

// Interrupting a pass. The first SIGINT or SIGTERM during `reconcile` does
// not kill a running agent: the pass starts no new agent (Drain) and ends
// when the running one does, which executor.timeout bounds. A second signal
// ends the agent; its run record stays, so the next pass settles what it
// left or re-runs its dispatch at once — no executor.timeout + grace wait,
// no interrupted stop for a person. Either way the message says what
// happened.

// interrupted is what interrupts did to one pass.
type interrupted struct {
	// first is set when the pass was asked to stop; ended when a second
	// signal ended it and its agent.
	first, ended bool
}

// interruptible runs pass on a context the first interrupt (ctx done) does
// not cancel: it calls drain and tells w, then listens for a second
// interrupt (listen, called only after the first, so the first is never
// counted twice), which cancels the pass. The helper goroutine ends with
// the pass.
func interruptible(ctx context.Context, listen func() (<-chan os.Signal, func()), drain func(), w io.Writer,
	pass func(context.Context) (*reconcile.Report, error)) (*reconcile.Report, interrupted, error) {
	passCtx, abort := context.WithCancel(context.WithoutCancel(ctx))
	defer abort()
	done := make(chan struct{})
	state := make(chan interrupted, 1)
	go func() {
		var in interrupted
		defer func() { state <- in }()
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		in.first = true
		second, stop := listen()
		defer stop()
		drain()
		fmt.Fprintln(w, "gallivant: interrupted: no new agent starts; a running agent may finish (at most executor.timeout) and the pass then ends; interrupt again to end it now (the next pass settles or re-runs its dispatch)")
		select {
		case <-second:
			in.ended = true
			abort()
		case <-done:
		}
	}()
	rep, err := pass(passCtx)
	close(done)
	return rep, <-state, err
}

// interruptExit words the end of an interrupted pass: an ended agent is
// exit 2 (the pass could not finish) with what happens next; a pass that
// finished after the first interrupt exits as any pass does.
func interruptExit(w io.Writer, in interrupted, rep *reconcile.Report, err error, tokenVar string) error {
	switch {
	case in.ended && (errors.Is(err, agent.ErrEnded) || errors.Is(err, context.Canceled)):
		return &exitError{code: exitCannotRun, err: fmt.Errorf("interrupted twice: the pass was ended; what it pushed stands, and an agent it ended is settled or re-run at once by the next pass")}
	case in.first && err == nil:
		fmt.Fprintln(w, "gallivant: interrupted: the pass finished the work it had started; entries it did not reach are left for the next pass")
	}
	return passExit(rep, err, tokenVar)
}

// listenInterrupt delivers the next SIGINT or SIGTERM; stop ends that.
func (a *app) listenInterrupt() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}
