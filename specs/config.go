package specs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
	"github.com/robfig/cron/v3"
	"go.yaml.in/yaml/v3"
)

// ConfigFile is the name of the configuration file at the control repository root.
const ConfigFile = "gallivant.yaml"

// Executor kinds.
const (
	ExecutorCommand  = "command"
	ExecutorWorkflow = "workflow"
	ExecutorNone     = "none"
	// The presets run a known agent CLI the way the command executor runs
	// executor.command, building its command line from the brief.
	ExecutorClaudeCode = "claude-code"
	ExecutorCodex      = "codex"
	ExecutorAider      = "aider"
)

// RunsTasks reports whether an executor of kind runs a plan's tasks on
// this machine (docs/plans.md "Wave execution"): the command executor and
// the presets do; a workflow run cannot hand a task's commit back to be
// applied in order, and none runs no agent. The empty kind is the command
// executor's default.
func RunsTasks(kind string) bool {
	return kind != ExecutorWorkflow && kind != ExecutorNone
}

// HarnessName resolves a spec's harness: to an executor kind: a preset,
// command, or "" when the name is unknown. "claude" is claude-code, the
// name the CLI's binary has.
func HarnessName(h string) string {
	switch h {
	case "claude", ExecutorClaudeCode:
		return ExecutorClaudeCode
	case ExecutorCodex, ExecutorAider, ExecutorCommand:
		return h
	}
	return ""
}

// Config is gallivant.yaml. Every field has a default, so an empty file (or
// none) is a valid configuration.
type Config struct {
	Control  ControlConfig
	GitHub   GitHubConfig
	Defaults DefaultsConfig
	// Reviewer is nil when no reviewer is configured.
	Reviewer *ReviewerConfig
	Labels   LabelsConfig
	Executor ExecutorConfig
	Gatekeep GatekeepConfig
	Checks   ChecksConfig
	// Formats says where spec-kit and Kiro specs live; empty by default.
	Formats FormatsConfig
	// Schedule is the daemon's robfig/cron schedule.
	Schedule string
	// Notify lists the notification targets; empty sends none.
	Notify []NotifyTarget
	// DashboardIssue keeps one issue in the control repository up to date
	// each pass, whose boxes steer entries (docs/requests.md); off by
	// default.
	DashboardIssue bool
	// Learning is nil unless gallivant.yaml has a `learning:` key: only
	// then does a delivered entry dispatch a learn task
	// (docs/learning.md "The learn task").
	Learning *LearningConfig
	// Unreadable is true when gallivant.yaml is not YAML at all (bad
	// encoding or syntax): every value is its default, and the documents
	// leave out diagnostics that only a missing default would cause, such
	// as a spec's "no target repository", which would point away from the
	// one thing to fix.
	Unreadable bool
}

// ControlConfig says where documents live in the control repository.
type ControlConfig struct {
	// Branch holds desired state; transitions are committed to it.
	Branch string
	// Specs and Chains are directories scanned recursively for *.md.
	Specs, Chains []string
	// Plans holds plans and ledgers (<plans>/<spec-stem>-ledger.md).
	Plans string
}

// GitHubConfig says how to reach GitHub.
type GitHubConfig struct {
	// APIURL is the REST base URL (GitHub Enterprise: https://host/api/v3/).
	APIURL string
	// TokenEnv names the environment variable holding the token; GH_TOKEN
	// is read when it is unset.
	TokenEnv string
	// AppID is a GitHub App's id: when set (or $GALLIVANT_APP_ID is),
	// gallivant authenticates as the App's installation instead of with a
	// token (docs/github.md).
	AppID int
	// AppInstallationID picks the App's installation; 0 finds the one on
	// the control repository.
	AppInstallationID int
	// AppPrivateKeyFile is the App's PEM private key, read when
	// $GALLIVANT_APP_PRIVATE_KEY is unset.
	AppPrivateKeyFile string
}

// DefaultsConfig holds values a spec may omit.
type DefaultsConfig struct {
	Repo          string
	Base          string
	Allowance     int
	EscalateAfter int
	MaxRounds     int
}

// ReviewerConfig names a human reviewer whose review clears a pull request.
type ReviewerConfig struct {
	Login           string
	RereviewMinutes int
	StallHours      int
}

