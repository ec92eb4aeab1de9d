package reconcile

import (
	"testing"
	"time"

	"github.com/gallivant/gallivant/reconcile/githubtest"
	"github.com/google/go-cmp/cmp"
)

// Issue 11, finding 9: a marker pre-posted by someone else must not
// suppress gallivant's own comment.
func TestEnsureCommentIgnoresMarkerOfAnotherUser(t *testing.T) {
	s := githubtest.Start(t, "acme/api")
	g, _ := adapter(t, s, githubtest.DefaultLogin, nil)
	mallory, _ := adapter(t, s, "mallory", nil)
	ctx := t.Context()
	pushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	if err != nil {
		t.Fatal(err)
	}
	marker := Marker("ready-0123456789abcdef")
	if _, err := mallory.EnsureComment(ctx, "acme/api", pr.Number, marker, "nothing to see "+marker); err != nil {
		t.Fatal(err)
	}
	created, err := g.EnsureComment(ctx, "acme/api", pr.Number, marker, "ready "+marker)
	if err != nil || !created {
		t.Fatalf("EnsureComment after a foreign marker: created %v err %v, want a post", created, err)
	}
	// gallivant's own marker still makes the write idempotent.
	created, err = g.EnsureComment(ctx, "acme/api", pr.Number, marker, "ready "+marker)
	if err != nil || created {
		t.Errorf("second EnsureComment: created %v err %v, want no post", created, err)
	}
	cs, err := g.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var authors []string
	for _, c := range cs {
		authors = append(authors, c.User)
	}
	if diff := cmp.Diff([]string{"mallory", githubtest.DefaultLogin}, authors); diff != "" {
		t.Errorf("comment authors (-want +got):\n%s", diff)
	}
}

func TestPermission(t *testing.T) {
	s := githubtest.Start(t, "acme/api")
	g, _ := adapter(t, s, githubtest.DefaultLogin, nil)
	if _, err := s.SetRole("olivia", githubtest.RoleRead); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRole("ada", githubtest.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	s.Token("walt") // a user with a token and no role has write
	for _, tc := range []struct{ login, want string }{
		{"acme", "admin"}, // the owner
		{"ada", "admin"},
		{"walt", "write"},
		{"olivia", "read"},
		{"nobody-at-all", "none"}, // GitHub answers 404 for an unknown login
	} {
		t.Run(tc.login, func(t *testing.T) {
			got, err := g.Permission(t.Context(), "acme/api", tc.login)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Permission(%s) = %q, want %q", tc.login, got, tc.want)
			}
		})
	}
}

// A read-only user can comment and open pull requests but not label.
func TestStandInRefusesWritesOfReadOnlyUser(t *testing.T) {
	s := githubtest.Start(t, "acme/api")
	g, _ := adapter(t, s, githubtest.DefaultLogin, nil)
	if _, err := s.SetRole("olivia", githubtest.RoleRead); err != nil {
		t.Fatal(err)
	}
	olivia, _ := adapter(t, s, "olivia", nil)
	ctx := t.Context()
	pushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := olivia.CreatePullRequest(ctx, "acme/api", "f", "main", "Outsider", "")
	if err != nil {
		t.Fatalf("a read-only user opens a pull request: %v", err)
	}
	if _, err := olivia.EnsureComment(ctx, "acme/api", pr.Number, Marker("x"), "hi "+Marker("x")); err != nil {
		t.Errorf("a read-only user comments: %v", err)
	}
	if err := olivia.AddLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err == nil {
		t.Errorf("a read-only user labelled a pull request")
	}
	if err := g.AddLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err != nil {
		t.Errorf("gallivant labels: %v", err)
	}
}
