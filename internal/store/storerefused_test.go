package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/store"
)

// A control branch whose rules refuse gallivant's push (a ruleset that
// requires pull requests, as docs/verify.md suggests protecting it) fails
// the push with what GitHub said and the documented way to let gallivant
// record: its App on the ruleset's bypass list. With the App there, the
// same push lands (issue 30 item 1).
func TestPushRefusedByBranchRulesSaysHowToAllowIt(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/control")
	ctx := context.Background()
	bot := testserver.InstallationToken(t, s, 42, "gallivant-acme", "acme")
	s.Protect("acme/control", "main", ghstandin.Protection{Ruleset: true, RequiredReviews: 1})

	push := func(token, name string) error {
		t.Helper()
		st, err := store.Open(ctx, store.Options{Control: s.GitURL("acme/control"), Branch: "main", CacheDir: t.TempDir(), Token: token})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Commit(context.Background(), "plans/"+name+".md", []byte(name+"\n"), "loop: "+name, time.Now()); err != nil {
			t.Fatal(err)
		}
		return st.Push(ctx)
	}
	for _, tc := range []struct{ name, token string }{
		{"an administrator's token", s.MainToken()},
		{"the App, not yet on the bypass list", bot},
	} {
		err := push(tc.token, "refused")
		if !errors.Is(err, store.ErrPushRefused) {
			t.Fatalf("%s: push error %v, want ErrPushRefused", tc.name, err)
		}
		for _, want := range []string{"GitHub refused gallivant's push to main", "GH013: Repository rule violations found for refs/heads/main.",
			"Changes must be made through a pull request.", "add gallivant's GitHub App to the bypass list of the ruleset that protects main",
			"docs/github.md#protecting-the-control-branch"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: push error lacks %q:\n%v", tc.name, want, err)
			}
		}
		if errors.Is(err, store.ErrPushRejected) || strings.Contains(err.Error(), tc.token) {
			t.Errorf("%s: the refusal reads as a lost race or carries the token: %v", tc.name, err)
		}
	}
	s.Protect("acme/control", "main", ghstandin.Protection{Ruleset: true, RequiredReviews: 1, BypassApps: []string{"gallivant-acme"}})
	if err := push(bot, "bypassed"); err != nil {
		t.Fatalf("the App on the bypass list: %v", err)
	}
	if err := push(s.MainToken(), "still-refused"); !errors.Is(err, store.ErrPushRefused) {
		t.Errorf("an administrator's push past the ruleset: %v, want ErrPushRefused", err)
	}
}

// Classic protection refuses with GH006, and the error says so too.
func TestPushRefusedByClassicProtection(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/control")
	ctx := context.Background()
	s.Protect("acme/control", "main", ghstandin.Protection{RequiredReviews: 1, EnforceAdmins: true})
	st, err := store.Open(ctx, store.Options{Control: s.GitURL("acme/control"), Branch: "main", CacheDir: t.TempDir(), Token: s.MainToken()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(context.Background(), "plans/a.md", []byte("a\n"), "loop: a", time.Now()); err != nil {
		t.Fatal(err)
	}
	err = st.Push(ctx)
	if !errors.Is(err, store.ErrPushRefused) || !strings.Contains(err.Error(), "GH006: Protected branch update failed for refs/heads/main.") ||
		!strings.Contains(err.Error(), "let gallivant's GitHub App push to main") {
		t.Errorf("push error %v, want the GH006 refusal and how to allow gallivant", err)
	}
}
