package reconcile

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// This file keeps the dashboard issue (docs/requests.md): with
// dashboard_issue: true, one issue in the control repository that each
// pass finds by its marker at its start (or opens once, at its end), whose
// ticked boxes it performs before the entries' steps as pull-request
// commands are performed — through gatekeep.DecideCommand and
// ledger.ApplyCommand, one `loop: request` control commit each, pushed
// before the box is cleared — and whose body it rewrites at its end only
// when what it says changed. A pass killed between the commit and the body write finds
// the commit by the box's id (Gallivant-Box) and only clears the box.

// dashState is what a pass read of the dashboard issue and decided of
// its ticked boxes, for the body it writes at its end.
type dashState struct {
	repo    string
	issue   githubapi.Issue
	found   bool
	boxes   []gatekeep.DashboardBox
	results map[int64]string
}

// dashboardRead reads the dashboard issue at the start of a pass and
// performs its ticked boxes, so that the entries' steps in the same pass
// see the requests; nil when no dashboard is kept.
func (p *passState) dashboardRead(ctx context.Context, entries []*entry) (*dashState, error) {
	if !p.cfg.DashboardIssue || p.DryRun {
		return nil, nil
	}
	repo := p.ControlRepo
	if !specs.ValidRepo(repo) || strings.HasPrefix(repo, "local/") {
		p.note(specs.ConfigFile, true, "dashboard_issue is on but the control repository is not on GitHub (%q); no dashboard issue is kept", repo)
		return nil, nil
	}
	if p.Shard != (Shard{}) {
		p.note(specs.ConfigFile, false, "dashboard_issue is kept by an unsharded pass; shard %s leaves it alone", p.Shard)
		return nil, nil
	}
	self, err := p.self(ctx)
	if err != nil {
		return nil, err
	}
	d := &dashState{repo: repo}
	if d.issue, d.found, err = p.GitHub.FindIssue(ctx, repo, self, gatekeep.DashboardMarker); err != nil || !d.found {
		return d, err
	}
	d.boxes = gatekeep.ParseDashboard(d.issue.Body)
	d.results, err = p.dashboardTicks(ctx, entries, repo, d.issue.Number, d.issue.HTMLURL, self, d.boxes)
	return d, err
}

// dashboardWrite writes the dashboard's body at the end of a pass, from
// the entries' state then: it opens the issue the first time, and edits
// it only when the body changed.
func (p *passState) dashboardWrite(ctx context.Context, d *dashState, entries []*entry) error {
	next := p.clock().UnixMilli()
	for _, b := range d.boxes {
		next = max(next, b.ID)
	}
	newID := func() int64 { next++; return next }
	last := map[string]string{}
	for _, e := range entries {
		if e.leg == nil && e.l != nil {
			w, err := p.lastRequestWords(e)
			if err != nil {
				return err
			}
			last[e.specPath] = w
		}
	}
	body := gatekeep.RenderDashboard(gatekeep.DashboardRender{Entries: dashboardEntries(entries, last), Previous: d.boxes, Results: d.results, NewID: newID})
	if !d.found {
		is, err := p.GitHub.CreateIssue(ctx, d.repo, gatekeep.DashboardTitle, body)
		if err != nil {
			return err
		}
		p.note(specs.ConfigFile, false, "opened the dashboard issue %s#%d", d.repo, is.Number)
		return nil
	}
	if body == d.issue.Body {
		return nil
	}
	if err := p.crash("dashboard:write"); err != nil {
		return err
	}
	return p.GitHub.EditIssueBody(ctx, d.repo, d.issue.Number, body)
}