// LearningConfig is the `learning:` section: which target repositories'
// delivered entries dispatch a learn task, and where the lessons pull
// requests open.
type LearningConfig struct {
	// ControlRepo is the control repository on GitHub (owner/name) the
	// lessons pull requests open on; "" takes the one the control URL (or
	// $GITHUB_REPOSITORY) names.
	ControlRepo string
	// Repos limits learning to these target repositories; empty learns
	// from every one.
	Repos []string
}

// Learns reports whether a delivered entry of target repository repo
// dispatches a learn task: learning is configured and, when it lists
// repositories, lists repo.
func (c *Config) Learns(repo string) bool {
	if c == nil || c.Learning == nil {
		return false
	}
	if len(c.Learning.Repos) == 0 {
		return true
	}
	for _, r := range c.Learning.Repos {
		if strings.EqualFold(r, repo) {
			return true
		}
	}
	return false
}

// LabelsConfig names the labels gallivant writes.
type LabelsConfig struct{ Ready string }

// ExecutorConfig says how a dispatch reaches an agent.
type ExecutorConfig struct {
	Kind    string
	Command []string
	Timeout time.Duration
	// Grace is how long after dispatched-at + Timeout a dispatch is still
	// presumed in flight: the margin for clock skew between reconcilers and
	// for the push that follows a run. Only then may a pass that did not
	// run the agent stop it interrupted.
	Grace time.Duration
	// ReplayBudget is the total time one verification's evidence replay
	// may take (executor.replay_budget); a replay still running when it is
	// spent is stopped and the entry stops verify-failed, naming the
	// commands not run.
	ReplayBudget time.Duration
	// Workflow is the workflow file (or id) the workflow executor dispatches.
	Workflow string
	// ProofCheck names the check run or commit status that proves the
	// rows' evidence where gallivant holds no checkout (the workflow and
	// none executors): CI reports it after `gallivant prove` replayed
	// every done row's evidence on the head, and the completion gate
	// labels a pull request ready only when it succeeded there. Empty: no
	// such check, so the none executor's pull requests are never ready and
	// the workflow executor proves each head by a prove dispatch of its
	// workflow (docs/verify.md "Proof through the workflow"); set, it takes
	// precedence over that dispatch.
	ProofCheck string
	// EscalationModel is passed on an escalated attempt only; empty means
	// there is none and the escalated attempt runs on the default model.
	EscalationModel string
	// Env names the variables of gallivant's environment that the command
	// executor passes to the agent; nothing else is passed. It never
	// holds a secret (SecretEnv): validation refuses one.
	Env []string
	// RunAs is the user (name or numeric uid) the command executor runs
	// the agent as; empty runs it as gallivant's own user. Switching users
	// needs gallivant to run as root.
	RunAs string
	// Verify runs the spec's Verify commands in a fresh checkout of the
	// work branch before the pull request opens (command executor only);
	// true unless executor.verify is false.
	Verify bool
	// MaxParallel bounds the agent runs one pass has going at once, across
	// entries (4 unless set); MaxParallelPerRepo bounds them per member
	// repository (0: only MaxParallel applies).
	MaxParallel        int
	MaxParallelPerRepo int
}

// DefaultAgentEnv is executor.env when the configuration omits it: what a
// program needs to find its tools, its home, its locale and a temporary
// directory.
var DefaultAgentEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ", "USER", "LOGNAME", "SHELL"}

