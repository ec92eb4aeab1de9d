package reconcile

import (
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// The command executor's git takes a current App installation token at
// each run (issue 29): after the tokens are narrowed again to include a
// repository a new spec delivers to — as the daemon does before each
// pass — the next run pushes there, where the token minted at start-up is
// refused.
func TestExecutorTakesACurrentAppToken(t *testing.T) {
	t.Parallel()
	cfg := strings.Replace(rigConfig, "none: [acme/api]", "none: [acme/api, acme/web]", 1)
	r := newRig(t, map[string]string{"specs/a.md": specWith(1, ""), "gallivant.yaml": cfg}, "acme/api", "acme/web")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	r.gh.RegisterApp(42, "shipper", &key.PublicKey)
	r.gh.InstallApp(42, "acme")
	apps, err := githubapi.NewAppTokens(githubapi.AppOptions{APIURL: r.gh.APIURL(), AppID: 42, Key: key, Repo: "acme/api", Now: r.clock.Now,
		Repositories: []string{"acme/api"}})
	if err != nil {
		t.Fatal(err)
	}
	// The executor's Token is the one taken at start-up; Tokens, when
	// set, replaces it at every run.
	startup, err := apps.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	static := func(o *Options) {
		ce := o.Executor.(agent.CommandExecutor)
		ce.Token = startup
		o.Executor = ce
	}
	current := func(o *Options) {
		static(o)
		ce := o.Executor.(agent.CommandExecutor)
		ce.Tokens = apps
		o.Executor = ce
	}
	rep := r.pass(current)
	if countSubjects(rep, "loop: open pr") != 1 {
		t.Fatalf("first pass: %v\n%s", subjectsOf(rep), noteOf(rep))
	}

	r.edit("specs/b.md", func(string) string { return "---\nrepo: acme/web\n---\n" + specWith(1, "") })
	apps.SetRepositories([]string{"acme/api", "acme/web"})
	// With the start-up token, the push to acme/web is refused…
	rep = r.pass(static)
	if countSubjects(rep, "loop: open pr") != 0 {
		t.Fatalf("the start-up token pushed to a repository it does not name: %v", subjectsOf(rep))
	}
	if !strings.Contains(r.log.String(), "denied") {
		t.Errorf("no refused push in the log:\n%s", r.log.String())
	}
	// …and with a current one it goes through.
	rep = r.pass(current)
	if countSubjects(rep, "loop: open pr acme/web") != 1 {
		t.Fatalf("with a current token: %v\n%s\n%s", subjectsOf(rep), noteOf(rep), r.log.String())
	}
}
