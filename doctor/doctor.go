// Package doctor judges what makes gallivant's passes fail later, before
// the first pass: the GitHub token's scopes and repository access, whether
// GitHub Actions will start CI for what gallivant pushes, branch protection
// that refuses gallivant's pushes to the control branch, the agent CLI, CI
// in the target repositories and the escalation model.
//
// The package is pure: the command (`gallivant doctor`) observes GitHub and
// the machine and fills Facts; Diagnose turns them into findings, each with
// a status, what was found and the exact fix.
//
// Stability: gallivant is before 1.0. What is stable is what a person
// reads and scripts: the check names (Check), the statuses and the exit
// status of `gallivant doctor` (docs/cli.md). The Facts a caller fills and
// the wording of a finding's text and fix follow what the command observes
// and may change in any minor release; each change is listed in
// CHANGELOG.md.
package doctor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// Status is a finding's verdict.
type Status int

// The statuses, from best to worst.
const (
	OK Status = iota
	Warn
	Fail
)

// String returns ok, warn or fail.
func (s Status) String() string {
	switch s {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	}
	return "fail"
}

// MarshalText encodes the status as its word, for --format json.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads ok, warn or fail.
func (s *Status) UnmarshalText(b []byte) error {
	switch string(b) {
	case "ok":
		*s = OK
	case "warn":
		*s = Warn
	case "fail":
		*s = Fail
	default:
		return fmt.Errorf("status %q is not ok, warn or fail", b)
	}
	return nil
}

// Check names what a finding is about.
type Check string

// The checks, in the order they are reported.
const (
	CheckToken      Check = "token"
	CheckRepository Check = "repository"
	CheckActions    Check = "actions"
	CheckControl    Check = "control-branch"
	CheckAgent      Check = "agent"
	CheckChecks     Check = "checks"
	CheckEscalation Check = "escalation"
)

var checkOrder = []Check{CheckToken, CheckRepository, CheckActions, CheckControl, CheckAgent, CheckChecks, CheckEscalation}

// Finding is one verdict: Subject is the repository or program it is
// about ("" when the check is global), Found what was observed, Fix the
// exact change that turns it ok ("" when it is ok).
type Finding struct {
	Check   Check  `json:"check"`
	Status  Status `json:"status"`
	Subject string `json:"subject,omitempty"`
	Found   string `json:"found"`
	Fix     string `json:"fix,omitempty"`
}

// TokenKind is what sort of credential the token is, told by its prefix.
type TokenKind string

// The token kinds GitHub documents by prefix.
const (
	TokenClassic      TokenKind = "classic"      // ghp_
	TokenFineGrained  TokenKind = "fine-grained" // github_pat_
	TokenInstallation TokenKind = "installation" // ghs_: an App installation or GitHub Actions' GITHUB_TOKEN
	TokenOAuth        TokenKind = "oauth"        // gho_, ghu_
	TokenUnknown      TokenKind = "unknown"
)

// KindOf tells a token's kind by its prefix; it never returns the token.
func KindOf(token string) TokenKind {
	switch {
	case strings.HasPrefix(token, "ghp_"):
		return TokenClassic
	case strings.HasPrefix(token, "github_pat_"):
		return TokenFineGrained
	case strings.HasPrefix(token, "ghs_"):
		return TokenInstallation
	case strings.HasPrefix(token, "gho_"), strings.HasPrefix(token, "ghu_"):
		return TokenOAuth
	}
	return TokenUnknown
}

// Token is what was learned about the GitHub credential.
type Token struct {
	// Var names the variable the token came from (never the token).
	Var string
	// Missing is set when no token was found; Error when GitHub refused
	// it or could not be asked (then nothing below is known).
	Missing bool
	Error   string
	Kind    TokenKind
	// App is set when gallivant authenticates as a GitHub App.
	App   bool
	Login string
	// Scopes are the classic scopes GitHub reported (X-OAuth-Scopes);
	// ScopesReported is false when GitHub sent no such header, as for
	// fine-grained and installation tokens.
	Scopes         []string
	ScopesReported bool
	// InActions is set when gallivant runs in GitHub Actions
	// (GITHUB_ACTIONS=true).
	InActions bool
}

