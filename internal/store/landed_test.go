package store_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/store"
)

// Issue 33: a control push that landed although its answer failed (a 502
// after the update, a reset mid-answer) is read back and recorded as
// made; one refused with a 5xx is not, and is made again. Either way the
// next commit and push of the same store land on top.
func TestPushLandedReadsTheBranchBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		kind   ghstandin.FaultKind
		landed bool
	}{
		{"lost answer", ghstandin.FaultLostResponse, true},
		{"reset mid-answer", ghstandin.FaultReset, true},
		{"5xx", ghstandin.FaultStatus, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, "acme/control")
			ctx := context.Background()
			st, err := store.Open(ctx, store.Options{Control: s.GitURL("acme/control"), Branch: "main", CacheDir: t.TempDir(), Token: s.MainToken()})
			if err != nil {
				t.Fatal(err)
			}
			sha, err := st.Commit(context.Background(), "plans/a.md", []byte("a\n"), "loop: a", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			s.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `/git-receive-pack$`, Kind: tt.kind, Count: 1})
			perr := st.Push(ctx)
			if perr == nil {
				t.Fatal("the push met no fault")
			}
			if got := st.PushLanded(ctx, perr); got != tt.landed {
				t.Errorf("PushLanded after %v = %v, want %v", perr, got, tt.landed)
			}
			if st.Unpushed() == tt.landed {
				t.Errorf("Unpushed() = %v after PushLanded %v", st.Unpushed(), tt.landed)
			}
			remote := func() string {
				out, err := exec.Command("git", "--git-dir", s.RepoDir("acme/control"), "rev-parse", "main").CombinedOutput()
				if err != nil {
					t.Fatalf("rev-parse main: %v %s", err, out)
				}
				return strings.TrimSpace(string(out))
			}
			if got := remote(); (got == sha) != tt.landed {
				t.Errorf("the remote's main is %s; the commit %s landed: %v, want %v", got, sha, got == sha, tt.landed)
			}
			next, err := st.Commit(context.Background(), "plans/b.md", []byte("b\n"), "loop: b", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Push(ctx); err != nil {
				t.Fatalf("the next push: %v", err)
			}
			if got := remote(); got != next {
				t.Errorf("the remote's main is %s after the next push, want %s", got, next)
			}
			if !tt.landed {
				return
			}
			// Nothing to read back without a failed push.
			if st.PushLanded(ctx, nil) {
				t.Error("PushLanded(nil) = true")
			}
		})
	}
}
