package ghstandin_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// An issue that is not a pull request has a conversation too, as on
// GitHub: comments are created and listed through the same endpoints,
// their html_url is the issue's page, the issue's comment count and
// updated_at follow, and a number that is neither is 404.
func TestCommentsOnAnIssue(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	ctx := context.Background()
	me, bob := s.Client(ghstandin.DefaultLogin), s.Client("bob")
	is, _, err := me.Issues.Create(ctx, "acme", "api", &github.IssueRequest{Title: github.String("dashboard"), Body: github.String("body")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	c, resp, err := bob.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("/gallivant retry 2 | hint\nspecs/a.md")})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("comment on issue #%d: %v", n, err)
	}
	if want := "/acme/api/issues/" + strconv.Itoa(n) + "#issuecomment-" + strconv.FormatInt(c.GetID(), 10); !strings.HasSuffix(c.GetHTMLURL(), want) {
		t.Errorf("html_url %q, want it to end in %q", c.GetHTMLURL(), want)
	}
	cs, _, err := me.Issues.ListComments(ctx, "acme", "api", n, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.GetUser().GetLogin()+": "+c.GetBody())
	}
	if diff := cmp.Diff([]string{"bob: /gallivant retry 2 | hint\nspecs/a.md"}, got); diff != "" {
		t.Errorf("comments (-want +got):\n%s", diff)
	}
	after, _, err := me.Issues.Get(ctx, "acme", "api", n)
	if err != nil {
		t.Fatal(err)
	}
	if after.GetComments() != 1 || after.GetUpdatedAt().Before(is.GetUpdatedAt().Time) {
		t.Errorf("the issue after the comment: %d comments, updated %v (was %v)", after.GetComments(), after.GetUpdatedAt(), is.GetUpdatedAt())
	}
	if _, resp, err := me.Issues.ListComments(ctx, "acme", "api", n+7, nil); err == nil || resp.StatusCode != 404 {
		t.Errorf("comments of a number that is nothing: %v, want 404", err)
	}
}