// SecretEnv reports whether the environment variable name may hold a
// credential, so that it never reaches an agent: the configured token
// variable, GitHub's and gh's token variables, the ssh agent socket, git's
// and ssh's password helpers, git configuration passed through the
// environment (how gallivant hands git its credential), and every
// GALLIVANT_ variable.
func SecretEnv(name, tokenEnv string) bool {
	switch name {
	case tokenEnv, "GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "SSH_AUTH_SOCK", "GIT_ASKPASS", "SSH_ASKPASS":
		return true
	}
	return strings.HasPrefix(name, "GALLIVANT_") || name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT" ||
		strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// ChecksConfig says how the loop treats CI on a pull request's head.
type ChecksConfig struct {
	// Wait is how long a head may go without any check run or status
	// before the entry stops checks-silent.
	Wait time.Duration
	// None lists target repositories that have no CI: there, a head with no
	// checks counts as green. Everywhere else it is waited for.
	None []string
}

// NoCI reports whether repo is declared to have no CI (checks.none).
func (c ChecksConfig) NoCI(repo string) bool {
	for _, r := range c.None {
		if strings.EqualFold(r, repo) {
			return true
		}
	}
	return false
}

// GatekeepConfig bounds `gallivant gatekeep`.
type GatekeepConfig struct{ MaxPRs int }

// DefaultConfig returns the configuration an empty gallivant.yaml means.
// DefaultReplayBudget is executor.replay_budget's default.
const DefaultReplayBudget = 30 * time.Minute

func DefaultConfig() *Config {
	return &Config{
		Control:  ControlConfig{Branch: "main", Specs: []string{"specs"}, Chains: []string{"chains"}, Plans: "plans"},
		GitHub:   GitHubConfig{APIURL: "https://api.github.com/", TokenEnv: "GITHUB_TOKEN"},
		Defaults: DefaultsConfig{Base: "main", Allowance: 4, EscalateAfter: 3, MaxRounds: 10},
		Labels:   LabelsConfig{Ready: "ready-for-human"},
		Executor: ExecutorConfig{Kind: ExecutorNone, Timeout: 60 * time.Minute, Grace: 5 * time.Minute, ReplayBudget: DefaultReplayBudget, Env: DefaultAgentEnv, Verify: true, MaxParallel: 4},
		Gatekeep: GatekeepConfig{MaxPRs: 8},
		Checks:   ChecksConfig{Wait: 30 * time.Minute},
		Schedule: "@every 5m",
	}
}

var repoRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// ValidRepo reports whether s is an `owner/name` repository reference.
func ValidRepo(s string) bool {
	return repoRE.MatchString(s) && !strings.HasSuffix(s, "/.") && !strings.HasSuffix(s, "/..")
}

// ParseConfig parses and validates gallivant.yaml. Unknown keys are errors. It
// always returns a usable configuration: invalid values keep their defaults.
func ParseConfig(path string, data []byte) (*Config, parse.Diagnostics) {
	cfg := DefaultConfig()
	d := &yamlDecoder{file: path, line0: 0, yaml: parse.NewYAMLPositions(data)}
	if len(data) > parse.MaxSize {
		d.diags.Errorf(path, parse.Pos{Line: 1, Col: 1}, "config/syntax", "file is %d bytes; gallivant.yaml is limited to %d bytes", len(data), parse.MaxSize)
		return cfg, d.diags
	}
	if at, rule, msg, bad := encodingProblem(data); bad {
		cfg.Unreadable = true
		d.diags.Errorf(path, at, rule, "%s", msg)
		return cfg, d.diags
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		at, msg := d.yaml.SyntaxError(err)
		cfg.Unreadable = true
		d.diags.Errorf(path, parse.Pos{Line: at.Line, Col: 1}, "config/syntax", "gallivant.yaml is not valid YAML: %s", msg)
		return cfg, d.diags
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	root := doc.Content[0]
	d.mapping(root, "", map[string]func(*yaml.Node){
		"control": func(n *yaml.Node) {
			d.mapping(n, "control", map[string]func(*yaml.Node){
				"branch": d.str(&cfg.Control.Branch, nonEmpty),
				"specs":  d.dirs(&cfg.Control.Specs),
				"chains": d.dirs(&cfg.Control.Chains),
				"plans":  d.str(&cfg.Control.Plans, relDir),
			})
		},
		"github": func(n *yaml.Node) {
			d.mapping(n, "github", map[string]func(*yaml.Node){
				"api_url":              d.str(&cfg.GitHub.APIURL, apiURL),
				"token_env":            d.str(&cfg.GitHub.TokenEnv, envName),
				"app_id":               d.integer(&cfg.GitHub.AppID, 1),
				"app_installation_id":  d.integer(&cfg.GitHub.AppInstallationID, 1),
				"app_private_key_file": d.str(&cfg.GitHub.AppPrivateKeyFile, nonEmpty),
			})
		},
		"defaults": func(n *yaml.Node) {
			d.mapping(n, "defaults", map[string]func(*yaml.Node){
				"repo":           d.str(&cfg.Defaults.Repo, repoRef),
				"base":           d.str(&cfg.Defaults.Base, nonEmpty),
				"allowance":      d.integer(&cfg.Defaults.Allowance, 1),
				"escalate_after": d.integer(&cfg.Defaults.EscalateAfter, 1),
				"max_rounds":     d.integer(&cfg.Defaults.MaxRounds, 1),
			})
		},
		"reviewer": func(n *yaml.Node) {
			r := &ReviewerConfig{RereviewMinutes: 60, StallHours: 48}
			d.mapping(n, "reviewer", map[string]func(*yaml.Node){
				"login":            d.str(&r.Login, nonEmpty),
				"rereview_minutes": d.integer(&r.RereviewMinutes, 1),
				"stall_hours":      d.integer(&r.StallHours, 1),
			})
			if r.Login == "" {
				d.errorf(n, "config/invalid", "reviewer needs a login; remove the reviewer block to run without one")
				return
			}
			cfg.Reviewer = r
		},
		"labels": func(n *yaml.Node) {
			d.mapping(n, "labels", map[string]func(*yaml.Node){"ready": d.str(&cfg.Labels.Ready, nonEmpty)})
		},
		"executor": func(n *yaml.Node) {
			d.mapping(n, "executor", map[string]func(*yaml.Node){
				"kind":                  d.str(&cfg.Executor.Kind, oneOf(ExecutorClaudeCode, ExecutorCodex, ExecutorAider, ExecutorCommand, ExecutorWorkflow, ExecutorNone)),
				"command":               d.strings(&cfg.Executor.Command),
				"timeout":               d.duration(&cfg.Executor.Timeout),
				"grace":                 d.duration(&cfg.Executor.Grace),
				"replay_budget":         d.duration(&cfg.Executor.ReplayBudget),
				"workflow":              d.str(&cfg.Executor.Workflow, nonEmpty),
				"proof_check":           d.str(&cfg.Executor.ProofCheck, nonEmpty),
				"escalation_model":      d.str(&cfg.Executor.EscalationModel, nil),
				"env":                   d.envList(&cfg.Executor.Env),
				"run_as":                d.str(&cfg.Executor.RunAs, userName),
				"verify":                d.boolean(&cfg.Executor.Verify),
				"max_parallel":          d.integer(&cfg.Executor.MaxParallel, 1),
				"max_parallel_per_repo": d.integer(&cfg.Executor.MaxParallelPerRepo, 1),
			})
			if cfg.Executor.Kind == ExecutorCommand && len(cfg.Executor.Command) == 0 {
				d.errorf(n, "config/invalid", "executor.kind command needs executor.command, the argv to run (for example [\"claude\", \"-p\"])")
			}
			if cfg.Executor.Kind == ExecutorWorkflow && cfg.Executor.Workflow == "" {
				d.errorf(n, "config/invalid", "executor.kind workflow needs executor.workflow, the workflow file to dispatch (for example agent.yml)")
			}
		},
		"gatekeep": func(n *yaml.Node) {
			d.mapping(n, "gatekeep", map[string]func(*yaml.Node){"max_prs": d.integer(&cfg.Gatekeep.MaxPRs, 1)})
		},
		"checks": func(n *yaml.Node) {
			d.mapping(n, "checks", map[string]func(*yaml.Node){
				"wait": d.duration(&cfg.Checks.Wait),
				"none": d.strings(&cfg.Checks.None),
			})
			for _, r := range cfg.Checks.None {
				if !ValidRepo(r) {
					d.errorf(n, "config/invalid", "checks.none lists %q; each entry is a target repository owner/name", r)
				}
			}
		},
		"learning": func(n *yaml.Node) {
			lc := &LearningConfig{}
			d.mapping(n, "learning", map[string]func(*yaml.Node){
				"control_repo": d.str(&lc.ControlRepo, repoRef),
				"repos":        d.strings(&lc.Repos),
			})
			if n.Kind != yaml.MappingNode && n.Tag != "!!null" {
				return
			}
			if n := find(n, "repos"); n != nil {
				for i, r := range lc.Repos {
					if !ValidRepo(r) && i < len(n.Content) {
						d.errorf(n.Content[i], "config/invalid", "learning.repos lists %q; each entry is a target repository owner/name", r)
					}
				}
			}
			cfg.Learning = lc
		},
		"schedule":        d.str(&cfg.Schedule, cronSpec),
		"notify":          d.notify(&cfg.Notify),
		"dashboard_issue": d.boolean(&cfg.DashboardIssue),
		"formats": func(n *yaml.Node) {
			d.mapping(n, "formats", map[string]func(*yaml.Node){
				"spec_kit":         d.dirs(&cfg.Formats.SpecKit),
				"kiro":             d.dirs(&cfg.Formats.Kiro),
				"success_criteria": d.boolean(&cfg.Formats.SuccessCriteria),
				"verify":           d.strings(&cfg.Formats.Verify),
			})
		},
	})
	// The token variable may be named after executor.env, so secrets are
	// checked once the whole file is read.
	if n := find(root, "executor", "env"); n != nil {
		for i, name := range cfg.Executor.Env {
			if SecretEnv(name, cfg.GitHub.TokenEnv) && i < len(n.Content) {
				d.errorf(n.Content[i], "config/invalid", "executor.env must not pass %s to the agent: it may hold a credential, and the agent never sees one (docs/security.md)", name)
			}
		}
	}
	d.notifySecrets(root, cfg)
	return cfg, d.diags
}

// yamlDecoder decodes yaml.v3 nodes strictly, collecting diagnostics.
type yamlDecoder struct {
	file  string
	line0 int // added to node lines (frontmatter offset)
	// yaml translates yaml.v3's lines (which also break at NEL, LS and
	// PS) into the file's, before line0 is added.
	yaml  parse.YAMLPositions
	diags parse.Diagnostics
}

func (d *yamlDecoder) pos(n *yaml.Node) parse.Pos {
	p := d.yaml.Pos(n.Line, n.Column)
	return parse.Pos{Line: p.Line + d.line0, Col: p.Col}
}

func (d *yamlDecoder) errorf(n *yaml.Node, rule, format string, args ...any) {
	d.diags.Errorf(d.file, d.pos(n), rule, format, args...)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	default:
		if n.Tag == "!!null" {
			return "null"
		}
		return fmt.Sprintf("the scalar %q", n.Value)
	}
}

// mapping decodes a mapping whose keys must all be known.
func (d *yamlDecoder) mapping(n *yaml.Node, where string, fields map[string]func(*yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		if n.Tag == "!!null" {
			return
		}
		what := "the top level"
		if where != "" {
			what = where
		}
		d.errorf(n, "config/type", "%s must be a mapping of keys to values, got %s", what, kindName(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		full := k.Value
		if where != "" {
			full = where + "." + k.Value
		}
		if seen[k.Value] {
			d.errorf(k, "config/duplicate-key", "%s is set twice; keep one", full)
			continue
		}
		seen[k.Value] = true
		fn, ok := fields[k.Value]
		if !ok {
			d.errorf(k, "config/unknown-key", "unknown key %s; expected one of %s", full, keyList(fields))
			continue
		}
		fn(v)
	}
}

func keyList(fields map[string]func(*yaml.Node)) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return strings.Join(keys, ", ")
}

type check func(string) error

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

func repoRef(s string) error {
	if !ValidRepo(s) {
		return fmt.Errorf("must be a repository as owner/name, got %q", s)
	}
	return nil
}

func relDir(s string) error {
	if _, err := cleanRel(s); err != nil {
		return err
	}
	return nil
}

func apiURL(s string) error {
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
		return fmt.Errorf("must be an http or https URL, got %q", s)
	}
	return nil
}

var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func envName(s string) error {
	if !envRE.MatchString(s) {
		return fmt.Errorf("must be an environment variable name, got %q", s)
	}
	return nil
}

func oneOf(vals ...string) check {
	return func(s string) error {
		for _, v := range vals {
			if s == v {
				return nil
			}
		}
		return fmt.Errorf("must be one of %s, got %q", strings.Join(vals, ", "), s)
	}
}

func cronSpec(s string) error {
	if _, err := cron.ParseStandard(s); err != nil {
		return fmt.Errorf("is not a valid schedule (%v); use cron syntax or @every <duration>", err)
	}
	return nil
}

func (d *yamlDecoder) scalar(n *yaml.Node, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		d.errorf(n, "config/type", "expected %s, got %s", want, kindName(n))
		return "", false
	}
	return n.Value, true
}

