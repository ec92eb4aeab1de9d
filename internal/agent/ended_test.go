package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// A run whose reconciler is told to stop (its context cancelled) ends with
// ErrEnded and keeps its run record: the next pass's Recover finds the
// ended run at once — known, not running, what the agent left collected —
// so the dispatch is settled or re-run without waiting for
// executor.timeout + grace (issue 27).
func TestEndedRunIsRecoveredAtOnce(t *testing.T) {
	remote, base := remoteRepo(t)
	task := Task{Spec: "specs/feature.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/feature", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 4, Brief: "# Task\n", DispatchedAt: "2026-12-01T10:00:00Z"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir(), Agent: func(runCtx context.Context, dir string, _ Task) error {
		if err := os.WriteFile(filepath.Join(dir, "half.txt"), []byte("half done\n"), 0o644); err != nil {
			return err
		}
		cancel() // the second interrupt
		<-runCtx.Done()
		return runCtx.Err()
	}}
	_, err := e.Run(ctx, task)
	if !errors.Is(err, ErrEnded) || !strings.Contains(err.Error(), "1 | home | ") {
		t.Fatalf("Run = %v; want ErrEnded naming the task", err)
	}
	if _, ok := readRunRecord(e.checkoutDir(task)); !ok {
		t.Fatal("the run record is gone; the next pass cannot know the agent ended")
	}
	rc, err := e.Recover(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	// Its half-done tree is no return and no boundary: the pass re-runs
	// the dispatch (ledger.Settle's orphaned rerun).
	if !rc.Known || rc.Running != 0 || !rc.Outcome.Finished || rc.Outcome.Commits != 0 || rc.Outcome.Dirty {
		t.Errorf("Recover = %+v; want a known, ended run with nothing to settle", rc)
	}
	log, _ := os.ReadFile(rc.Outcome.Log)
	if !strings.Contains(string(log), "the agent was ended: gallivant was interrupted") {
		t.Errorf("the run's log does not say it was ended:\n%s", log)
	}
}
