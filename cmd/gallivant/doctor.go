package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/gallivant/gallivant/doctor"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	Control string
	Format  string
}

func (a *app) newDoctorCmd() *cobra.Command {
	opts := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor [--control PATH|URL] [--format text|json]",
		Short: "Check, before the first pass, what would make passes fail",
		Long: `doctor checks what makes passes fail later: the GitHub token's scopes and
its access to the control and target repositories, whether GitHub Actions
will start CI for what gallivant pushes, branch protection that refuses
gallivant's pushes to the control branch, the agent CLI (installed, current,
signed in), checks.none for target repositories without CI, and the
escalation model.

Each finding is ok, warn or fail, with what was found and the exact fix.
doctor reads GitHub and runs the agent CLI's --version and status commands;
it changes nothing.

Exit status: 0 when nothing failed (warnings included), 1 when a check
failed, 2 when doctor could not run (the control repository unreadable).`,
		Example: `  gallivant doctor
  gallivant doctor --control https://github.com/acme/control.git
  gallivant doctor --format json | jq -r '.findings[] | select(.status != "ok") | .fix'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Format != "text" && opts.Format != "json" {
				return usageError("--format must be text or json, got %q", opts.Format)
			}
			return a.doctorRun(cmd.Context(), cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

// doctorJSON is `doctor --format json`.
type doctorJSON struct {
	Findings []doctor.Finding `json:"findings"`
	OK       int              `json:"ok"`
	Warn     int              `json:"warn"`
	Fail     int              `json:"fail"`
}

func (a *app) doctorRun(ctx context.Context, cmd *cobra.Command, opts *doctorOptions) error {
	// One deadline for every read doctor makes, rather than a client
	// timeout per request.
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	snap, _, err := a.snapshot(cmd, opts.Control)
	if err != nil {
		return err
	}
	facts := a.doctorFacts(ctx, snap, opts.Control)
	fs := doctor.Diagnose(facts)
	n := doctor.Count(fs)
	if opts.Format == "json" {
		if err := a.encodeJSON(doctorJSON{Findings: fs, OK: n[doctor.OK], Warn: n[doctor.Warn], Fail: n[doctor.Fail]}); err != nil {
			return err
		}
	} else {
		for _, f := range fs {
			subject := ""
			if f.Subject != "" {
				subject = f.Subject + ": "
			}
			fmt.Fprintf(a.io.Out, "%-4s  %-14s  %s%s\n", f.Status, f.Check, subject, f.Found)
			if f.Fix != "" {
				fmt.Fprintf(a.io.Out, "%-4s  %-14s  fix: %s\n", "", "", f.Fix)
			}
		}
		fmt.Fprintf(a.io.Out, "doctor: %d ok, %s, %s\n", n[doctor.OK], plural(n[doctor.Warn], "warning", "warnings"), plural(n[doctor.Fail], "failure", "failures"))
	}
	if doctor.Worst(fs) == doctor.Fail {
		return silent(exitFindings)
	}
	return nil
}

// doctorFacts observes GitHub and the machine for doctor.Diagnose.
func (a *app) doctorFacts(ctx context.Context, snap *reconcile.Snapshot, control string) doctor.Facts {
	cfg := snap.Config
	f := doctor.Facts{Config: cfg, Agent: a.agentFacts(ctx, cfg)}
	controlRepo, onGitHub := a.controlOnGitHub(control, a.apiURL(cfg))
	f.Control = doctor.Branch{Repo: controlRepo, Name: cfg.Control.Branch, Local: !onGitHub}
	// Doctor asks with the tokens a pass would use. An App that cannot be
	// set up fails again in githubCredentials, which reports it below.
	scopeErr := a.scopeAppTokens(cfg, control, snap)
	creds, err := a.githubCredentials(ctx, cfg, a.controlRepo(control), nil)
	if err == nil && scopeErr != nil {
		err = scopeErr
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && strings.HasPrefix(ee.Error(), "no GitHub token") {
			f.Token = doctor.Token{Missing: true}
		} else {
			f.Token = doctor.Token{Var: cfg.GitHub.TokenEnv, Error: err.Error()}
		}
		return f
	}
	gh, err := doctorClient(a.apiURL(cfg), creds.token)
	if err != nil {
		f.Token = doctor.Token{Var: creds.from, Error: err.Error()}
		return f
	}
	f.Token = a.tokenFacts(ctx, gh, creds)
	if f.Token.Error != "" {
		return f
	}
	if onGitHub {
		f.Repos = append(f.Repos, repoFacts(ctx, gh, controlRepo, doctor.RoleControl, nil))
		f.Control = branchFacts(ctx, gh, controlRepo, cfg.Control.Branch)
	}
	for _, t := range targets(snap) {
		f.Repos = append(f.Repos, repoFacts(ctx, gh, t.name, doctor.RoleTarget, t.usedBy))
	}
	return f
}

// doctorTimeout bounds all of doctor's reads together.
const doctorTimeout = 2 * time.Minute

// doctorClient is a plain go-github client: doctor reads a few endpoints
// once, without the reconciler's cache and retries, under doctorRun's
// deadline.
func doctorClient(api, token string) (*github.Client, error) {
	if err := checkAPIURL(api); err != nil {
		return nil, err
	}
	c := github.NewClient(&http.Client{}).WithAuthToken(token)
	if api != "" && strings.TrimRight(api, "/") != "https://api.github.com" {
		var err error
		if c, err = c.WithEnterpriseURLs(api, api); err != nil {
			return nil, fmt.Errorf("github api_url %q: %w", api, err)
		}
	}
	return c, nil
}

// controlOnGitHub names the control repository on GitHub: a URL on the
// API's host, or, inside GitHub Actions, $GITHUB_REPOSITORY (the checkout
// the job runs in).
func (a *app) controlOnGitHub(control, api string) (string, bool) {
	if u, err := url.Parse(control); err == nil && u.Host != "" {
		gitHost, _ := url.Parse(cloneURL(api)("x/y"))
		if gitHost != nil && strings.EqualFold(gitHost.Host, u.Host) {
			if r := a.controlRepo(control); specs.ValidRepo(r) && !strings.HasPrefix(r, "local/") {
				return r, true
			}
		}
		return a.controlRepo(control), false
	}
	if a.env("GITHUB_ACTIONS") == "true" {
		if r := a.env("GITHUB_REPOSITORY"); specs.ValidRepo(r) {
			return r, true
		}
	}
	return a.controlRepo(control), false
}

func (a *app) tokenFacts(ctx context.Context, gh *github.Client, creds *githubCreds) doctor.Token {
	t := doctor.Token{Var: creds.from, Kind: doctor.KindOf(creds.token), App: creds.apps != nil, Login: creds.login,
		InActions: a.env("GITHUB_ACTIONS") == "true"}
	u, resp, err := gh.Users.Get(ctx, "")
	if resp != nil {
		if v, ok := resp.Header[http.CanonicalHeaderKey("X-OAuth-Scopes")]; ok {
			t.ScopesReported = true
			for _, s := range strings.Split(strings.Join(v, ","), ",") {
				if s = strings.TrimSpace(s); s != "" {
					t.Scopes = append(t.Scopes, s)
				}
			}
		}
	}
	switch {
	case err == nil:
		t.Login = u.GetLogin()
	case resp != nil && resp.StatusCode == http.StatusForbidden:
		// An installation token (an App's, or Actions' GITHUB_TOKEN) is
		// no user: GitHub refuses it GET /user.
	case resp != nil && resp.StatusCode == http.StatusUnauthorized:
		t.Error = "401 Bad credentials"
	default:
		t.Error = bounded(err.Error(), 300)
	}
	return t
}

// targetRepo is a target repository and the documents naming it.
type targetRepo struct {
	name   string
	usedBy []string
}

// targets lists every target repository of the control repository's
// specs (legs included) and defaults.repo, with the documents that name
// it (at most three, then a count).
func targets(snap *reconcile.Snapshot) []targetRepo {
	by := map[string][]string{}
	if r := snap.Config.Defaults.Repo; r != "" {
		by[strings.ToLower(r)] = append(by[strings.ToLower(r)], specs.ConfigFile)
	}
	names := map[string]string{}
	add := func(repo, doc string) {
		if repo == "" {
			return
		}
		k := strings.ToLower(repo)
		if _, ok := names[k]; !ok {
			names[k] = repo
		}
		if l := by[k]; len(l) == 0 || l[len(l)-1] != doc {
			by[k] = append(by[k], doc)
		}
	}
	if r := snap.Config.Defaults.Repo; r != "" {
		names[strings.ToLower(r)] = r
	}
	if snap.Repo != nil && snap.Repo.Set != nil {
		for _, p := range snap.Repo.SpecPaths() {
			sp := snap.Repo.Specs[p]
			if sp.Status == specs.StatusDraft {
				continue
			}
			for _, m := range sp.Members() {
				r, _ := sp.MemberRepo(m)
				add(r, p)
			}
		}
	}
	var out []targetRepo
	for k, docs := range by {
		if len(docs) > 3 {
			docs = append(docs[:3:3], fmt.Sprintf("%d more", len(docs)-3))
		}
		out = append(out, targetRepo{name: names[k], usedBy: docs})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func repoFacts(ctx context.Context, gh *github.Client, name string, role doctor.RepoRole, usedBy []string) doctor.Repo {
	r := doctor.Repo{Name: name, Role: role, UsedBy: usedBy}
	owner, repo, _ := strings.Cut(name, "/")
	got, resp, err := gh.Repositories.Get(ctx, owner, repo)
	switch {
	case err == nil:
		r.Found = true
		r.Push = got.GetPermissions()["push"]
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		return r
	default:
		r.Error = bounded(err.Error(), 300)
		return r
	}
	if role != doctor.RoleTarget {
		return r
	}
	_, dir, resp, err := gh.Repositories.GetContents(ctx, owner, repo, ".github/workflows", &github.RepositoryContentGetOptions{Ref: got.GetDefaultBranch()})
	switch {
	case err == nil:
		r.WorkflowsKnown = true
		for _, e := range dir {
			if n := e.GetName(); e.GetType() == "file" && (strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".yaml")) {
				r.Workflows++
			}
		}
	case resp != nil && resp.StatusCode == http.StatusNotFound:
		r.WorkflowsKnown = true
	}
	if p, _, err := gh.Repositories.GetActionsPermissions(ctx, owner, repo); err == nil && p.Enabled != nil {
		r.ActionsEnabled = p.Enabled
	}
	return r
}

func branchFacts(ctx context.Context, gh *github.Client, name, branch string) doctor.Branch {
	b := doctor.Branch{Repo: name, Name: branch}
	owner, repo, _ := strings.Cut(name, "/")
	got, _, err := gh.Repositories.GetBranch(ctx, owner, repo, branch, 1)
	if err != nil {
		b.Error = bounded(err.Error(), 300)
		return b
	}
	b.Protected = got.GetProtected()
	if p := got.Protection; p != nil && p.RequiredStatusChecks != nil && p.RequiredStatusChecks.Contexts != nil {
		b.RequiredChecks = append(b.RequiredChecks, *p.RequiredStatusChecks.Contexts...)
	}
	if rules, _, err := gh.Repositories.GetRulesForBranch(ctx, owner, repo, branch); err == nil {
		for _, r := range rules {
			b.Rules = append(b.Rules, r.Type)
		}
	}
	return b
}

// agentProbeTimeout bounds each run of the agent CLI's --version and
// status commands.
const agentProbeTimeout = 20 * time.Second

// agentFacts is what doctor reports of the configured agent CLI: where it
// is, its version and whether it is signed in.
func (a *app) agentFacts(ctx context.Context, cfg *specs.Config) doctor.Agent {
	ag := doctor.Agent{Kind: cfg.Executor.Kind, RunAs: cfg.Executor.RunAs}
	program, status, known := agentProgram(cfg.Executor.Kind, cfg.Executor.Command)
	if !known {
		return ag
	}
	ag.Program = program
	env := a.agentEnv(cfg)
	ag.Path = lookPath(ag.Program, a.env("PATH"))
	if ag.Path == "" {
		return ag
	}
	if cfg.Executor.Kind == specs.ExecutorCommand {
		return ag
	}
	out, err := probe(ctx, ag.Path, env, "--version")
	if err != nil {
		ag.VersionError = bounded(firstLine(out+" "+err.Error()), 200)
	} else {
		ag.Version = bounded(firstLine(out), 200)
	}
	if ag.RunAs != "" {
		return ag
	}
	// An API key passed to the agent signs it in whatever its stored login.
	for _, k := range cfg.Executor.Env {
		if apiKeyVar(cfg.Executor.Kind, k) && a.env(k) != "" {
			yes := true
			ag.SignedIn, ag.KeyVar = &yes, k
			return ag
		}
	}
	signedIn := false
	if status == nil {
		// Aider has no login of its own: without a key it cannot run.
		ag.SignedIn, ag.Status = &signedIn, "executor.env passes no *_API_KEY variable that is set"
		return ag
	}
	out, err = probe(ctx, ag.Path, env, status...)
	signedIn = err == nil
	ag.SignedIn = &signedIn
	ag.Status = bounded(firstLine(out), 200)
	if ag.Status == "" && err != nil {
		ag.Status = bounded(fmt.Sprintf("%s %s: %v", ag.Program, strings.Join(status, " "), err), 200)
	}
	return ag
}

// agentProgram is the program of the executor kind (command's first word
// for a command executor) and the arguments of its sign-in status
// command (nil when it has none); known is false for any other kind.
func agentProgram(kind string, command []string) (program string, status []string, known bool) {
	switch kind {
	case specs.ExecutorClaudeCode:
		return "claude", []string{"auth", "status"}, true
	case specs.ExecutorCodex:
		return "codex", []string{"login", "status"}, true
	case specs.ExecutorAider:
		return "aider", nil, true
	case specs.ExecutorCommand:
		if len(command) > 0 {
			return command[0], nil, true
		}
		return "", nil, true
	}
	return "", nil, false
}

// apiKeyVar reports whether the environment variable k is an API key the
// executor kind's CLI signs in with.
func apiKeyVar(kind, k string) bool {
	switch kind {
	case specs.ExecutorClaudeCode:
		return k == "ANTHROPIC_API_KEY"
	case specs.ExecutorCodex:
		return k == "OPENAI_API_KEY" || k == "CODEX_API_KEY"
	case specs.ExecutorAider:
		return strings.HasSuffix(k, "_API_KEY")
	}
	return false
}

// agentEnv is the environment the agent would run with: executor.env's
// variables that are set.
func (a *app) agentEnv(cfg *specs.Config) []string {
	var env []string
	for _, k := range cfg.Executor.Env {
		if specs.SecretEnv(k, cfg.GitHub.TokenEnv) {
			continue
		}
		if v := a.env(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// probe runs a CLI briefly and returns its combined output (bounded).
func probe(ctx context.Context, path string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, agentProbeTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, path, args...)
	c.Env = env
	c.Dir = os.TempDir()
	var out limitedBuffer
	out.max = 8 << 10
	c.Stdout, c.Stderr = &out, &out
	c.WaitDelay = time.Second
	err := c.Run()
	return out.String(), err
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// lookPath finds program on pathEnv as exec.LookPath would on $PATH.
func lookPath(program, pathEnv string) string {
	isExec := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
	}
	if program == "" {
		return ""
	}
	if strings.ContainsRune(program, filepath.Separator) {
		if isExec(program) {
			return program
		}
		return ""
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, program); isExec(p) {
			return p
		}
	}
	return ""
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// bounded makes untrusted text printable and at most n runes: control
// characters become spaces.
func bounded(s string, n int) string {
	var b strings.Builder
	i := 0
	for _, r := range s {
		if i == n {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(r) {
			r = ' '
		}
		b.WriteRune(r)
		i++
	}
	return strings.TrimSpace(b.String())
}