// RepoRole says why a repository is checked.
type RepoRole string

// The roles a repository plays.
const (
	RoleControl RepoRole = "control"
	RoleTarget  RepoRole = "target"
)

// Repo is what was learned about one repository.
type Repo struct {
	Name string
	Role RepoRole
	// UsedBy are the documents that name it (gallivant.yaml, specs/x.md).
	UsedBy []string
	// Found is false when GitHub answered 404; Error holds any other
	// failure to read it.
	Found bool
	Error string
	// Push is the token's write access.
	Push bool
	// Workflows counts the files under .github/workflows of the default
	// branch; WorkflowsKnown is false when they could not be listed.
	Workflows      int
	WorkflowsKnown bool
	// ActionsEnabled is nil when the Actions settings could not be read
	// (they are an admin-only read).
	ActionsEnabled *bool
}

// Branch is what was learned about the control branch.
type Branch struct {
	Repo, Name string
	// Local is set when the control repository is not on GitHub.
	Local bool
	// Error holds a failure to read the branch.
	Error     string
	Protected bool
	// Rules are the ruleset rule types that apply to it
	// (required_status_checks, pull_request, update, …); RequiredChecks
	// the classic protection's required status checks.
	Rules          []string
	RequiredChecks []string
}

// Agent is what was learned about the agent CLI.
type Agent struct {
	// Kind is executor.kind.
	Kind string
	// Program is the program run (claude, codex, aider, or the command's
	// first word); Path where it was found on PATH, "" when it was not.
	Program string
	Path    string
	// Version is what `Program --version` printed (first line, bounded);
	// VersionError why it could not be run.
	Version      string
	VersionError string
	// SignedIn is nil when sign-in was not checked; Status is what the
	// CLI's status command printed (bounded), KeyVar the API key variable
	// that counts as signed in when set and passed to the agent.
	SignedIn *bool
	Status   string
	KeyVar   string
	// RunAs is executor.run_as: sign-in belongs to that user.
	RunAs string
}

// Facts are everything Diagnose judges.
type Facts struct {
	Config  *specs.Config
	Token   Token
	Repos   []Repo
	Control Branch
	Agent   Agent
}

// Diagnose judges facts. Findings come in checkOrder, and within a check
// by subject.
func Diagnose(f Facts) []Finding {
	cfg := f.Config
	if cfg == nil {
		cfg = specs.DefaultConfig()
	}
	var out []Finding
	out = append(out, token(f.Token, cfg)...)
	if !f.Token.Missing && f.Token.Error == "" {
		for _, r := range f.Repos {
			out = append(out, repo(r))
			out = append(out, actions(r, f.Token, cfg)...)
			out = append(out, checks(r, cfg)...)
		}
		out = append(out, control(f.Control, f.Token))
	}
	out = append(out, agent(f.Agent, cfg)...)
	out = append(out, escalation(cfg))
	sort.SliceStable(out, func(i, j int) bool {
		ci, cj := slices.Index(checkOrder, out[i].Check), slices.Index(checkOrder, out[j].Check)
		if ci != cj {
			return ci < cj
		}
		return out[i].Subject < out[j].Subject
	})
	return out
}

// Worst returns the worst status of findings (OK when there are none).
func Worst(fs []Finding) Status {
	w := OK
	for _, f := range fs {
		w = max(w, f.Status)
	}
	return w
}

// Count returns how many findings have each status.
func Count(fs []Finding) map[Status]int {
	n := map[Status]int{OK: 0, Warn: 0, Fail: 0}
	for _, f := range fs {
		n[f.Status]++
	}
	return n
}

