package githubapi

import (
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// The dashboard's issue calls against the stand-in: found again by its
// marker among the issues gallivant opened (a person's issue with the
// marker is not it, nor is a pull request), edited, and its body's
// versions read oldest first with their editors, the GraphQL read
// charged to GraphQL's budget rather than the primary one.
func TestAdapterIssues(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/control")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	self, err := g.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- gallivant:dashboard -->"
	if _, _, err := s.Client("bob").Issues.Create(ctx, "acme", "control", &github.IssueRequest{Title: github.String("copy"), Body: github.String(marker)}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := g.FindIssue(ctx, "acme/control", self, marker); ok || err != nil {
		t.Fatalf("found a dashboard before opening one (ok %v, err %v)", ok, err)
	}
	is, err := g.CreateIssue(ctx, "acme/control", "gallivant dashboard", marker+"\n- [ ] one")
	if err != nil {
		t.Fatal(err)
	}
	found, ok, err := g.FindIssue(ctx, "acme/control", self, marker)
	if err != nil || !ok || found.Number != is.Number || found.Body != marker+"\n- [ ] one" || found.HTMLURL == "" {
		t.Fatalf("FindIssue = %+v, %v, %v; want #%d", found, ok, err, is.Number)
	}
	if edits, err := g.IssueEdits(ctx, "acme/control", is.Number); err != nil || len(edits) != 0 {
		t.Fatalf("edits of a new issue: %+v, %v", edits, err)
	}
	if _, _, err := s.Client("bob").Issues.Edit(ctx, "acme", "control", is.Number, &github.IssueRequest{Body: github.String(marker + "\n- [x] one")}); err != nil {
		t.Fatal(err)
	}
	if err := g.EditIssueBody(ctx, "acme/control", is.Number, marker+"\n- [ ] one — done"); err != nil {
		t.Fatal(err)
	}
	before := g.Requests()
	edits, err := g.IssueEdits(ctx, "acme/control", is.Number)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range edits {
		got = append(got, e.Editor+": "+e.Body)
	}
	want := []string{self + ": " + marker + "\n- [ ] one", "bob: " + marker + "\n- [x] one", self + ": " + marker + "\n- [ ] one — done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits, oldest first (-want +got):\n%s", diff)
	}
	if d := g.Requests().Sub(before); d.Requests != 1 || d.RateLimited != 0 {
		t.Errorf("the GraphQL read counted %+v, want one request charged to no primary budget", d)
	}
	if _, err := g.IssueEdits(ctx, "acme/control", 99); err == nil {
		t.Errorf("the edits of a missing issue read without an error")
	}
}
