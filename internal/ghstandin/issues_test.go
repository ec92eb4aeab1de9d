package ghstandin_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

const editsQuery = `query($owner: String!, $name: String!, $n: Int!) {
  repository(owner: $owner, name: $name) { issue(number: $n) { number body author { login }
    userContentEdits(first: 10) { totalCount nodes { editor { login } editedAt diff } } } } }`

// An issue's body is edited by its author or a writer, never by a
// read-only user (GitHub's 403), and every change is a content edit that
// GraphQL names the editor of, newest first.
func TestIssueEditsAndWhoMayMakeThem(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/control")
	if _, err := s.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gallivant := s.Client("gallivant")
	is, _, err := gallivant.Issues.Create(ctx, "acme", "control", &github.IssueRequest{Title: github.String("Dashboard"), Body: github.String("- [ ] one")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	if _, _, err := s.Client("bob").Issues.Edit(ctx, "acme", "control", n, &github.IssueRequest{Body: github.String("- [x] one")}); err != nil {
		t.Fatalf("a writer's edit: %v", err)
	}
	_, _, err = s.Client("mallory").Issues.Edit(ctx, "acme", "control", n, &github.IssueRequest{Body: github.String("- [x] one, by me")})
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusForbidden {
		t.Fatalf("a read-only user's edit of someone else's issue: %v, want 403", err)
	}
	own, _, err := s.Client("mallory").Issues.Create(ctx, "acme", "control", &github.IssueRequest{Title: github.String("mine")})
	if err != nil {
		t.Fatalf("a reader opens an issue: %v", err)
	}
	if _, _, err := s.Client("mallory").Issues.Edit(ctx, "acme", "control", own.GetNumber(), &github.IssueRequest{Body: github.String("edited")}); err != nil {
		t.Fatalf("a reader edits their own issue: %v", err)
	}

	a := gql(t, s, "gallivant", editsQuery, map[string]any{"owner": "acme", "name": "control", "n": n})
	if len(a.Errors) > 0 {
		t.Fatalf("errors: %+v", a.Errors)
	}
	issue := at(a.Data, "repository", "issue")
	if got := at(issue, "body"); got != "- [x] one" {
		t.Errorf("body %v", got)
	}
	var got []string
	for _, e := range at(issue, "userContentEdits", "nodes").([]any) {
		got = append(got, at(e, "editor", "login").(string)+": "+at(e, "diff").(string))
	}
	if diff := cmp.Diff([]string{"bob: - [x] one", "gallivant: - [ ] one"}, got); diff != "" {
		t.Errorf("edits, newest first (-want +got):\n%s", diff)
	}
	if a := gql(t, s, "gallivant", editsQuery, map[string]any{"owner": "acme", "name": "control", "n": 99}); len(a.Errors) == 0 || a.Errors[0].Type != "NOT_FOUND" {
		t.Errorf("issue 99: %+v, want NOT_FOUND", a.Errors)
	}

	open, _, err := gallivant.Issues.ListByRepo(ctx, "acme", "control", &github.IssueListByRepoOptions{Creator: "gallivant"})
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 || open[0].GetNumber() != n {
		t.Errorf("gallivant's open issues: %d, want #%d only", len(open), n)
	}
}
