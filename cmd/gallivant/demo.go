package main

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/scripted"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/google/go-github/v66/github"
	"github.com/spf13/cobra"
)

//go:embed all:demo
var demoFS embed.FS

type demoOptions struct {
	Keep        string
	Coordinated bool
}

func (a *app) newDemoCmd() *cobra.Command {
	opts := &demoOptions{}
	cmd := &cobra.Command{
		Use:   "demo [--keep DIR] [--coordinated]",
		Short: "Run gallivant end to end on an embedded example, offline",
		Long: `demo needs no network, no account and no configuration. It creates a control
repository from an embedded example — a two-milestone chain — starts the
GitHub stand-in in-process with the target repository, and runs reconcile
passes with a built-in scripted agent as the executor. In the first
milestone one row passes at once, one fails and is retried through a request
the demo adds as a person would, and one is cut; then the pull request goes
through CI, a review round for a requested change, the ready label and a
person's merge, after which the second milestone starts and is delivered the
same way. It prints each pass's transitions and what the people did, and
finally git log --oneline of the control repository.

--coordinated runs the second scenario instead: one spec with two legs in
two target repositories, delivered as one pull request per leg — CI fails
once on one leg, which gets its own fix round while the other leg waits —
labelled ready together and done when both are merged.

--keep DIR keeps everything (control repository, GitHub state, agent
checkouts and logs) under DIR for inspection.`,
		Example: `  gallivant demo
  gallivant demo --keep /tmp/demo && git -C /tmp/demo/control.git log --oneline
  gallivant demo --coordinated`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.demoRun(cmd.Context(), opts) },
	}
	cmd.Flags().StringVar(&opts.Keep, "keep", "", "keep everything under this directory instead of a temporary one")
	cmd.Flags().BoolVar(&opts.Coordinated, "coordinated", false, "run the coordinated scenario: one spec, two legs, one pull request per leg")
	return cmd
}

func (a *app) demoRun(ctx context.Context, opts *demoOptions) error {
	root := opts.Keep
	if root == "" {
		tmp, err := os.MkdirTemp("", "gallivant-demo-")
		if err != nil {
			return &exitError{code: exitFindings, err: err}
		}
		defer os.RemoveAll(tmp)
		root = tmp
	} else if err := os.MkdirAll(root, 0o755); err != nil {
		return usageError("--keep %s: %v", root, err)
	}
	root, _ = filepath.Abs(root)
	d := &demo{a: a, ctx: ctx, root: root}
	run := d.run
	if opts.Coordinated {
		run = d.runCoordinated
	}
	if err := run(); err != nil {
		return &exitError{code: exitFindings, err: err}
	}
	if opts.Keep != "" {
		fmt.Fprintf(a.io.Err, "kept everything under %s (control repository: %s)\n", root, d.control)
	}
	return nil
}

type demo struct {
	a       *app
	ctx     context.Context
	root    string
	control string
	gh      *ghstandin.Server
	person  func(change, message string) error
}

// demoScript is the scripted agent's part: the seed and row 1 pass at
// once; row 2 fails twice (the second time on the escalation model), stops
// at its allowance, and passes on the attempt a person's retry buys.
func demoScript(target string, n int, model string) scripted.Behavior {
	if target == "2" && n <= 2 {
		return scripted.Fail
	}
	return scripted.Done
}

func (d *demo) run() error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("the demo needs git on PATH: %w", err)
	}
	if err := d.setup(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	gh, err := githubapi.New(githubapi.Options{APIURL: d.gh.APIURL(), Token: d.gh.MainToken(), Logger: log})
	if err != nil {
		return err
	}
	people := newDemoPeople(d.gh)
	exec := agent.CommandExecutor{Timeout: 10 * time.Minute, WorkDir: filepath.Join(d.root, "work"), Token: d.gh.MainToken(), Agent: demoAgent}
	// The legend: what the lines mean and where the words are explained.
	fmt.Fprintf(d.a.io.Out, "gallivant demo: specs in a control repository driven through a scripted agent and a local GitHub; words like row, seed, cut, allowance, iteration: %s\n", glossary)
	fmt.Fprintln(d.a.io.Out, "legend: \"== pass N\" is one reconcile pass; each line under it is one loop: commit (spec, commit subject, what happened); other \"==\" lines are people acting between passes")
	asked := false
	for pass := 1; pass <= 40; pass++ {
		snap, err := d.pass(pass, reconcile.Options{GitHub: gh, Executor: exec, Log: log, ControlRepo: "acme/shop-control"}, 18, 36)
		if err != nil {
			return err
		}
		first, last := snap.Repo.Ledgers["specs/checkout.md"], snap.Repo.Ledgers["specs/receipts.md"]
		if first == nil {
			return fmt.Errorf("the demo spec was not seeded")
		}
		if reason, _, stopped := first.Stop(); stopped && reason == ledger.StopAllowance && !asked {
			line := "retry 2 | apply the discount before tax, see pricing/discounts.go"
			fmt.Fprintf(d.a.io.Out, "== a person reads the stop and adds a request: %s\n", line)
			if err := d.person(line, "Ask for one more attempt at row 2"); err != nil {
				return err
			}
			asked = true
			continue
		}
		if last != nil && last.Phase() == ledger.PhaseDone {
			break
		}
		for _, l := range []*ledger.Ledger{first, last} {
			if l == nil {
				continue
			}
			if reason, detail, stopped := l.Stop(); stopped {
				return fmt.Errorf("the demo stopped unexpectedly (%s: %s)", reason, detail)
			}
		}
		said, err := people.act(d.ctx)
		if err != nil {
			return err
		}
		for _, line := range said {
			fmt.Fprintf(d.a.io.Out, "== %s\n", line)
		}
	}
	fmt.Fprintln(d.a.io.Out, "== git log --oneline (control repository)")
	out, err := exec0(d.control, "git", "log", "--oneline", "main", "--")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(d.a.io.Out, out); err != nil {
		return err
	}
	fmt.Fprintln(d.a.io.Out, "== what to do next")
	fmt.Fprintf(d.a.io.Out, "run gallivant on your own control repository against a local GitHub: the quickstart, docs/quickstart.md (%squickstart.md)\n", docsURL)
	return nil
}

