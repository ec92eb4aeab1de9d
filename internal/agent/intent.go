package agent

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A dispatch is write-ahead: its `loop:` commit is pushed before the agent
// starts, so two reconcilers never both run it. A reconciler killed between
// that push and the agent's start used to leave a dispatch no cache knew
// anything about, which only a person could call over once executor.timeout
// and the grace period had passed. The intent closes that window: before the
// push, the executor writes the run record of the dispatch it is about to
// start (with no checkout HEAD yet) and holds the checkout's lock until Run
// takes it over. Each intent is a file of its own, named by the dispatch's
// dispatched-at (<checkout>.intent-<time>): until the push lands, the run
// record or intent of the dispatch the ledger still holds is its only proof
// and must survive a push that loses its race. Run removes every intent of
// the checkout once its own record is written: the dispatch it runs has
// landed and supersedes them. The next pass on this cache then finds the record with the
// lock free and no agent ever started, which proves the dispatch never ran:
// the pass reruns it at once, with no person and no wait for the timeout.

// intents holds the checkout locks Intend took, by checkout directory,
// until Run takes them over or Forget releases them.
var intents = struct {
	sync.Mutex
	locks map[string]*os.File
}{locks: map[string]*os.File{}}

// Intend writes t's run record with no checkout HEAD (the agent has not
// started) and keeps the checkout locked, so a sibling reconciler on this
// cache never mistakes the reservation for a dead run while this process
// prepares to start the agent.
func (e CommandExecutor) Intend(t Task) error {
	dir := e.checkoutDir(t)
	// A reservation this process already holds for the checkout (an
	// earlier dispatch no Run took over) is this one's: waiting for the
	// lock would wait on itself for lockWait.
	lock := takeIntent(dir)
	if lock == nil {
		var err error
		if lock, err = lockCheckoutWait(dir); err != nil {
			return err
		}
	}
	rec := runRecord{Spec: t.Spec, Branch: t.Branch, Pending: t.Pending.String(), Iteration: t.Iteration, Round: t.Round,
		DispatchedAt: t.DispatchedAt, Control: t.Control, Started: time.Now().UTC()}
	if err := writeRecord(intentPath(dir, t), rec); err != nil {
		releaseCheckout(lock)
		return err
	}
	intents.Lock()
	intents.locks[dir] = lock
	intents.Unlock()
	return nil
}

// Abandon releases the checkout Intend reserved for t; unless keep is set,
// it also removes the intent, which then describes no dispatch.
func (e CommandExecutor) Abandon(t Task, keep bool) {
	dir := e.checkoutDir(t)
	if !keep {
		os.Remove(intentPath(dir, t))
	}
	if lock := takeIntent(dir); lock != nil {
		releaseCheckout(lock)
	}
}

// intentPath is where Intend records t next to the checkout dir: one file
// per dispatch, named by its dispatched-at and its control commit, so that
// two reconcilers sharing the cache that dispatch one row in one second
// (one of whom loses the race) never overwrite each other's intent.
func intentPath(dir string, t Task) string {
	control := t.Control
	if len(control) > 12 {
		control = control[:12]
	}
	if control == "" {
		control = "0"
	}
	return intentPrefix(dir, t) + control
}

func intentPrefix(dir string, t Task) string {
	key := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, t.DispatchedAt)
	if key == "" {
		key = "0"
	}
	return dir + ".intent-" + key + "-"
}

// readIntents reads the intents recorded for t's dispatched-at that answer
// t; the pass believes one whose control commit landed.
func readIntents(dir string, t Task) []runRecord {
	paths, _ := filepath.Glob(intentPrefix(dir, t) + "*")
	var out []runRecord
	for _, p := range paths {
		if rec, ok := readRecord(p); ok && rec.answers(t) {
			out = append(out, rec)
		}
	}
	return out
}

// removeIntents removes every intent of the checkout dir.
func removeIntents(dir string) {
	old, _ := filepath.Glob(dir + ".intent-*")
	for _, f := range old {
		os.Remove(f)
	}
}

// takeIntent hands Run the lock Intend took for dir, if any.
func takeIntent(dir string) *os.File {
	intents.Lock()
	defer intents.Unlock()
	lock := intents.locks[dir]
	delete(intents.locks, dir)
	return lock
}