func token(t Token, cfg *specs.Config) []Finding {
	tv := cfg.GitHub.TokenEnv
	switch {
	case t.Missing:
		return []Finding{{Check: CheckToken, Status: Fail, Found: fmt.Sprintf("no GitHub token: $%s and $GH_TOKEN are empty, and no GitHub App is configured", tv),
			Fix: fmt.Sprintf("export %s=<token> (a classic token with the repo scope, or a fine-grained token with contents, pull requests, checks, commit statuses and actions), or configure a GitHub App (github.app_id, docs/github.md)", tv)}}
	case t.Error != "":
		return []Finding{{Check: CheckToken, Status: Fail, Found: fmt.Sprintf("GitHub refused the token in $%s: %s", t.Var, t.Error),
			Fix: fmt.Sprintf("set $%s to a valid, unexpired token", t.Var)}}
	}
	who := t.Login
	if who == "" {
		who = "an unnamed account"
	}
	var out []Finding
	switch {
	case t.App:
		out = append(out, Finding{Check: CheckToken, Status: OK, Found: fmt.Sprintf("GitHub App installation %s: its permissions are checked per repository below", who)})
	case !t.ScopesReported:
		out = append(out, Finding{Check: CheckToken, Status: OK, Found: fmt.Sprintf("%s token of %s from $%s; GitHub reports no scopes for it (fine-grained or installation token): its access is checked per repository below", t.Kind, who, t.Var)})
	default:
		has := func(s string) bool { return slices.Contains(t.Scopes, s) }
		scopes := strings.Join(t.Scopes, ", ")
		if scopes == "" {
			scopes = "none"
		}
		switch {
		case has("repo"):
			out = append(out, Finding{Check: CheckToken, Status: OK, Found: fmt.Sprintf("classic token of %s from $%s with scopes %s", who, t.Var, scopes)})
		case has("public_repo"):
			out = append(out, Finding{Check: CheckToken, Status: Warn, Found: fmt.Sprintf("classic token of %s from $%s with scopes %s: public_repo reaches public repositories only", who, t.Var, scopes),
				Fix: "add the repo scope to the token (https://github.com/settings/tokens → the token → repo) if any control or target repository is private"})
		default:
			out = append(out, Finding{Check: CheckToken, Status: Fail, Found: fmt.Sprintf("classic token of %s from $%s with scopes %s: it cannot push branches or open pull requests", who, t.Var, scopes),
				Fix: "add the repo scope to the token (https://github.com/settings/tokens → the token → repo)"})
		}
		if (has("repo") || has("public_repo")) && !has("workflow") {
			out = append(out, Finding{Check: CheckToken, Status: Warn, Found: "the token lacks the workflow scope: GitHub refuses a push that changes .github/workflows, so an agent's commit touching CI cannot reach its branch",
				Fix: "add the workflow scope to the token (https://github.com/settings/tokens → the token → workflow)"})
		}
	}
	return out
}

func repo(r Repo) Finding {
	f := Finding{Check: CheckRepository, Subject: r.Name}
	used := ""
	if len(r.UsedBy) > 0 {
		used = " (named in " + strings.Join(r.UsedBy, ", ") + ")"
	}
	switch {
	case r.Error != "":
		f.Status, f.Found = Fail, fmt.Sprintf("%s repository could not be read%s: %s", r.Role, used, r.Error)
		f.Fix = "check that GitHub is reachable at the API URL and retry"
	case !r.Found:
		f.Status, f.Found = Fail, fmt.Sprintf("%s repository does not exist or the token cannot see it%s", r.Role, used)
		f.Fix = fmt.Sprintf("correct the repository name%s, or grant the token access to %s (a fine-grained token's repository list, or the App's installation)", where(r), r.Name)
	case !r.Push:
		f.Status, f.Found = Fail, fmt.Sprintf("%s repository, read-only for the token%s: gallivant pushes branches and commits there", r.Role, used)
		f.Fix = fmt.Sprintf("give the token write access to %s (contents and pull requests: read and write)", r.Name)
	default:
		f.Status, f.Found = OK, fmt.Sprintf("%s repository, the token can push%s", r.Role, used)
	}
	return f
}

func where(r Repo) string {
	if len(r.UsedBy) == 0 {
		return ""
	}
	return " in " + strings.Join(r.UsedBy, ", ")
}

