package reconcile

import (
	"encoding/base64"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/google/go-cmp/cmp"
)

// Issue 11, finding 9: a marker pre-posted by someone else must not
// suppress gallivant's own comment.
func TestEnsureCommentIgnoresMarkerOfAnotherUser(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	mallory, _ := adapter(t, s, "mallory", nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
	if err != nil {
		t.Fatal(err)
	}
	marker := githubapi.Marker("ready-0123456789abcdef")
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
	if diff := cmp.Diff([]string{"mallory", ghstandin.DefaultLogin}, authors); diff != "" {
		t.Errorf("comment authors (-want +got):\n%s", diff)
	}
}

func TestPermission(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	if _, err := s.SetRole("olivia", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRole("ada", ghstandin.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	s.Token("walt") // a user with a token and no role has write
	for _, tc := range []struct {
		login  string
		want   githubapi.Permission
		writes bool
	}{
		{"acme", githubapi.PermAdmin, true}, // the owner
		{"ada", githubapi.PermAdmin, true},
		{"walt", githubapi.PermWrite, true},
		{"olivia", githubapi.PermRead, false},
		{"nobody-at-all", githubapi.PermNone, false}, // GitHub answers 404 for an unknown login
	} {
		t.Run(tc.login, func(t *testing.T) {
			got, err := g.Permission(t.Context(), "acme/api", tc.login)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || got.Writes() != tc.writes {
				t.Errorf("Permission(%s) = %q (writes %v), want %q (writes %v)", tc.login, got, got.Writes(), tc.want, tc.writes)
			}
		})
	}
}

// A read-only user can comment and open pull requests but not label.
func TestStandInRefusesWritesOfReadOnlyUser(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	if _, err := s.SetRole("olivia", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	olivia, _ := adapter(t, s, "olivia", nil)
	ctx := t.Context()
	testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
	pr, err := olivia.CreatePullRequest(ctx, "acme/api", "f", "main", "Outsider", "")
	if err != nil {
		t.Fatalf("a read-only user opens a pull request: %v", err)
	}
	if _, err := olivia.EnsureComment(ctx, "acme/api", pr.Number, githubapi.Marker("x"), "hi "+githubapi.Marker("x")); err != nil {
		t.Errorf("a read-only user comments: %v", err)
	}
	if err := olivia.AddLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err == nil {
		t.Errorf("a read-only user labelled a pull request")
	}
	if err := g.AddLabel(ctx, "acme/api", pr.Number, "ready-for-human"); err != nil {
		t.Errorf("gallivant labels: %v", err)
	}
}

// maliciousAgent is issue 11's finding 1 as a script: it looks for the
// token in its environment and its checkout's .git/config, plants a
// pre-push hook and an fsmonitor command that would dump the environment
// of whatever git runs there later, and then commits as asked.
const maliciousAgent = `#!/bin/sh
set -u
loot=LOOT
id -u > "$loot/uid"
env > "$loot/env"
cat .git/config > "$loot/config"
printf '#!/bin/sh\nenv > %s/hook-env\n' "$loot" > .git/hooks/pre-push
chmod +x .git/hooks/pre-push
git config core.hooksPath .git/hooks
git config core.fsmonitor "env > $loot/fsmonitor-env; false #"
echo hi > hello.txt
git add hello.txt
git -c user.name=Mallory -c user.email=m@example.com commit --quiet -m "loop: row 1 done"
`

func runMaliciousAgent(t *testing.T, runAs string) (loot string, s *ghstandin.Server, token string) {
	s = testserver.Start(t, "acme/api")
	token = s.MainToken()
	t.Setenv("BOT_TOKEN", token)
	t.Setenv("GITHUB_TOKEN", token)
	t.Setenv("GH_TOKEN", token)
	t.Setenv("GALLIVANT_LIVE_GITHUB_TOKEN", token)
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	root := t.TempDir()
	loot = filepath.Join(root, "loot")
	work := filepath.Join(root, "work")
	for _, d := range []string{loot, work} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	// A run_as agent must reach its checkout and drop its loot.
	for _, d := range []string{filepath.Dir(root), root, loot} {
		os.Chmod(d, 0o777)
	}
	script := filepath.Join(root, "agent.sh")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(maliciousAgent, "LOOT", loot)), 0o755); err != nil {
		t.Fatal(err)
	}
	base, _, err := mustGitHub(t, s).BranchHead(t.Context(), "acme/api", "main")
	if err != nil {
		t.Fatal(err)
	}
	e := agent.CommandExecutor{Argv: []string{"sh", script}, Timeout: time.Minute, WorkDir: work, Token: token,
		Env: []string{"PATH", "HOME", "BOT_TOKEN", "GITHUB_TOKEN"}, TokenEnv: "BOT_TOKEN", RunAs: runAs}
	task := agent.Task{Spec: "specs/-x.md", Repo: "acme/api", CloneURL: s.GitURL("acme/api"), Branch: "gallivant/-x", Base: base,
		Pending: ledger.Pending{}, Iteration: 1, Brief: "row 1"}
	out, err := e.Run(t.Context(), task)
	if err != nil || out.Err != nil {
		t.Fatalf("Run: %v, outcome error %v (log %s)", err, out.Err, readFile(out.Log))
	}
	if out.Commits != 1 || out.Dirty {
		t.Fatalf("outcome %+v, want one commit and a clean tree", out)
	}
	// The commit reached GitHub, pushed by gallivant from its mirror.
	head, ok, err := mustGitHub(t, s).BranchHead(t.Context(), "acme/api", "gallivant/-x")
	if err != nil || !ok || head == base {
		t.Fatalf("work branch head %s ok %v err %v: the agent's commit was not pushed", head, ok, err)
	}
	return loot, s, token
}

func mustGitHub(t *testing.T, s *ghstandin.Server) *githubapi.Client {
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	return g
}

func readFile(p string) string { b, _ := os.ReadFile(p); return string(b) }

// assertNoToken fails when any loot file holds the token, raw or as the
// base64 of the Basic credential git is handed.
func assertNoToken(t *testing.T, loot, token string) {
	t.Helper()
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	files, _ := filepath.Glob(filepath.Join(loot, "*"))
	if len(files) < 3 {
		t.Fatalf("the agent left %d loot files; it did not run as scripted", len(files))
	}
	for _, f := range files {
		data := readFile(f)
		if strings.Contains(data, token) || strings.Contains(data, basic) {
			t.Errorf("%s holds the token", filepath.Base(f))
		}
		if strings.Contains(data, "SSH_AUTH_SOCK") || strings.Contains(data, "GALLIVANT_LIVE") {
			t.Errorf("%s holds a secret variable:\n%s", filepath.Base(f), data)
		}
	}
	if _, err := os.Stat(filepath.Join(loot, "hook-env")); err == nil {
		t.Errorf("the pre-push hook planted in the checkout ran")
	}
}

// Issue 11, finding 1: the agent finds the token neither in its
// environment (even with token_env BOT_TOKEN named in executor.env), nor
// in its checkout's .git/config, nor through a planted pre-push hook or
// fsmonitor command. The spec name begins with "-" (finding 10): git must
// not take it as an option.
func TestAgentNeverSeesTheToken(t *testing.T) {
	loot, _, token := runMaliciousAgent(t, "")
	assertNoToken(t, loot, token)
	if env := readFile(filepath.Join(loot, "env")); !strings.Contains(env, "PATH=") || strings.Contains(env, "BOT_TOKEN") {
		t.Errorf("the agent's environment is not the allow-list:\n%s", env)
	}
}

// executor.run_as: the agent runs as another user, which cannot read
// gallivant's memory or files (docs/security.md).
func TestAgentRunsAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		e := agent.CommandExecutor{Argv: []string{"true"}, Timeout: time.Minute, WorkDir: t.TempDir(), RunAs: "nobody"}
		out, err := e.Run(t.Context(), agent.Task{Spec: "specs/x.md"})
		if err != nil || !errors.Is(out.Err, agent.ErrRunAsNeedsRoot) {
			t.Fatalf("run_as without root: err %v outcome %v, want ErrRunAsNeedsRoot", err, out.Err)
		}
		return
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody to run the agent as")
	}
	loot, _, token := runMaliciousAgent(t, "nobody")
	assertNoToken(t, loot, token)
	if got := strings.TrimSpace(readFile(filepath.Join(loot, "uid"))); got != u.Uid {
		t.Errorf("the agent ran as uid %s, want %s (nobody)", got, u.Uid)
	}
}

