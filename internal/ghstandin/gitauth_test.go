package ghstandin_test

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-github/v66/github"
)

// gitTry runs the real git binary in dir without a terminal to prompt on
// and returns its combined output and whether it succeeded.
func gitTry(t testing.TB, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=",
		"GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com", "GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// installationToken mints an installation token of App id (slug) on acme
// through the API, as an App would.
func installationToken(t *testing.T, s *ghstandin.Server, id int64, slug string) string {
	t.Helper()
	s.RegisterApp(id, slug, &appKey(t).PublicKey)
	inst := s.InstallApp(id, "acme")
	tok, _, err := appClient(s, appJWT(t, id, appKey(t), time.Now())).Apps.CreateInstallationToken(t.Context(), inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok.GetToken()
}

// Git over HTTP authenticates and authorises as GitHub does (issue 29):
// anyone fetches a public repository, a push needs a token with push
// access, and a wrong token is refused even for a fetch.
func TestGitOverHTTPAuthenticates(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	outsider, err := s.SetRole("mallory", ghstandin.RoleRead)
	if err != nil {
		t.Fatal(err)
	}
	writer := s.Token("teammate")
	w := clone(t, s, "acme/api")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "work")
	tests := []struct {
		name, url string
		args      []string
		ok        bool
		want      string
	}{
		{"anonymous fetch of a public repository", s.GitURL("acme/api"), []string{"ls-remote"}, true, "refs/heads/main"},
		{"anonymous push", s.GitURL("acme/api"), []string{"push"}, false, "could not read Username"},
		// git sends a URL's credentials only when challenged; a header
		// is sent at once.
		{"wrong token fetch", s.GitURL("acme/api"), []string{"-c", "http.extraHeader=Authorization: Bearer ghs_wrong", "ls-remote"}, false, "could not read Username"},
		{"wrong token push", s.GitURLWithToken("acme/api", "ghs_wrong"), []string{"push"}, false, "Invalid username or token"},
		{"outsider push", s.GitURLWithToken("acme/api", outsider), []string{"push"}, false, "403"},
		{"outsider fetch", s.GitURLWithToken("acme/api", outsider), []string{"ls-remote"}, true, "refs/heads/main"},
		{"unknown repository", s.GitURLWithToken("acme/nope", writer), []string{"ls-remote"}, false, "Repository not found"},
		{"writer push, owner spelled differently", s.GitURLWithToken("ACME/api", writer), []string{"push"}, true, ""},
	}
	for _, tc := range tests {
		args := tc.args
		if args[len(args)-1] == "push" {
			args = append(args, "--quiet", tc.url, "HEAD:refs/heads/"+strings.ReplaceAll(tc.name, " ", "-"))
		} else {
			args = append(args, tc.url)
		}
		out, ok := gitTry(t, w, args...)
		if ok != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("%s: git %v succeeded=%v (want %v), output %q, want it to contain %q", tc.name, tc.args, ok, tc.ok, out, tc.want)
		}
	}
	// The statuses and texts git shows, request by request.
	basic := func(tok string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok))
	}
	for _, tc := range []struct {
		name, path, auth string
		status           int
		text             string
	}{
		{"fetch, no token", "/acme/api.git/info/refs?service=git-upload-pack", "", 200, ""},
		{"fetch, wrong token", "/acme/api.git/info/refs?service=git-upload-pack", basic("ghs_wrong"), 401, "Invalid username or token. Password authentication is not supported for Git operations."},
		{"fetch, JWT is no git credential", "/acme/api.git/info/refs?service=git-upload-pack", "Bearer a.b.c", 401, "Invalid username or token"},
		{"push, no token", "/acme/api.git/info/refs?service=git-receive-pack", "", 401, "Invalid username or token"},
		{"push, outsider", "/acme/api.git/info/refs?service=git-receive-pack", basic(outsider), 403, "Permission to acme/api.git denied to mallory."},
		{"push, writer", "/acme/api.git/info/refs?service=git-receive-pack", basic(writer), 200, ""},
		{"push, writer with a bearer token", "/acme/api.git/info/refs?service=git-receive-pack", "Bearer " + writer, 200, ""},
		{"unknown repository", "/acme/none.git/info/refs?service=git-upload-pack", basic(writer), 404, "Repository not found."},
	} {
		req, _ := http.NewRequest("GET", s.URL()+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || (tc.text != "" && !strings.Contains(string(body), tc.text)) {
			t.Errorf("%s: %d %q, want %d with %q", tc.name, resp.StatusCode, body, tc.status, tc.text)
		}
		if tc.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: a 401 without WWW-Authenticate: git would not ask for credentials", tc.name)
		}
	}
	bs, _, err := s.Client(ghstandin.DefaultLogin).Repositories.ListBranches(t.Context(), "acme", "api", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.GetName())
	}
	if got := strings.Join(names, " "); got != "main writer-push,-owner-spelled-differently" {
		t.Errorf("branches after the pushes: %s; only the writer's push may land", got)
	}
}