// actions judges whether CI will run for what gallivant pushes to a
// target repository.
func actions(r Repo, t Token, cfg *specs.Config) []Finding {
	if r.Role != RoleTarget || !r.Found || r.Error != "" || cfg.Checks.NoCI(r.Name) {
		return nil
	}
	var out []Finding
	if r.ActionsEnabled != nil && !*r.ActionsEnabled {
		out = append(out, Finding{Check: CheckActions, Status: Fail, Subject: r.Name,
			Found: fmt.Sprintf("GitHub Actions is disabled in %s: its workflows never run, so every pull request waits checks.wait (%s) and stops checks-silent", r.Name, cfg.Checks.Wait),
			Fix:   fmt.Sprintf("enable Actions in %s (Settings → Actions → General → Allow all actions), or add %s to checks.none in gallivant.yaml if it has no CI", r.Name, r.Name)})
	}
	if t.InActions && t.Kind == TokenInstallation && !t.App && t.Var == "GITHUB_TOKEN" {
		out = append(out, Finding{Check: CheckActions, Status: Fail, Subject: r.Name,
			Found: fmt.Sprintf("the token is GitHub Actions' own GITHUB_TOKEN: GitHub starts no workflow for pushes and pull requests it makes, so CI in %s never reports on gallivant's pull requests", r.Name),
			Fix:   "authenticate as a GitHub App (github.app_id and $GALLIVANT_APP_PRIVATE_KEY, docs/github.md) or pass a user's token in $GITHUB_TOKEN (env: GITHUB_TOKEN: ${{ secrets.GALLIVANT_TOKEN }})"})
	}
	if len(out) == 0 {
		state := "Actions settings not readable (an admin-only read)"
		if r.ActionsEnabled != nil {
			state = "Actions enabled"
		}
		out = append(out, Finding{Check: CheckActions, Status: OK, Subject: r.Name, Found: fmt.Sprintf("%s; gallivant's pushes start workflows", state)})
	}
	return out
}