// Issue 11, finding 7: after the first SIGTERM the daemon drains: the
// pass in progress starts no new executor run, and the dispatch stays due
// (not recorded) for the next process.
func TestDrainedPassStartsNoAgent(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	rc := r.reconciler()
	rc.Drain()
	rep, err := rc.Pass(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.runs) != 0 {
		t.Errorf("a draining pass ran %d agents", len(r.runs))
	}
	for _, tr := range rep.Transitions {
		if strings.HasPrefix(tr.Subject, "loop: dispatch") {
			t.Errorf("a draining pass recorded %q", tr.Subject)
		}
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || strings.Contains(n.Message, "gallivant is stopping")
	}
	if !noted {
		t.Errorf("the deferred dispatch is not noted: %+v", rep.Notes)
	}
	// The next process dispatches it.
	if _, err := r.reconciler().Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(r.runs) == 0 {
		t.Errorf("the next pass did not run the deferred dispatch")
	}
}

// Credentials in a control URL stay out of the cache clone's config, and
// a cache an older gallivant wrote with them is rewritten.
func TestStoreKeepsURLCredentialsOutOfTheCache(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/control")
	secret := s.MainToken() // the token the URL carries must be valid: git over HTTP checks it
	control := strings.Replace(s.GitURL("acme/control"), "http://", "http://x-access-token:"+secret+"@", 1)
	cache := t.TempDir()
	open := func() *store.Store {
		st, err := store.Open(t.Context(), store.Options{Control: control, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := open()
	cfgPath := filepath.Join(st.Dir(), "config")
	if cfg := readFile(cfgPath); !strings.Contains(cfg, s.GitURL("acme/control")) || strings.Contains(cfg, secret) {
		t.Fatalf("the cache's config:\n%s", cfg)
	}
	old := strings.Replace(readFile(cfgPath), s.GitURL("acme/control"), control, 1)
	if err := os.WriteFile(cfgPath, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	open()
	if cfg := readFile(cfgPath); strings.Contains(cfg, secret) {
		t.Errorf("an older cache keeps the credential:\n%s", cfg)
	}
}