// demoPeople plays everyone around gallivant through the GitHub API: CI
// reporting a status on each new head, Rita reviewing (she asks for one
// change on the first pull request), and Dana merging what is labelled
// ready.
type demoPeople struct {
	ci, rita, dana *github.Client
	requested      map[int]bool
}

func newDemoPeople(s *ghstandin.Server) *demoPeople {
	return &demoPeople{ci: s.Client("ci-bot"), rita: s.Client("rita"), dana: s.Client("dana"), requested: map[int]bool{}}
}

// act does what the people would do next, at most one thing per pull
// request, and says what they did.
func (p *demoPeople) act(ctx context.Context) ([]string, error) {
	prs, _, err := p.dana.PullRequests.List(ctx, "acme", "shop", &github.PullRequestListOptions{State: "open"})
	if err != nil {
		return nil, err
	}
	var said []string
	for _, pr := range prs {
		n, head := pr.GetNumber(), pr.GetHead().GetSHA()
		st, _, err := p.ci.Repositories.GetCombinedStatus(ctx, "acme", "shop", head, nil)
		if err != nil {
			return nil, err
		}
		if len(st.Statuses) == 0 {
			_, _, err := p.ci.Repositories.CreateStatus(ctx, "acme", "shop", head, &github.RepoStatus{State: github.String("success"), Context: github.String("ci")})
			if err != nil {
				return nil, err
			}
			said = append(said, fmt.Sprintf("CI reports ci success on acme/shop#%d at %s", n, shortSHA(head)))
			continue
		}
		for _, l := range pr.Labels {
			if l.GetName() == "ready-for-human" {
				if _, _, err := p.dana.PullRequests.Merge(ctx, "acme", "shop", n, "", nil); err != nil {
					return nil, err
				}
				said = append(said, fmt.Sprintf("Dana merges acme/shop#%d", n))
			}
		}
		reviews, _, err := p.rita.PullRequests.ListReviews(ctx, "acme", "shop", n, nil)
		if err != nil {
			return nil, err
		}
		onHead := false
		for _, r := range reviews {
			onHead = onHead || r.GetCommitID() == head
		}
		if onHead {
			continue
		}
		event, body := "APPROVE", ""
		if !p.requested[n] && n == 1 {
			event, body = "REQUEST_CHANGES", "Round the tax to whole cents before adding it."
			p.requested[n] = true
		}
		req := &github.PullRequestReviewRequest{Event: github.String(event), CommitID: github.String(head)}
		if body != "" {
			req.Body = github.String(body)
		}
		if _, _, err := p.rita.PullRequests.CreateReview(ctx, "acme", "shop", n, req); err != nil {
			return nil, err
		}
		if body != "" {
			said = append(said, fmt.Sprintf("Rita requests changes on acme/shop#%d: %q", n, body))
		} else {
			said = append(said, fmt.Sprintf("Rita approves acme/shop#%d at %s", n, shortSHA(head)))
		}
	}
	return said, nil
}