// checks judges checks.none against the workflows a target repository has.
func checks(r Repo, cfg *specs.Config) []Finding {
	if r.Role != RoleTarget || !r.Found || r.Error != "" || !r.WorkflowsKnown {
		return nil
	}
	none := cfg.Checks.NoCI(r.Name)
	switch {
	case r.Workflows == 0 && !none:
		return []Finding{{Check: CheckChecks, Status: Warn, Subject: r.Name,
			Found: fmt.Sprintf("%s has no workflow under .github/workflows and is not in checks.none: unless another CI reports statuses, every pull request waits %s and stops checks-silent", r.Name, cfg.Checks.Wait),
			Fix:   fmt.Sprintf("add it to gallivant.yaml: checks: {none: [%s]} (or add CI to %s)", r.Name, r.Name)}}
	case r.Workflows > 0 && none:
		return []Finding{{Check: CheckChecks, Status: Warn, Subject: r.Name,
			Found: fmt.Sprintf("%s is in checks.none but has %s under .github/workflows: a head with no checks yet counts as green before its CI reports", r.Name, count(r.Workflows, "workflow")),
			Fix:   fmt.Sprintf("remove %s from checks.none in gallivant.yaml", r.Name)}}
	case none:
		return []Finding{{Check: CheckChecks, Status: OK, Subject: r.Name, Found: "no workflows, and listed in checks.none"}}
	}
	return []Finding{{Check: CheckChecks, Status: OK, Subject: r.Name, Found: fmt.Sprintf("%s under .github/workflows", count(r.Workflows, "workflow"))}}
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pushBlockingRules are the ruleset rule types that refuse a plain push
// of a new commit to the branch.
var pushBlockingRules = []string{"pull_request", "required_status_checks", "update", "non_fast_forward", "required_signatures",
	"required_deployments", "merge_queue", "required_linear_history", "creation"}

func control(b Branch, t Token) Finding {
	f := Finding{Check: CheckControl, Subject: b.Repo + "@" + b.Name}
	if b.Local {
		f.Subject = b.Name
		f.Status, f.Found = OK, "the control repository is not on GitHub: no branch protection applies"
		return f
	}
	if b.Error != "" {
		f.Status, f.Found = Fail, fmt.Sprintf("the control branch %s of %s could not be read: %s", b.Name, b.Repo, b.Error)
		f.Fix = fmt.Sprintf("create the branch %s in %s, or set control.branch in gallivant.yaml to the branch that holds desired state", b.Name, b.Repo)
		return f
	}
	var blocking []string
	for _, r := range b.Rules {
		if slices.Contains(pushBlockingRules, r) {
			blocking = append(blocking, "ruleset rule "+r)
		}
	}
	for _, c := range b.RequiredChecks {
		blocking = append(blocking, "required status check "+c)
	}
	who := "gallivant's account"
	if t.Login != "" {
		who = t.Login
	}
	switch {
	case len(blocking) > 0:
		f.Status = Fail
		f.Found = fmt.Sprintf("%s is protected (%s): GitHub refuses gallivant's loop: commits pushed straight to it", b.Name, strings.Join(blocking, ", "))
		f.Fix = fmt.Sprintf("add %s to the bypass list of the ruleset (Settings → Rules → Rulesets → the ruleset → Bypass list → Add bypass), or for classic branch protection remove the required checks and reviews from %s; or keep desired state on an unprotected branch and name it in control.branch", who, b.Name)
	case b.Protected:
		f.Status = Warn
		f.Found = fmt.Sprintf("%s is protected, by rules the token cannot read: a push of gallivant's loop: commits may be refused", b.Name)
		f.Fix = fmt.Sprintf("make sure %s may push to %s directly (a ruleset bypass, or no required reviews or checks on it)", who, b.Name)
	default:
		f.Status, f.Found = OK, fmt.Sprintf("%s is not protected against gallivant's pushes", b.Name)
	}
	return f
}

// preset is what doctor knows about each agent CLI: how to install it,
// how to ask it whether it is signed in, the key that signs it in from the
// environment, how to sign in, and the oldest version it accepts.
type preset struct {
	install, signIn, keyVar, minimum string
}

var presets = map[string]preset{
	specs.ExecutorClaudeCode: {install: "npm install -g @anthropic-ai/claude-code", signIn: "run `claude` and then /login as the agent's user, or export ANTHROPIC_API_KEY and list it in executor.env", keyVar: "ANTHROPIC_API_KEY", minimum: "2.0.0"},
	specs.ExecutorCodex:      {install: "npm install -g @openai/codex", signIn: "run `codex login` as the agent's user, or export OPENAI_API_KEY and list it in executor.env", keyVar: "OPENAI_API_KEY", minimum: "0.50.0"},
	specs.ExecutorAider:      {install: "python3 -m pip install aider-install && aider-install", signIn: "export the key your model needs (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) and list it in executor.env", minimum: "0.80.0"},
}

func agent(a Agent, cfg *specs.Config) []Finding {
	switch a.Kind {
	case "", specs.ExecutorNone:
		return []Finding{{Check: CheckAgent, Status: Warn, Found: "executor.kind is none: passes seed ledgers but dispatch no agent",
			Fix: "set executor.kind in gallivant.yaml (claude-code, codex, aider, command or workflow; docs/agents.md)"}}
	case specs.ExecutorWorkflow:
		return []Finding{{Check: CheckAgent, Status: OK, Subject: cfg.Executor.Workflow, Found: "the workflow executor runs the agent on GitHub Actions; its CLI is the workflow's concern"}}
	}
	p := presets[a.Kind]
	if a.Path == "" {
		fix := fmt.Sprintf("install %s for the agent's user and put it on PATH", a.Program)
		if p.install != "" {
			fix = fmt.Sprintf("install it: %s (for the agent's user), and make sure its directory is on PATH", p.install)
		}
		return []Finding{{Check: CheckAgent, Status: Fail, Subject: a.Program, Found: fmt.Sprintf("%s is not on PATH", a.Program), Fix: fix}}
	}
	var out []Finding
	if a.VersionError != "" {
		out = append(out, Finding{Check: CheckAgent, Status: Fail, Subject: a.Program, Found: fmt.Sprintf("%s (%s) did not answer --version: %s", a.Program, a.Path, a.VersionError),
			Fix: fmt.Sprintf("reinstall %s: %s", a.Program, orElse(p.install, "the way it was installed"))})
	} else if p.minimum != "" {
		min, _ := ParseVersion(p.minimum)
		if v, ok := ParseVersion(a.Version); ok && Less(v, min) {
			out = append(out, Finding{Check: CheckAgent, Status: Warn, Subject: a.Program, Found: fmt.Sprintf("%s is %s, older than %s: the flags gallivant's preset passes may be missing", a.Program, v, p.minimum),
				Fix: fmt.Sprintf("upgrade it: %s", p.install)})
		} else if !ok {
			out = append(out, Finding{Check: CheckAgent, Status: Warn, Subject: a.Program, Found: fmt.Sprintf("%s --version printed %q, which names no version", a.Program, a.Version),
				Fix: fmt.Sprintf("reinstall it: %s", p.install)})
		} else {
			out = append(out, Finding{Check: CheckAgent, Status: OK, Subject: a.Program, Found: fmt.Sprintf("%s %s at %s", a.Program, v, a.Path)})
		}
	} else {
		out = append(out, Finding{Check: CheckAgent, Status: OK, Subject: a.Program, Found: fmt.Sprintf("%s at %s", a.Program, a.Path)})
	}
	switch {
	case a.RunAs != "":
		out = append(out, Finding{Check: CheckAgent, Status: Warn, Subject: a.Program, Found: fmt.Sprintf("the agent runs as %s (executor.run_as): its sign-in was not checked", a.RunAs),
			Fix: fmt.Sprintf("run gallivant doctor as %s, or check the sign-in there: %s", a.RunAs, orElse(p.signIn, "as the CLI documents"))})
	case a.SignedIn == nil:
	case *a.SignedIn && a.KeyVar != "":
		out = append(out, Finding{Check: CheckAgent, Status: OK, Subject: a.Program, Found: fmt.Sprintf("signed in by $%s, which executor.env passes to the agent", a.KeyVar)})
	case *a.SignedIn:
		out = append(out, Finding{Check: CheckAgent, Status: OK, Subject: a.Program, Found: "signed in: " + orElse(a.Status, "the status command succeeded")})
	default:
		out = append(out, Finding{Check: CheckAgent, Status: Fail, Subject: a.Program, Found: "not signed in: " + orElse(a.Status, "the status command failed"),
			Fix: orElse(p.signIn, "sign the CLI in as its documentation says")})
	}
	return out
}

func orElse(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func escalation(cfg *specs.Config) Finding {
	switch cfg.Executor.Kind {
	case "", specs.ExecutorNone:
		return Finding{Check: CheckEscalation, Status: OK, Found: "no executor: nothing escalates"}
	}
	if m := cfg.Executor.EscalationModel; m != "" {
		return Finding{Check: CheckEscalation, Status: OK, Found: fmt.Sprintf("executor.escalation_model is %s: a row that has used %s runs one attempt on it", m, count(cfg.Defaults.EscalateAfter, "attempt"))}
	}
	example := map[string]string{specs.ExecutorClaudeCode: "opus", specs.ExecutorCodex: "gpt-5-codex", specs.ExecutorAider: "sonnet"}[cfg.Executor.Kind]
	if example == "" {
		example = "<a stronger model your agent accepts>"
	}
	return Finding{Check: CheckEscalation, Status: Warn,
		Found: fmt.Sprintf("no executor.escalation_model: a row that has used %s stops no-escalation-model instead of running one attempt on a stronger model", count(cfg.Defaults.EscalateAfter, "attempt")),
		Fix:   fmt.Sprintf("set executor.escalation_model: %s in gallivant.yaml", example)}
}