// Pushes to a protected branch are refused with GitHub's messages (GH006
// for classic protection, GH013 for a ruleset), unless the pusher bypasses
// the protection: an administrator where admins are not enforced, an App on
// the ruleset's bypass list.
func TestGitPushesRespectProtection(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	admin, writer := s.MainToken(), s.Token("teammate")
	bot := installationToken(t, s, 7, "shipper")
	other := installationToken(t, s, 8, "lurker")
	url := func(tok string) string { return s.GitURLWithToken("acme/api", tok) }

	w := clone(t, s, "acme/api")
	base := git(t, w, "rev-parse", "HEAD")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "ahead")
	ahead := git(t, w, "rev-parse", "HEAD")
	git(t, w, "checkout", "--quiet", "--orphan", "rewrite")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "unrelated")
	rewrite := git(t, w, "rev-parse", "HEAD")
	// A commit whose required check passed, pushed to another branch first.
	git(t, w, "checkout", "--quiet", "-B", "green", base)
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "green")
	green := git(t, w, "rev-parse", "HEAD")
	git(t, w, "push", "--quiet", url(writer), "green")
	if _, _, err := s.Client(ghstandin.DefaultLogin).Repositories.CreateStatus(t.Context(), "acme", "api", green, &github.RepoStatus{State: github.String("success"), Context: github.String("ci")}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		prot  ghstandin.Protection
		token string
		push  string // what becomes protected: sha or ":" for a deletion
		force bool
		want  []string // "" = accepted
	}{
		{"classic, reviews required, writer", ghstandin.Protection{RequiredReviews: 1}, writer, ahead, false,
			[]string{"GH006: Protected branch update failed for refs/heads/protected.", "Changes must be made through a pull request.", "pre-receive hook declined"}},
		{"classic, reviews required, admin bypasses", ghstandin.Protection{RequiredReviews: 1}, admin, ahead, false, nil},
		{"classic, admins enforced", ghstandin.Protection{RequiredReviews: 1, EnforceAdmins: true}, admin, ahead, false,
			[]string{"Changes must be made through a pull request."}},
		{"classic, fast-forward allowed", ghstandin.Protection{}, writer, ahead, false, nil},
		{"classic, force-push refused", ghstandin.Protection{}, writer, rewrite, true, []string{"GH006", "Cannot force-push to this branch"}},
		{"classic, force-push allowed", ghstandin.Protection{AllowForcePushes: true}, writer, rewrite, true, nil},
		{"classic, deletion refused", ghstandin.Protection{}, writer, ":", false, []string{"Cannot delete this protected branch"}},
		{"classic, required check missing", ghstandin.Protection{RequiredContexts: []string{"ci"}}, writer, ahead, false,
			[]string{`Required status check "ci" is expected.`}},
		{"classic, two required checks missing", ghstandin.Protection{RequiredContexts: []string{"ci", "lint"}}, writer, ahead, false,
			[]string{"2 of 2 required status checks are expected."}},
		{"classic, required check passed", ghstandin.Protection{RequiredContexts: []string{"ci"}}, writer, green, false, nil},
		{"ruleset, admin does not bypass", ghstandin.Protection{Ruleset: true, RequiredReviews: 1}, admin, ahead, false,
			[]string{"GH013: Repository rule violations found for refs/heads/protected.", "- Changes must be made through a pull request."}},
		{"ruleset, App on the bypass list", ghstandin.Protection{Ruleset: true, RequiredReviews: 1, BypassApps: []string{"shipper"}}, bot, rewrite, true, nil},
		{"ruleset, App not on the bypass list", ghstandin.Protection{Ruleset: true, RequiredReviews: 1, BypassApps: []string{"shipper"}}, other, ahead, false,
			[]string{"GH013", "- Changes must be made through a pull request."}},
		{"ruleset, force-push refused", ghstandin.Protection{Ruleset: true}, writer, rewrite, true, []string{"GH013", "- Cannot force-push to this branch"}},
	}
	for _, tc := range tests {
		// Each case starts from protected at base, unprotected.
		s.Protect("acme/api", "protected", ghstandin.Protection{AllowForcePushes: true})
		git(t, w, "push", "--quiet", "--force", url(admin), base+":refs/heads/protected")
		s.Protect("acme/api", "protected", tc.prot)
		ref := tc.push + ":refs/heads/protected"
		if tc.push == ":" {
			ref = ":refs/heads/protected"
		}
		if tc.force {
			ref = "+" + ref
		}
		out, ok := gitTry(t, w, "push", "--porcelain", url(tc.token), ref)
		after := git(t, w, "ls-remote", url(admin), "refs/heads/protected")
		if tc.want == nil {
			wantSHA := tc.push
			if !ok || !strings.HasPrefix(after, wantSHA) {
				t.Errorf("%s: push refused or not applied (branch at %q):\n%s", tc.name, after, out)
			}
			continue
		}
		if ok || !strings.HasPrefix(after, base) {
			t.Errorf("%s: push accepted (branch at %q), want it refused:\n%s", tc.name, after, out)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", tc.name, want, out)
			}
		}
	}
}

