package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// A verification that names the head it verifies (Task.Head) checks it
// out from the mirror the run that returned it pushed from, without asking
// the remote: with the remote gone it still verifies that head. A head the
// mirror lacks, or none, fetches as before (and here fails, the remote
// being gone), so a commit gallivant never saw is never taken on trust.
func TestVerifyHeadFromMirrorSkipsFetch(t *testing.T) {
	t.Parallel()
	remote, base := remoteRepo(t)
	e := CommandExecutor{Timeout: time.Minute, WorkDir: t.TempDir(), Agent: func(_ context.Context, dir string, _ Task) error {
		if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n"), 0o644); err != nil {
			return err
		}
		gitIn(t, dir, "add", "-A")
		gitIn(t, dir, "commit", "--quiet", "-m", "row 1")
		return nil
	}}
	task := Task{Spec: "specs/calc.md", Repo: "acme/api", CloneURL: remote, Branch: "gallivant/calc", Base: "main",
		Pending: ledger.Pending{Target: 1, Member: "home", SHA: base}, Iteration: 1, Brief: "# Task\n"}
	out, err := e.Run(context.Background(), task)
	if err != nil || out.Err != nil || out.Commits != 1 {
		t.Fatalf("run: %v, %+v", err, out)
	}
	pushed := gitIn(t, remote, "rev-parse", "refs/heads/gallivant/calc")
	// Every fetch from now on fails.
	if err := os.Rename(remote, remote+".gone"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, head string
		wantErr    bool
	}{
		{"the head the run pushed", pushed, false},
		{"no head", "", true},
		{"a head the mirror lacks", strings.Repeat("ab", 20), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vt := task
			vt.Pending, vt.Head = ledger.Pending{}, tc.head
			res, err := e.Verify(context.Background(), vt, []string{"test -f calc.go"}, nil)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("verified %s with the remote gone: %+v", res.Head, res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Head != pushed || !res.Passed {
				t.Errorf("verified %s (passed %v), want %s passed:\n%s", res.Head, res.Passed, pushed, res.Tail)
			}
		})
	}
}
