package agent

import (
	"errors"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"
)

// Issue 12: the intent a dispatch records before its push (intent.go).

// A dispatch whose push lost the race leaves no intent behind: the winner's
// dispatch of the same row is not this cache's to call over.
func TestLostDispatchPushLeavesNoIntent(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z"}
	if err := ex.Intend(task); err != nil {
		t.Fatal(err)
	}
	// Another reconciler sharing the cache sees the reservation as busy.
	if _, err := lockCheckout(ex.checkoutDir(task)); !errors.Is(err, ErrCheckoutBusy) {
		t.Errorf("lock while reserved: %v, want busy", err)
	}
	ex.Abandon(task, false)
	if len(readIntents(ex.checkoutDir(task), task)) != 0 {
		t.Errorf("the intent of a push that did not land outlived it")
	}
	f, err := lockCheckout(ex.checkoutDir(task))
	if err != nil {
		t.Fatalf("the reservation was not released: %v", err)
	}
	f.Close()
}

// A second reservation of a checkout this process already reserved (a
// dispatch no Run took over, then the next one of the same entry) takes
// the held lock over: it waited lockWait on its own lock and then failed
// busy, which cost a learn task's second attempt 15 s.
func TestReservingAReservedCheckoutAgainTakesItsLock(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	first := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z"}
	second := first
	second.DispatchedAt = "2026-01-01T00:05:00Z"
	if err := ex.Intend(first); err != nil {
		t.Fatal(err)
	}
	if err := ex.Intend(second); err != nil {
		t.Fatalf("reserving the checkout again: %v", err)
	}
	if _, err := lockCheckout(ex.checkoutDir(second)); !errors.Is(err, ErrCheckoutBusy) {
		t.Errorf("lock while reserved again: %v, want busy", err)
	}
	ex.Abandon(second, false)
	f, err := lockCheckout(ex.checkoutDir(second))
	if err != nil {
		t.Fatalf("the reservation was not released: %v", err)
	}
	f.Close()
	if n := len(readIntents(ex.checkoutDir(first), first)); n != 1 {
		t.Errorf("%d intents of the first dispatch, want its record kept", n)
	}
}

// A run record answers only the dispatch it was written for: a record of
// an earlier dispatch of the same row at the same SHA (a rerun, or another
// reconciler's) is not this dispatch's orphan.
func TestRunRecordOfAnotherDispatchIsIgnored(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z"}
	if err := ex.Intend(task); err != nil {
		t.Fatal(err)
	}
	ex.Abandon(task, true)
	later := task
	later.DispatchedAt = "2026-01-01T00:05:00Z"
	rc, err := ex.Recover(t.Context(), later)
	if err != nil || rc.Known {
		t.Errorf("Recover of a later dispatch = %+v, %v; want nothing known", rc, err)
	}
	rc, err = ex.Recover(t.Context(), task)
	if err != nil || !rc.Known || rc.Outcome.Commits != 0 || rc.Running != 0 {
		t.Errorf("Recover of the intended dispatch = %+v, %v; want a known run that never started", rc, err)
	}
}

// The intent of a dispatch whose push loses its race never touches the run
// record of the dispatch the ledger still holds: that record is the only
// proof that its agent never answered.
func TestLostIntentKeepsTheLandedDispatchsRecord(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	landed := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z"}
	if err := ex.Intend(landed); err != nil {
		t.Fatal(err)
	}
	ex.Abandon(landed, true) // its reconciler died before the agent started
	lost := landed
	lost.DispatchedAt = "2026-01-01T00:00:05Z"
	if err := ex.Intend(lost); err != nil {
		t.Fatal(err)
	}
	ex.Abandon(lost, false) // a rerun whose push lost its race
	rc, err := ex.Recover(t.Context(), landed)
	if err != nil || !rc.Known {
		t.Errorf("Recover of the landed dispatch = %+v, %v; want the proof that it never started", rc, err)
	}
}

// Two reconcilers sharing the cache dispatch one row in one second; the
// loser's intent is kept (its push may have landed after all) but never
// replaces the winner's: both are read, and the pass believes the one whose
// control commit landed.
func TestIntentsOfOneSecondDoNotOverwriteEachOther(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	winner := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z", Control: "1111111111111111111111111111111111111111"}
	loser := winner
	loser.Control = "2222222222222222222222222222222222222222"
	for _, tk := range []Task{winner, loser} {
		if err := ex.Intend(tk); err != nil {
			t.Fatal(err)
		}
		ex.Abandon(tk, true)
	}
	rc, err := ex.Recover(t.Context(), winner)
	if err != nil || !rc.Known {
		t.Fatalf("Recover = %+v, %v", rc, err)
	}
	if len(rc.Controls) != 2 || !slices.Contains(rc.Controls, winner.Control) || !slices.Contains(rc.Controls, loser.Control) {
		t.Errorf("controls %v, want both intents'", rc.Controls)
	}
}

// A reservation given up is free at once even while this process forks
// children for other work: a forked child holds a copy of the lock's
// descriptor until its exec, and a release that only closed the file left
// the checkout locked for that moment, so a sibling saw it busy (the flake
// that found this was a parallel test's fork).
func TestAbandonedReservationIsFreeWhileForking(t *testing.T) {
	t.Parallel()
	ex := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir()}
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", Branch: "gallivant/feature", DispatchedAt: "2026-01-01T00:00:00Z"}
	stop := make(chan struct{})
	var forks sync.WaitGroup
	for range 4 {
		forks.Add(1)
		go func() {
			defer forks.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("true").Run()
			}
		}()
	}
	defer forks.Wait()
	defer close(stop)
	busy := 0
	for range 300 {
		if err := ex.Intend(task); err != nil {
			t.Fatal(err)
		}
		ex.Abandon(task, false)
		f, err := lockCheckout(ex.checkoutDir(task))
		if errors.Is(err, ErrCheckoutBusy) {
			busy++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if busy != 0 {
		t.Errorf("%d of 300 released reservations were still locked while children were forked", busy)
	}
}
