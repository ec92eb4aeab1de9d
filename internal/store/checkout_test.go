package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// A checkout's history, walked in place from any directory of its work
// tree, gives each ledger's newest loop: commit and whether a person's
// commit changed it since, as `git log --first-parent` says; a directory
// outside any repository has none.
func TestCheckoutVersionsLikeGitLog(t *testing.T) {
	t.Parallel()
	ctl := historyRepo(t, 40, 4)
	// A person's commit on one ledger, a merge of a side branch that
	// changes another, and a loop: commit on a third after both.
	if err := os.WriteFile(filepath.Join(ctl, "plans", "s001-ledger.md"), []byte("person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, ctl, "commit", "--quiet", "-am", "fix a typo")
	testserver.Git(t, ctl, "checkout", "--quiet", "-b", "side", "main~3")
	if err := os.WriteFile(filepath.Join(ctl, "plans", "s002-ledger.md"), []byte("side\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, ctl, "commit", "--quiet", "-am", "side change")
	testserver.Git(t, ctl, "checkout", "--quiet", "main")
	testserver.Git(t, ctl, "merge", "--quiet", "--no-edit", "-X", "theirs", "side")
	if err := os.WriteFile(filepath.Join(ctl, "plans", "s003-ledger.md"), []byte("loop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, ctl, "commit", "--quiet", "-am", "loop: record again")

	paths := []string{"plans/s000-ledger.md", "plans/s001-ledger.md", "plans/s002-ledger.md", "plans/s003-ledger.md", "plans/none.md"}
	// What git says: per path, its newest commit and newest loop: commit.
	want := &LedgerVersions{Last: map[string]string{}, Edited: map[string]bool{}}
	for _, p := range paths {
		newest := ""
		for _, line := range strings.Split(testserver.Git(t, ctl, "log", "--first-parent", "--format=%H %s", "--", p), "\n") {
			sha, subject, _ := strings.Cut(strings.TrimSpace(line), " ")
			if sha == "" {
				continue
			}
			if newest == "" {
				newest = sha
			}
			if ledger.LoopAuthored(subject) {
				want.Last[p] = sha
				want.Edited[p] = newest != sha
				if !want.Edited[p] {
					delete(want.Edited, p)
				}
				break
			}
		}
	}
	if !want.Edited["plans/s001-ledger.md"] || !want.Edited["plans/s002-ledger.md"] || want.Edited["plans/s003-ledger.md"] {
		t.Fatalf("the history does not hold the cases it should: %+v", want)
	}
	for _, dir := range []string{ctl, filepath.Join(ctl, "plans")} {
		co, ok, err := OpenCheckout(dir)
		if err != nil || !ok {
			t.Fatalf("OpenCheckout(%s) = %v, %v", dir, ok, err)
		}
		if co.Top() != ctl {
			t.Errorf("Top() = %s, want %s", co.Top(), ctl)
		}
		got, err := co.LoopVersions(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LoopVersions from %s (-git +got):\n%s", dir, diff)
		}
		last := got.Last["plans/s003-ledger.md"]
		data, subject, ok, err := co.Version(context.Background(), last, "plans/s003-ledger.md")
		if err != nil || !ok || string(data) != "loop\n" || subject != "loop: record again" {
			t.Errorf("Version(%s) = %q, %q, %v, %v", last[:7], data, subject, ok, err)
		}
	}
	if _, ok, err := OpenCheckout(t.TempDir()); ok || err != nil {
		t.Errorf("OpenCheckout of a directory in no repository = %v, %v; want false, nil", ok, err)
	}
}