func (d *yamlDecoder) str(dst *string, valid check) func(*yaml.Node) {
	return func(n *yaml.Node) {
		s, ok := d.scalar(n, "a string")
		if !ok {
			return
		}
		if valid != nil {
			if err := valid(s); err != nil {
				d.errorf(n, "config/invalid", "value %s", err)
				return
			}
		}
		*dst = s
	}
}

func (d *yamlDecoder) integer(dst *int, minimum int) func(*yaml.Node) {
	return func(n *yaml.Node) {
		s, ok := d.scalar(n, "a whole number")
		if !ok {
			return
		}
		v, err := strconv.Atoi(s)
		if err != nil || n.Tag != "!!int" {
			d.errorf(n, "config/type", "expected a whole number, got %q", s)
			return
		}
		if v < minimum {
			d.errorf(n, "config/invalid", "value must be at least %d, got %d", minimum, v)
			return
		}
		*dst = v
	}
}

func (d *yamlDecoder) boolean(dst *bool) func(*yaml.Node) {
	return func(n *yaml.Node) {
		s, ok := d.scalar(n, "true or false")
		if !ok {
			return
		}
		if n.Tag != "!!bool" {
			d.errorf(n, "config/type", "expected true or false, got %q", s)
			return
		}
		*dst = s == "true" || s == "True" || s == "TRUE"
	}
}

