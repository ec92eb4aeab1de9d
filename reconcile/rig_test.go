package reconcile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// quiet discards log output.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// rig is a control repository (a bare repo behind file://), the GitHub
// stand-in with target repositories, and the settings to build reconcilers.
type rig struct {
	t       testing.TB
	gh      *ghstandin.Server
	control string // bare control repository
	cache   string
	work    string
	clock   *testserver.Clock // shared with the stand-in: one time for both
	script  Script
	agent   agent.AgentFunc
	runs    []agent.Task // executor runs, in order
	// options apply to every pass's Options, before a pass's own.
	options []rigOption
	mu      sync.Mutex
	log     bytes.Buffer
}

const rigConfig = `defaults:
  repo: acme/api
  allowance: 2
executor:
  kind: command
  command: ["unused"]
  timeout: 30m
  escalation_model: big-model
checks:
  none: [acme/api]
`

func newRig(t testing.TB, files map[string]string, repos ...string) *rig {
	t.Helper()
	if len(repos) == 0 {
		repos = []string{"acme/api"}
	}
	r := &rig{t: t, cache: t.TempDir(), work: t.TempDir(), clock: testserver.NewClock(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))}
	// The stand-in's repositories and the control repository are copies of
	// templates built once per package run (rigtemplate_test.go).
	r.gh = testserver.StartWith(t, ghstandin.Options{Clock: r.clock.Now, Dir: standinTemplate(t, r.clock.Now(), repos)}, repos...)
	r.script = func(string, int, string) Behavior { return Done }
	r.agent = ScriptedAgent(func(target string, n int, model string) Behavior { return r.script(target, n, model) })
	if _, ok := files["gallivant.yaml"]; !ok {
		files["gallivant.yaml"] = rigConfig
	}
	r.control = filepath.Join(controlTemplate(t, files), "control.git")
	return r
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t testing.TB, dir string, name string, args ...string) string {
	t.Helper()
	out, err := rigCommand(dir, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// rigCommand is a command run in dir with the rig's git environment: no
// user or system configuration, and a fixed person as author and committer.
func rigCommand(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=person@example.com",
		"GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com")
	return cmd
}

type rigOption func(*Options)

func (r *rig) reconciler(opts ...rigOption) *Reconciler {
	r.t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: "file://" + r.control, CacheDir: r.cache})
	if err != nil {
		r.t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(&syncWriter{w: &r.log, mu: &r.mu}, nil))
	gh, err := githubapi.New(githubapi.Options{APIURL: r.gh.APIURL(), Token: r.gh.MainToken(), Logger: logger, Timeout: 5 * time.Second, Now: r.clock.Now,
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	if err != nil {
		r.t.Fatal(err)
	}
	exec := agent.CommandExecutor{Timeout: time.Minute, WorkDir: r.work, Token: r.gh.MainToken(), Agent: func(ctx context.Context, dir string, t agent.Task) error {
		r.mu.Lock()
		r.runs = append(r.runs, t)
		r.mu.Unlock()
		return r.agent(ctx, dir, t)
	}}
	o := Options{Store: st, GitHub: gh, Executor: exec, Clock: r.clock.Now, Log: logger, CloneURL: r.gh.GitURL, MergePoll: time.Millisecond}
	for _, f := range append(slices.Clone(r.options), opts...) {
		f(&o)
	}
	return New(o)
}

type syncWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// pass runs one pass with a fresh reconciler, as a CI job would.
func (r *rig) pass(opts ...rigOption) *Report {
	r.t.Helper()
	rep, err := r.reconciler(opts...).Pass(context.Background())
	if err != nil {
		r.t.Fatalf("pass: %v", err)
	}
	return rep
}

// subjects returns the control branch's commit subjects, oldest first.
func (r *rig) subjects() []string {
	out := run(r.t, r.control, "git", "log", "--reverse", "--format=%s", "main")
	return strings.Split(out, "\n")
}

// ledgerAt reads and parses a ledger at the control branch head.
func (r *rig) ledger(path string) *ledger.Ledger {
	r.t.Helper()
	data := run(r.t, r.control, "git", "show", "main:"+path)
	l, ds := ledger.Parse(path, []byte(data+"\n"))
	if ledger.Fatal(ds) {
		r.t.Fatalf("%s: %v\n%s", path, ds, data)
	}
	return l
}

// edit changes a file on the control branch as a person would: clone,
// commit, push.
func (r *rig) edit(path string, change func(string) string) {
	r.t.Helper()
	dir := r.t.TempDir()
	run(r.t, dir, "git", "clone", "--quiet", r.control, "w")
	w := filepath.Join(dir, "w")
	old, _ := os.ReadFile(filepath.Join(w, path))
	writeFile(r.t, filepath.Join(w, path), change(string(old)))
	run(r.t, w, "git", "add", "-A")
	run(r.t, w, "git", "commit", "--quiet", "-m", "edit "+path)
	run(r.t, w, "git", "push", "--quiet", "origin", "main")
}

// request adds a request line to a ledger's ## Requests section.
func (r *rig) request(ledgerPath, line string) {
	r.edit(ledgerPath, func(s string) string {
		if !strings.Contains(s, "## Requests") {
			s += "\n## Requests\n"
		}
		return strings.TrimRight(s, "\n") + "\n" + line + "\n"
	})
}

// countSubjects counts a report's transitions whose subject starts with
// prefix.
func countSubjects(rep *Report, prefix string) int {
	n := 0
	for _, t := range rep.Transitions {
		if strings.HasPrefix(t.Subject, prefix) {
			n++
		}
	}
	return n
}

func subjectsOf(rep *Report) []string {
	var out []string
	for _, t := range rep.Transitions {
		out = append(out, t.Subject)
	}
	return out
}

func specWith(n int, extra string) string {
	var b strings.Builder
	b.WriteString("# Feature\n\n## Acceptance criteria\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d. Criterion %d holds.\n", i, i)
		if i == n && extra != "" {
			b.WriteString(extra)
		}
	}
	b.WriteString("\n## Verify\n- `test -d rows`\n")
	return b.String()
}

func specOf(t testing.TB, src string) *specs.Spec {
	t.Helper()
	s, ds := specs.ParseSpec(parse.Parse("specs/feature.md", []byte(src)), specs.Defaults{Repo: "acme/api", Base: "main"})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return s
}