// setup creates the control repository from the embedded example and the
// GitHub stand-in with the target repository.
func (d *demo) setup() error {
	var err error
	d.gh, err = ghstandin.New(ghstandin.Options{Dir: filepath.Join(d.root, "github")})
	if err != nil {
		return err
	}
	if err := d.gh.CreateRepo("acme/shop", "main"); err != nil {
		return err
	}
	// A small Go module, so that the specs' Verify commands
	// (`go test ./checkout/...`) really run before each pull request opens.
	for path, content := range map[string]string{
		"go.mod":                    "module example.com/shop\n\ngo 1.22\n",
		"checkout/checkout.go":      "// Package checkout totals carts.\npackage checkout\n\n// Total adds tax to a subtotal in cents.\nfunc Total(subtotal, taxPercent int) int { return subtotal + subtotal*taxPercent/100 }\n",
		"checkout/checkout_test.go": "package checkout\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif got := Total(1000, 8); got != 1080 {\n\t\tt.Errorf(\"Total = %d, want 1080\", got)\n\t}\n}\n",
		"receipts/receipts.go":      "// Package receipts renders receipts.\npackage receipts\n\n// Line is one receipt line.\nfunc Line(name string, cents int) string { return name }\n",
		"receipts/receipts_test.go": "package receipts\n\nimport \"testing\"\n\nfunc TestLine(t *testing.T) {\n\tif got := Line(\"tea\", 250); got != \"tea\" {\n\t\tt.Errorf(\"Line = %q\", got)\n\t}\n}\n",
	} {
		if err := d.gh.PutFile("acme/shop", "main", path, content); err != nil {
			return err
		}
	}
	d.gh.Protect("acme/shop", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	src, err := d.startControl(demoFS, "demo", "Approve the checkout spec")
	if err != nil {
		return err
	}
	d.person = func(line, message string) error {
		if _, err := exec0(src, "git", "pull", "--quiet", "--", d.control, "main"); err != nil {
			return err
		}
		p := filepath.Join(src, "plans", "checkout-ledger.md")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(strings.TrimRight(string(data), "\n")+"\n"+line+"\n"), 0o644); err != nil {
			return err
		}
		for _, args := range [][]string{{"commit", "--quiet", "-am", message}, {"push", "--quiet", "--", d.control, "HEAD:main"}} {
			if _, err := exec0(src, "git", args...); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// exec0 runs a command as the demo's person, isolated from the machine's
// git configuration.
func exec0(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Dana Person", "GIT_AUTHOR_EMAIL=dana@example.com",
		"GIT_COMMITTER_NAME=Dana Person", "GIT_COMMITTER_EMAIL=dana@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// demoAgent is the scripted agent, playing demoScript.
var demoAgent = func() agent.AgentFunc {
	play := scripted.Agent(demoScript)
	return func(ctx context.Context, dir string, t agent.Task) error { return play(ctx, dir, t.Spec, t.Brief) }
}()

// startControl serves the GitHub stand-in, writes the embedded control
// repository under dir of fsys into <root>/control-src as one approving
// commit with message, and clones it bare into d.control, the remote the
// demo's passes reconcile. It returns the source checkout, where the
// demo's people edit.
func (d *demo) startControl(fsys embed.FS, dir, message string) (string, error) {
	ready := make(chan struct{})
	go func() {
		_ = d.gh.Serve(d.ctx, "127.0.0.1:0", func(string) { close(ready) })
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		return "", fmt.Errorf("the GitHub stand-in did not start")
	}
	src := filepath.Join(d.root, "control-src")
	d.control = filepath.Join(d.root, "control.git")
	if _, err := os.Stat(d.control); err == nil {
		return "", fmt.Errorf("%s already holds a demo; choose an empty --keep directory", d.root)
	}
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := fsys.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(src, strings.TrimPrefix(p, dir+"/"))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{{"init", "--quiet", "--initial-branch=main"}, {"add", "-A"}, {"commit", "--quiet", "-m", message}} {
		if _, err := exec0(src, "git", args...); err != nil {
			return "", err
		}
	}
	if _, err := exec0(d.root, "git", "clone", "--quiet", "--bare", "--", src, d.control); err != nil {
		return "", err
	}
	return src, nil
}

// pass runs pass number n of a demo scenario with a fresh store, as a CI
// job would, prints its transitions and notes in columns of the given
// widths, and returns the control repository as the pass left it.
func (d *demo) pass(n int, o reconcile.Options, specWidth, subjectWidth int) (*reconcile.Snapshot, error) {
	st, err := store.Open(d.ctx, store.Options{Control: "file://" + d.control, CacheDir: filepath.Join(d.root, "cache")})
	if err != nil {
		return nil, err
	}
	o.Store, o.CloneURL, o.MergePoll = st, d.gh.GitURL, 50*time.Millisecond
	rep, err := reconcile.New(o).Pass(d.ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(d.a.io.Out, "== pass %d (control %s)\n", n, shortSHA(rep.Control))
	for _, t := range rep.Transitions {
		fmt.Fprintf(d.a.io.Out, "%-*s %-*s %s\n", specWidth, t.Spec, subjectWidth, t.Subject, t.Sentence)
	}
	for _, nt := range rep.Notes {
		fmt.Fprintf(d.a.io.Out, "%-*s (%s)\n", specWidth, nt.Spec, nt.Message)
	}
	return reconcile.Load(d.ctx, st)
}