// A push larger than git's http.postBuffer arrives chunked; it lands
// (issue 30 item 9: it was answered 400).
func TestChunkedPushLands(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	big := make([]byte, 256<<10)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, w, "add", "-A")
	git(t, w, "commit", "--quiet", "-m", "big")
	out, ok := gitTry(t, w, "-c", "http.postBuffer=4096", "push", "origin", "HEAD:refs/heads/big")
	if !ok {
		t.Fatalf("chunked push refused:\n%s", out)
	}
	b, _, err := s.Client(ghstandin.DefaultLogin).Repositories.GetBranch(t.Context(), "acme", "api", "big", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.GetCommit().GetSHA(), git(t, w, "rev-parse", "HEAD"); got != want {
		t.Errorf("branch big at %s, want %s", got, want)
	}
}

// state.json holds every token: it is the owner's alone (issue 29).
func TestStateFileIsPrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := ghstandin.New(ghstandin.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Token("teammate") // a save after the first
	fi, err := os.Stat(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("state.json mode %o, want 600", got)
	}
}

// A relative Dir serves git over HTTP from the same repositories as the
// API (issue 30 item 9: git-http-backend runs elsewhere).
func TestRelativeDirServesGit(t *testing.T) {
	// Not parallel: it changes the working directory.
	t.Chdir(t.TempDir())
	s := testserver.StartWith(t, ghstandin.Options{Dir: "sb"}, "acme/api")
	out, ok := gitTry(t, ".", "ls-remote", s.GitURL("acme/api"), "refs/heads/main")
	if !ok || !strings.Contains(out, "refs/heads/main") {
		t.Errorf("ls-remote with a relative Dir: %s", out)
	}
}
