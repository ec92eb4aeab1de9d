package ghstandin_test

import (
	"context"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// Reactions on an issue comment, as GitHub documents them and as the
// go-github client reads them: a new reaction is 201, the same user's
// same reaction again is 200 with the one already there, another user's
// or another content is a new one; an unknown content is 422 and an
// unknown comment 404; the list filters by content.
func TestIssueCommentReactions(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	ctx := context.Background()
	bob := s.Client("bob")
	cm, _, err := bob.Issues.CreateComment(ctx, "acme", "api", n, &github.IssueComment{Body: github.String("/gallivant recheck")})
	if err != nil {
		t.Fatal(err)
	}
	id := cm.GetID()
	me := s.Client(ghstandin.DefaultLogin)
	for _, tc := range []struct {
		login, content string
		status         int
	}{
		{ghstandin.DefaultLogin, "+1", 201},
		{ghstandin.DefaultLogin, "+1", 200},
		{"bob", "+1", 201},
		{ghstandin.DefaultLogin, "confused", 201},
	} {
		r, resp, err := s.Client(tc.login).Reactions.CreateIssueCommentReaction(ctx, "acme", "api", id, tc.content)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.login, tc.content, err)
		}
		if resp.StatusCode != tc.status || r.GetContent() != tc.content || r.GetUser().GetLogin() != tc.login || r.GetID() == 0 {
			t.Errorf("%s %s: %d %+v, want %d", tc.login, tc.content, resp.StatusCode, r, tc.status)
		}
	}
	if _, resp, err := me.Reactions.CreateIssueCommentReaction(ctx, "acme", "api", id, "thumbs"); err == nil || resp.StatusCode != 422 {
		t.Errorf("unknown content: %v, want 422", err)
	}
	if _, resp, err := me.Reactions.CreateIssueCommentReaction(ctx, "acme", "api", id+1000, "+1"); err == nil || resp.StatusCode != 404 {
		t.Errorf("unknown comment: %v, want 404", err)
	}
	rs, _, err := me.Reactions.ListIssueCommentReactions(ctx, "acme", "api", id, &github.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.GetUser().GetLogin()+" "+r.GetContent())
	}
	if diff := cmp.Diff([]string{ghstandin.DefaultLogin + " +1", "bob +1", ghstandin.DefaultLogin + " confused"}, got); diff != "" {
		t.Errorf("reactions (-want +got):\n%s", diff)
	}
}