func (d *yamlDecoder) duration(dst *time.Duration) func(*yaml.Node) {
	return func(n *yaml.Node) {
		s, ok := d.scalar(n, "a duration such as 60m")
		if !ok {
			return
		}
		v, err := time.ParseDuration(s)
		if err != nil || v <= 0 {
			d.errorf(n, "config/invalid", "value must be a positive Go duration such as 45m or 2h, got %q", s)
			return
		}
		*dst = v
	}
}

func (d *yamlDecoder) strings(dst *[]string) func(*yaml.Node) {
	return func(n *yaml.Node) {
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "config/type", "expected a list of strings, got %s", kindName(n))
			return
		}
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			s, ok := d.scalar(c, "a string")
			if !ok {
				return
			}
			out = append(out, s)
		}
		*dst = out
	}
}

// envList decodes a list of environment variable names.
func (d *yamlDecoder) envList(dst *[]string) func(*yaml.Node) {
	return func(n *yaml.Node) {
		var raw []string
		d.strings(&raw)(n)
		if raw == nil {
			return
		}
		for i, s := range raw {
			if err := envName(s); err != nil {
				d.errorf(n.Content[i], "config/invalid", "executor.env %s", err)
				return
			}
		}
		*dst = raw
	}
}

// find returns the value node at the path of mapping keys, or nil.
func find(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

var userRE = regexp.MustCompile(`^(?:[a-z_][a-z0-9_-]{0,31}\$?|[0-9]{1,10})$`)

func userName(s string) error {
	if !userRE.MatchString(s) {
		return fmt.Errorf("must be a user name or a numeric uid, got %q", s)
	}
	return nil
}

func (d *yamlDecoder) dirs(dst *[]string) func(*yaml.Node) {
	return func(n *yaml.Node) {
		var raw []string
		d.strings(&raw)(n)
		if raw == nil {
			return
		}
		if len(raw) == 0 {
			d.errorf(n, "config/invalid", "expected at least one directory")
			return
		}
		out := make([]string, 0, len(raw))
		for i, s := range raw {
			c, err := cleanRel(s)
			if err != nil {
				d.errorf(n.Content[i], "config/invalid", "directory %s", err)
				return
			}
			out = append(out, c)
		}
		*dst = out
	}
}

// encodingProblem finds the first byte of data that keeps it from being a
// YAML text: a NUL, invalid UTF-8, or a character YAML forbids in a
// document (other C0 and C1 controls, DEL, U+FFFE, U+FFFF). yaml.v3 names
// no position for these; at is where the byte is, in the file's lines.
func encodingProblem(data []byte) (at parse.Pos, rule, msg string, bad bool) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			return parse.Pos{Line: line, Col: col}, parse.RuleEncoding, fmt.Sprintf("invalid UTF-8 byte 0x%02x; gallivant.yaml must be UTF-8 text", data[i]), true
		case r == 0:
			return parse.Pos{Line: line, Col: col}, parse.RuleBinary, "gallivant.yaml contains a NUL byte; it must be UTF-8 text", true
		case r == '\r' || r == '\n':
			if r == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				n = 2
			}
			line, col = line+1, 1
			i += n
			continue
		case r == '\t' || r == 0x85:
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfffe || r == 0xffff:
			return parse.Pos{Line: line, Col: col}, parse.RuleEncoding, fmt.Sprintf("control character U+%04X; YAML allows no control characters other than tab and line breaks", r), true
		}
		col++
		i += n
	}
	return parse.Pos{}, "", "", false
}
