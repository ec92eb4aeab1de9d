package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gallivant/gallivant/audit"
)

// countdown is a context whose Err turns context.Canceled after its first
// left calls: a walk that checks it once per commit is cancelled in the
// middle, at a point counted in work, not in time. calls says how often
// it was asked in all, so how far the walk went on after it ended.
type countdown struct {
	context.Context
	left, calls int
}

func (c *countdown) Err() error {
	c.calls++
	if c.calls > c.left {
		return context.Canceled
	}
	return nil
}

// Every read that walks history or a tree honours its context: on a
// 10,000-commit history, a walk whose context ends after 100 steps
// returns context.Canceled within a few steps of it, not after the
// remaining 9,900 commits, and a walk whose callback cancels it makes no
// further call.
func TestReadsStopWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	const commits, after = 10000, 100
	st, err := Open(context.Background(), Options{Control: historyRepo(t, commits, 100)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		read func(ctx context.Context) error
	}{
		{"History", func(ctx context.Context) error {
			return st.History(ctx, "", nil, func(audit.Commit) error { return nil })
		}},
		{"Log", func(ctx context.Context) error {
			_, err := st.Log(ctx, "plans/s042-ledger.md", 0)
			return err
		}},
		{"LoopVersions", func(ctx context.Context) error {
			// A path no commit changed: the walk would go back
			// maxTamperWalk commits.
			_, err := st.LoopVersions(ctx, []string{"plans/s999-ledger.md"})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := &countdown{Context: context.Background(), left: after}
			err := tc.read(ctx)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if ctx.calls > after+3 {
				t.Errorf("the walk asked its context %d times, %d after it ended", ctx.calls, ctx.calls-after)
			}
		})
	}
	t.Run("History/callback", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls := 0
		err := st.History(ctx, "", nil, func(audit.Commit) error {
			calls++
			if calls == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || calls != 10 {
			t.Errorf("History = %v after %d calls, want context.Canceled after 10", err, calls)
		}
	})
	// A cancelled LoopVersions keeps nothing: the next answer is whole.
	v, err := st.LoopVersions(context.Background(), []string{"plans/s042-ledger.md", "plans/s999-ledger.md"})
	if err != nil {
		t.Fatal(err)
	}
	if v.Last["plans/s042-ledger.md"] == "" || v.Last["plans/s999-ledger.md"] != "" {
		t.Errorf("LoopVersions after a cancelled walk = %v", v.Last)
	}
}

// The reads that do not walk a history refuse a context that has ended,
// and a commit made under one is not made.
func TestReadsRefuseAnEndedContext(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), Options{Control: historyRepo(t, 20, 3)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tip := st.Tip()
	for name, err := range map[string]error{
		"ReadFile": func() error { _, _, err := st.ReadFile(ctx, tip, "gallivant.yaml"); return err }(),
		"Files":    func() error { _, _, err := st.Files(ctx, []string{"plans"}); return err }(),
		"Commit": func() error {
			_, err := st.Commit(ctx, "plans/x.md", []byte("x\n"), "loop: x", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			return err
		}(),
	} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s = %v, want context.Canceled", name, err)
		}
	}
	if st.Tip() != tip {
		t.Errorf("a cancelled Commit moved the tip from %s to %s", tip, st.Tip())
	}
	root := firstCommit(t, st)
	for _, tc := range []struct {
		ctx  context.Context
		sha  string
		want bool
	}{
		{ctx, st.Head(), true}, // the head itself: no walk
		{ctx, root, false},     // not known to have landed
		{context.Background(), root, true},
	} {
		if got := st.Landed(tc.ctx, tc.sha); got != tc.want {
			t.Errorf("Landed(%s) with ctx.Err() = %v is %v, want %v", tc.sha[:7], tc.ctx.Err(), got, tc.want)
		}
	}
}

// firstCommit is the root of st's history.
func firstCommit(t *testing.T, st *Store) string {
	t.Helper()
	var root string
	err := st.History(context.Background(), "", nil, func(c audit.Commit) error {
		if root == "" {
			root = c.SHA
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}
