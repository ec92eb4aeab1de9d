package reconcile

import (
	"context"
	"errors"
	"sync"

	"github.com/gallivant/gallivant/internal/agent"
)

// A pass runs agents of different entries at once (executor.max_parallel,
// executor.max_parallel_per_repo) while everything else stays as if it ran
// alone: each entry is worked by its own goroutine, but only the goroutine
// holding the pass lock touches the pass's state — the control store and
// its commits and pushes, the report, the GitHub adapter's calls. An entry
// lets the lock go only while its agent runs (runAgent), so control
// commits stay serialized, each entry's in its order, and an agent that
// finishes takes the lock back to be settled while others still run.
//
// Entries start in the pass's order, the next one only once the one
// before has finished or handed its agent off: a pass whose executor runs
// no agent here (none, workflow, a dry run) is exactly the sequential
// pass.

// scheduler is one pass's lock and agent slots.
type scheduler struct {
	mu    sync.Mutex // the pass lock
	slots chan struct{}
	// perRepo bounds the runs per member repository; nil when only slots
	// applies.
	perRepo  map[string]chan struct{}
	repoCap  int
	repoMu   sync.Mutex
	wg       sync.WaitGroup
	handoffs map[*entry]chan struct{}
	// abort is the error that ends the pass (a lost push race, a crash
	// point, a cancelled context): entries whose agent finishes after it
	// keep their outcome for the re-planned pass and stop.
	abort error
	// halt stops entries from starting (GitHub refused the credentials,
	// is unreachable, or rate-limits): those already started finish.
	halt bool
	// panicked is a panic of an entry's goroutine, raised again in the
	// pass's own once every entry is done, as if the pass had panicked.
	panicked any
}

func newScheduler(maxParallel, perRepo int) *scheduler {
	if maxParallel < 1 {
		maxParallel = 1
	}
	s := &scheduler{slots: make(chan struct{}, maxParallel), handoffs: map[*entry]chan struct{}{}}
	if perRepo > 0 && perRepo < maxParallel {
		s.perRepo, s.repoCap = map[string]chan struct{}{}, perRepo
	}
	return s
}

// errAborted ends an entry whose agent finished after the pass was
// aborted; the pass reports the abort's own error.
var errAborted = errors.New("the pass was aborted while the agent ran")

// forEntries works each entry with work, in order, the next starting when
// the previous one finishes or hands its agent off, and returns when every
// entry is done. Without a scheduler (max_parallel 1) it is a plain loop.
func (p *passState) forEntries(entries []*entry, work func(e *entry)) {
	s := p.sched
	if s == nil {
		for _, e := range entries {
			if p.halted() {
				return
			}
			work(e)
		}
		return
	}
	s.mu.Lock()
	// A chain's milestones run one after another, as in the sequential
	// pass: a milestone merged this pass lets its successor start in it.
	chainDone := map[string]chan struct{}{}
	for _, e := range entries {
		key := p.chainKey(e)
		if prev := chainDone[key]; prev != nil {
			s.mu.Unlock()
			<-prev
			s.mu.Lock()
		}
		if s.abort != nil || s.halt {
			break
		}
		handed, done := make(chan struct{}), make(chan struct{})
		if key != "" {
			chainDone[key] = done
		}
		s.handoffs[e] = handed
		s.wg.Add(1)
		go func() {
			defer close(done)
			defer s.wg.Done()
			// The goroutine holds the lock this loop took, and holds it
			// again whenever work returns or panics (runAgent).
			defer func() {
				if v := recover(); v != nil && s.panicked == nil {
					s.panicked = v
					if s.abort == nil {
						s.abort = errAborted
					}
				}
				s.handOff(e)
				s.mu.Unlock()
			}()
			work(e)
		}()
		<-handed
		s.mu.Lock()
	}
	// Wait for the agents still running, and their settling; the pass
	// then goes on (its final push) alone.
	s.mu.Unlock()
	s.wg.Wait()
	if s.panicked != nil {
		panic(s.panicked)
	}
}

// chainKey names e's chain, "" when e is in none.
func (p *passState) chainKey(e *entry) string {
	if cp, ok := p.repo.ChainOf[e.specPath]; ok {
		return cp.Chain.Milestones[0].Path
	}
	return ""
}

// handOff tells forEntries that e no longer needs the lock to itself
// (its agent runs, or it is done); only the first call counts.
func (s *scheduler) handOff(e *entry) {
	if ch, ok := s.handoffs[e]; ok {
		close(ch)
		delete(s.handoffs, e)
	}
}

// abortWith records the error that ends the pass; the first one counts.
func (p *passState) abortWith(err error) {
	if p.aborted == nil {
		p.aborted = err
	}
	if p.sched != nil && p.sched.abort == nil {
		p.sched.abort = err
	}
}

// haltWith stops further entries from starting.
func (p *passState) haltWith() {
	p.halt = true
	if p.sched != nil {
		p.sched.halt = true
	}
}

func (p *passState) halted() bool { return p.halt || p.aborted != nil }

// runAgent runs an agent for e in repo without the pass lock, in a slot.
// Called with the lock held; returns with it held. The error is
// errAborted when the pass was aborted meanwhile (run's outcome is kept
// by the caller all the same).
func (p *passState) runAgent(ctx context.Context, e *entry, repo string, run func()) error {
	s := p.sched
	if s == nil || p.Executor.Placement() != agent.Local {
		// Only an agent run here is worth the wait; handing a dispatch to
		// a workflow takes a moment and stays in the pass's order.
		run()
		return nil
	}
	s.handOff(e)
	s.mu.Unlock()
	release, err := s.acquire(ctx, repo)
	var panicked any
	if err == nil {
		func() {
			defer func() { panicked = recover() }()
			defer release()
			run()
		}()
	}
	s.mu.Lock()
	if panicked != nil {
		panic(panicked)
	}
	if err != nil {
		return err
	}
	if s.abort != nil {
		return errAborted
	}
	return nil
}

// acquire takes a slot, and one of repo's when runs per repository are
// bounded.
func (s *scheduler) acquire(ctx context.Context, repo string) (func(), error) {
	var rs chan struct{}
	if s.perRepo != nil {
		s.repoMu.Lock()
		rs = s.perRepo[repo]
		if rs == nil {
			rs = make(chan struct{}, s.repoCap)
			s.perRepo[repo] = rs
		}
		s.repoMu.Unlock()
		select {
		case rs <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		if rs != nil {
			<-rs
		}
		return nil, ctx.Err()
	}
	return func() {
		<-s.slots
		if rs != nil {
			<-rs
		}
	}, nil
}
