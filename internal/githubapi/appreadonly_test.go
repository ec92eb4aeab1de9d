package githubapi

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A read-only source (gallivant gatekeep's) asks every permission at read
// and its tokens write nothing, over REST or git, while they read what a
// judge reads.
func TestAppTokensReadOnly(t *testing.T) {
	s, _, clock := appRig(t, "acme/control", "acme/api")
	ctx := context.Background()
	apps, err := NewAppTokens(AppOptions{APIURL: s.APIURL(), AppID: 42, Key: appTestKey(t), Repo: "acme/api", Now: clock.Now, ReadOnly: true,
		Repositories: []string{"acme/api"}})
	if err != nil {
		t.Fatal(err)
	}
	gh := appClient(t, apps)
	head, ok, err := gh.BranchHead(ctx, "acme/api", "main")
	if err != nil || !ok {
		t.Fatalf("BranchHead = %v, %v; a read-only token reads", ok, err)
	}
	want := map[string]string{"contents": "read", "pull_requests": "read", "issues": "read", "checks": "read",
		"statuses": "read", "actions": "read", "metadata": "read"}
	got := s.InstallationTokenPermissions()
	if len(got) != 1 {
		t.Fatalf("%d tokens minted, want 1", len(got))
	}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("the token asked for (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"acme/api"}}, s.InstallationTokenRepositories()); diff != "" {
		t.Errorf("the token was narrowed to (-want +got):\n%s", diff)
	}
	if err := gh.CreateBranch(ctx, "acme/api", "gallivant/x", head); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("CreateBranch with a read-only token: %v, want a 403", err)
	}
	tok, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := gitPush(t, s.GitURL("acme/api"), s.GitURLWithToken("acme/api", tok)); err == nil || !strings.Contains(out, "denied") {
		t.Errorf("git push with a read-only token: %v\n%s\nwant it refused", err, out)
	}
}