// dashboardTicks performs the ticked boxes, at most maxCommands a pass,
// and returns the result to write beside each one it decided.
func (p *passState) dashboardTicks(ctx context.Context, entries []*entry, repo string, number int, url, self string, boxes []gatekeep.DashboardBox) (map[int64]string, error) {
	results := map[int64]string{}
	var edits []gatekeep.BodyEdit
	// comments are the issue's, read once, when a box a person may tick
	// lacks a hint of its own (gatekeep.DashboardHint).
	var comments []gatekeep.DashboardComment
	read := false
	byspec := map[string]*entry{}
	for _, e := range entries {
		if e.leg == nil {
			byspec[e.specPath] = e
		}
	}
	for _, b := range boxes {
		if !b.Ticked {
			continue
		}
		if len(results) == maxCommands {
			p.note(specs.ConfigFile, false, "%d boxes of the dashboard issue were decided this pass; the rest wait for the next", maxCommands)
			break
		}
		if !read {
			es, err := p.GitHub.IssueEdits(ctx, repo, number)
			if err != nil {
				return nil, err
			}
			for _, e := range es {
				edits = append(edits, gatekeep.BodyEdit{Editor: e.Editor, Body: e.Body})
			}
			read = true
		}
		e := byspec[b.Spec]
		if e == nil || e.l == nil {
			results[b.ID] = fmt.Sprintf("not performed: %s has no ledger", gatekeep.CodeSpan(b.Spec))
			continue
		}
		editor := gatekeep.DashboardTicker(edits, b.ID)
		steers, acted := false, ""
		if editor != "" {
			var err error
			if steers, err = p.maySteer(ctx, repo, editor); err != nil {
				return nil, err
			}
		}
		if steers {
			var err error
			if acted, err = p.boxActed(e, b.ID); err != nil {
				return nil, err
			}
		}
		if steers && acted == "" && b.Hint == "" {
			if comments == nil {
				var err error
				if comments, err = p.dashboardComments(ctx, repo, number); err != nil {
					return nil, err
				}
			}
			b.Hint = gatekeep.DashboardHint(b, editor, comments)
		}
		from := ledger.CommandOrigin{PR: ledger.PullRef{Repo: repo, Number: number}, Login: editor, CommentID: b.ID, URL: url, Dashboard: true}
		a, err := gatekeep.DecideCommand(gatekeep.CommandFacts{Body: gatekeep.DashboardCommand(b), Author: editor, Self: self, MaySteer: steers, Acted: acted,
			Ledger: e.l, Origin: from, Now: p.clock()})
		if err != nil {
			return nil, err
		}
		who := gatekeep.CodeSpan("@" + editor)
		switch a.Step {
		case gatekeep.CommandNone:
			results[b.ID] = ""
		case gatekeep.CommandIgnore:
			if editor == "" {
				results[b.ID] = "not performed: the issue's history does not say who ticked it; reset"
			} else {
				results[b.ID] = fmt.Sprintf("not performed: ticked by %s, who may not steer; reset", who)
			}
			p.note(e.specPath, false, "ignored the box %d of the dashboard issue %s#%d: %s", b.ID, repo, number, results[b.ID])
		case gatekeep.CommandApply:
			if err := p.apply(e, a.Next, a.Commit); err != nil {
				return nil, err
			}
			// The commit is the record: it reaches the control branch
			// before the box is cleared.
			if err := p.push(ctx); err != nil {
				return nil, err
			}
			results[b.ID] = fmt.Sprintf("done for %s: %s", who, gatekeep.CodeSpan(a.Commit.Subject))
		case gatekeep.CommandAnswer:
			results[b.ID] = fmt.Sprintf("done for %s: %s", who, gatekeep.CodeSpan(acted))
		case gatekeep.CommandRefuse:
			// The reply may name logins: quoted, it mentions nobody.
			results[b.ID] = fmt.Sprintf("%s: %s", who, gatekeep.CodeSpan(a.Reply))
		}
	}
	return results, nil
}

// boxActed returns the subject of the ledger's commit that performed box
// id, "" when none did.
func (p *passState) boxActed(e *entry, id int64) (string, error) {
	log, err := p.Store.Log(p.ctx, e.ledgerPath, commandHistory)
	if err != nil {
		return "", err
	}
	trailer := "\n" + ledger.TrailerBox + ": " + strconv.FormatInt(id, 10) + "\n"
	for _, c := range log {
		if s, err := ledger.ParseSubject(c.Subject); err == nil && s.Kind == ledger.KindRequest && strings.Contains(c.Message+"\n", trailer) {
			return c.Subject, nil
		}
	}
	return "", nil
}

// dashboardEntries is what the dashboard says of each entry; last holds
// each one's last request performed, in words, by spec path.
func dashboardEntries(entries []*entry, last map[string]string) []gatekeep.DashboardEntry {
	var out []gatekeep.DashboardEntry
	for _, e := range entries {
		if e.leg != nil {
			continue
		}
		d := gatekeep.DashboardEntry{Spec: e.specPath, Phase: "not seeded", Status: "not seeded"}
		if l := e.l; l != nil {
			d.Phase = string(l.Phase())
			done := 0
			for _, r := range l.Rows {
				if r.Status == ledger.Done {
					done++
				}
			}
			d.Status = fmt.Sprintf("rows: %d of %d done", done, len(l.Rows))
			if l.Delivery != nil {
				if pr := l.Delivery.PRText(); pr != "" {
					d.Status += ", " + pr
				}
				if !l.Delivery.Stop.IsZero() {
					d.Stop = l.Delivery.Stop.String()
				}
				if pz := l.Delivery.Paused; !pz.IsZero() {
					d.Paused = fmt.Sprintf("paused by @%s from %s", pz.Login, pz.PR)
				}
			}
			d.Offers = gatekeep.DashboardOffers(l)
			d.LastRequest = last[e.specPath]
			if l.Delivery != nil {
				if ls := lessonsStatus(l); ls != nil {
					d.Lessons = ls.Words
				}
			}
		}
		out = append(out, d)
	}
	return out
}
