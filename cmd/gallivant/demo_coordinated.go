package main

import (
	"context"
	"embed"
	"fmt"
	"io"
	"log/slog"
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
)

// The coordinated demo: one spec with two legs, acme/api and acme/web,
// delivered as one pull request per leg, judged together and done together
// (docs/delivery.md).

//go:embed all:democoord
var demoCoordFS embed.FS

// demoLegs are the coordinated demo's target repositories, each a small Go
// module so that the legs' verification (`go test ./...`) really runs.
var demoLegs = []string{"acme/api", "acme/web"}

func (d *demo) runCoordinated() error {
	if err := d.setupCoordinated(); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	gh, err := githubapi.New(githubapi.Options{APIURL: d.gh.APIURL(), Token: d.gh.MainToken(), Logger: log})
	if err != nil {
		return err
	}
	people := &coordPeople{ci: d.gh.Client("ci-bot"), rita: d.gh.Client("rita"), dana: d.gh.Client("dana"), failed: map[string]bool{}}
	play := scripted.Agent(func(string, int, string) scripted.Behavior { return scripted.Done })
	exec := agent.CommandExecutor{Timeout: 10 * time.Minute, WorkDir: filepath.Join(d.root, "work"), Token: d.gh.MainToken(),
		Agent: func(ctx context.Context, dir string, t agent.Task) error { return play(ctx, dir, t.Spec, t.Brief) }}
	fmt.Fprintf(d.a.io.Out, "gallivant demo --coordinated: one spec, two legs (acme/api and acme/web), one pull request per leg, labelled ready together and done when both are merged; words like leg, row, seed: %s\n", glossary)
	fmt.Fprintln(d.a.io.Out, "legend: \"== pass N\" is one reconcile pass; each line under it is one loop: commit (spec, commit subject, what happened); other \"==\" lines are people acting between passes")
	for pass := 1; pass <= 30; pass++ {
		snap, err := d.pass(pass, reconcile.Options{GitHub: gh, Executor: exec, Log: log, ControlRepo: "acme/audit-control"}, 15, 34)
		if err != nil {
			return err
		}
		l := snap.Repo.Ledgers["specs/audit.md"]
		if l == nil {
			return fmt.Errorf("the demo spec was not seeded")
		}
		if reason, detail, stopped := l.Stop(); stopped {
			return fmt.Errorf("the demo stopped unexpectedly (%s: %s)", reason, detail)
		}
		if l.Phase() == ledger.PhaseDone {
			break
		}
		said, err := people.act(d.ctx)
		if err != nil {
			return err
		}
		for _, line := range said {
			fmt.Fprintf(d.a.io.Out, "== %s\n", line)
		}
	}
	fmt.Fprintln(d.a.io.Out, "== gallivant status")
	snapStore, err := store.Open(d.ctx, store.Options{Control: "file://" + d.control, CacheDir: filepath.Join(d.root, "cache")})
	if err != nil {
		return err
	}
	snap, err := reconcile.Load(d.ctx, snapStore)
	if err != nil {
		return err
	}
	d.a.printStatus(snap.Status("specs/audit.md"))
	fmt.Fprintln(d.a.io.Out, "== git log --oneline (control repository)")
	out, err := exec0(d.control, "git", "log", "--oneline", "main", "--")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(d.a.io.Out, out); err != nil {
		return err
	}
	fmt.Fprintln(d.a.io.Out, "== what to do next")
	fmt.Fprintf(d.a.io.Out, "coordinated delivery is described in docs/delivery.md (%sdelivery.md#coordinated-specs-one-pull-request-per-leg)\n", docsURL)
	return nil
}

// coordPeople plays everyone around the two legs: CI reports a status on
// each new head (the first head of acme/web fails once, so one leg gets a
// fix round while the other waits for it), Rita approves each head, and
// Dana merges what is labelled ready.
type coordPeople struct {
	ci, rita, dana *github.Client
	failed         map[string]bool
}

func (p *coordPeople) act(ctx context.Context) ([]string, error) {
	var said []string
	for _, full := range demoLegs {
		owner, name, _ := strings.Cut(full, "/")
		prs, _, err := p.dana.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: "open"})
		if err != nil {
			return nil, err
		}
		for _, pr := range prs {
			n, head := pr.GetNumber(), pr.GetHead().GetSHA()
			st, _, err := p.ci.Repositories.GetCombinedStatus(ctx, owner, name, head, nil)
			if err != nil {
				return nil, err
			}
			if len(st.Statuses) == 0 {
				state := "success"
				if full == "acme/web" && !p.failed[full] {
					state, p.failed[full] = "failure", true
				}
				if _, _, err := p.ci.Repositories.CreateStatus(ctx, owner, name, head, &github.RepoStatus{State: github.String(state), Context: github.String("ci")}); err != nil {
					return nil, err
				}
				said = append(said, fmt.Sprintf("CI reports ci %s on %s#%d at %s", state, full, n, shortSHA(head)))
				continue
			}
			labelled := false
			for _, l := range pr.Labels {
				labelled = labelled || l.GetName() == "ready-for-human"
			}
			if labelled {
				if _, _, err := p.dana.PullRequests.Merge(ctx, owner, name, n, "", nil); err != nil {
					return nil, err
				}
				said = append(said, fmt.Sprintf("Dana merges %s#%d", full, n))
				continue
			}
			reviews, _, err := p.rita.PullRequests.ListReviews(ctx, owner, name, n, nil)
			if err != nil {
				return nil, err
			}
			onHead := false
			for _, r := range reviews {
				onHead = onHead || r.GetCommitID() == head
			}
			if onHead || st.GetState() != "success" {
				continue
			}
			req := &github.PullRequestReviewRequest{Event: github.String("APPROVE"), CommitID: github.String(head)}
			if _, _, err := p.rita.PullRequests.CreateReview(ctx, owner, name, n, req); err != nil {
				return nil, err
			}
			said = append(said, fmt.Sprintf("Rita approves %s#%d at %s", full, n, shortSHA(head)))
		}
	}
	return said, nil
}

// setupCoordinated creates the control repository from the embedded
// coordinated example and the GitHub stand-in with both target
// repositories, each a small Go module that requires the ci status.
func (d *demo) setupCoordinated() error {
	var err error
	d.gh, err = ghstandin.New(ghstandin.Options{Dir: filepath.Join(d.root, "github")})
	if err != nil {
		return err
	}
	for _, full := range demoLegs {
		if err := d.gh.CreateRepo(full, "main"); err != nil {
			return err
		}
		pkg := strings.TrimPrefix(full, "acme/")
		for path, content := range map[string]string{
			"go.mod":              "module example.com/" + pkg + "\n\ngo 1.22\n",
			"audit/audit.go":      "// Package audit records admin changes.\npackage audit\n\n// Event is one admin change.\ntype Event struct{ Who, What string }\n",
			"audit/audit_test.go": "package audit\n\nimport \"testing\"\n\nfunc TestEvent(t *testing.T) {\n\tif (Event{Who: \"ada\"}).Who != \"ada\" {\n\t\tt.Error(\"who\")\n\t}\n}\n",
			"schema/README.md":    "The audit event schema both legs read.\n",
		} {
			if err := d.gh.PutFile(full, "main", path, content); err != nil {
				return err
			}
		}
		d.gh.Protect(full, "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	}
	_, err = d.startControl(demoCoordFS, "democoord", "Approve the audit log spec")
	return err
}
