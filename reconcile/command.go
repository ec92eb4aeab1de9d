package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
)

// This file performs the commands people post on an entry's pull request
// (docs/requests.md): each one in the order posted, as one `loop: request`
// control commit pushed before gallivant answers on the pull request, so
// that a pass killed between the two neither loses the command nor
// performs it twice (the next pass finds the commit and owes only the
// answer).

// commandHistory bounds how many of the ledger's commits are searched for
// the commit that performed a comment: an unanswered command is one whose
// answer a crash interrupted, so its commit is among the newest.
const commandHistory = 200

// maxCommands bounds the commands one entry performs or answers in one
// pass; the rest are read again by the next pass.
const maxCommands = 8

// postedCommand is a comment or review whose first line is a command.
type postedCommand struct {
	id     int64
	review bool
	user   string
	body   string
	at     time.Time
}

// commands reads the entry's pull requests for commands and performs
// them: its own, and a coordinated entry's legs' (commandPRs), each a
// request on the whole entry (docs/requests.md).
func (p *passState) commands(ctx context.Context, e *entry) error {
	if p.DryRun || e.leg != nil || e.l == nil || e.l.Phase() == ledger.PhaseDone {
		return nil
	}
	for _, ref := range commandPRs(e.l) {
		pr, err := gatekeep.ParsePR(ref.String(), "")
		if err != nil {
			return err
		}
		if err := p.commandsOn(ctx, e, pr); err != nil {
			return err
		}
	}
	return nil
}

// commandsOn reads one of the entry's pull requests for commands and
// performs them.
func (p *passState) commandsOn(ctx context.Context, e *entry, pr gatekeep.PR) error {
	unchanged, seen := p.commandsSeen(ctx, pr)
	if unchanged {
		return nil
	}
	self, err := p.self(ctx)
	if err != nil {
		return err
	}
	posted, answered, err := p.postedCommands(ctx, pr, self)
	if err != nil {
		return err
	}
	owed, answers := false, 0
	for _, c := range posted {
		if answered[c.id] {
			continue
		}
		if answers == maxCommands {
			owed = true
			p.note(e.specPath, false, "%d commands on %s were answered this pass; the rest wait for the next", maxCommands, pr)
			break
		}
		reply, answer, err := p.command(ctx, e, pr, c, self)
		if err != nil {
			return err
		}
		if answer {
			answers++
			owed = owed || !p.answerCommand(ctx, e, pr, c, reply)
		}
	}
	if !owed {
		seen()
	}
	return nil
}

// command decides one posted command (gatekeep.DecideCommand) and performs
// the decision: nothing, a note for a command from someone who may not
// steer, or the transition, pushed before it is answered. answer reports
// that the command is to be answered with reply.
func (p *passState) command(ctx context.Context, e *entry, pr gatekeep.PR, c postedCommand, self string) (reply string, answer bool, err error) {
	steers, err := p.maySteer(ctx, pr.Repo, c.user)
	if err != nil {
		return "", false, err
	}
	acted := ""
	if steers {
		if acted, err = p.commandActed(e, c.id); err != nil {
			return "", false, err
		}
	}
	from := ledger.CommandOrigin{PR: ledger.PullRef{Repo: pr.Repo, Number: pr.Number}, Login: c.user, CommentID: c.id, URL: p.commentURL(pr, c)}
	a, err := gatekeep.DecideCommand(gatekeep.CommandFacts{Body: c.body, Author: c.user, Self: self, MaySteer: steers, Acted: acted,
		Ledger: e.l, Origin: from, Now: p.clock()})
	if err != nil {
		return "", false, err
	}
	switch a.Step {
	case gatekeep.CommandNone:
		return "", false, nil
	case gatekeep.CommandIgnore:
		p.note(e.specPath, false, "ignored the command in %s %d by @%s on %s: not the reviewer, no write access to %s", kindOf(c), c.id, c.user, pr, pr.Repo)
		return "", false, nil
	case gatekeep.CommandApply:
		if err := p.apply(e, a.Next, a.Commit); err != nil {
			return "", false, err
		}
		// The commit is the record: it reaches the control branch
		// before the answer says it did.
		if err := p.push(ctx); err != nil {
			return "", false, err
		}
	}
	p.reactToCommand(ctx, e, pr, c, a.Step)
	return a.Reply, true, nil
}

// commandsMark is the mark, kept with the quiet marks under the pull
// request's number negated, of the pull request's updated_at when its
// commands were last all read and answered.
type commandsMark struct {
	UpdatedAt time.Time `json:"updated_at"`
}

// commandsSeen reports whether the pull request is unchanged since its
// commands were last read and answered, so that an idle pull request costs
// no reads (its updated_at comes from the pass's one listing, which a new
// comment or review moves). seen records the updated_at this read starts
// from, once every answer landed: a command posted during the read moves
// updated_at past it and is read by the next pass. GitHub counts in whole
// seconds, so a comment posted in the same second as updated_at would not
// move it: nothing is recorded unless that second was over before the
// comments were read.
func (p *passState) commandsSeen(ctx context.Context, pr gatekeep.PR) (unchanged bool, seen func()) {
	seen = func() {}
	o, ok := p.GitHub.(*observer)
	if !ok {
		return false, seen
	}
	prs, err := o.pulls(ctx, pr.Repo)
	if err != nil {
		return false, seen
	}
	live, ok := prs[pr.Number]
	if !ok {
		return false, seen
	}
	if raw, had := o.Mark(pr.Repo, -pr.Number); had {
		var m commandsMark
		if json.Unmarshal(raw, &m) == nil && m.UpdatedAt.Equal(live.UpdatedAt) && !o.touched(pr.Repo, pr.Number) {
			return true, seen
		}
	}
	read := p.clock()
	return false, func() {
		if !read.Truncate(time.Second).After(live.UpdatedAt) {
			return
		}
		if data, err := json.Marshal(commandsMark{UpdatedAt: live.UpdatedAt}); err == nil {
			o.SetMark(pr.Repo, -pr.Number, data)
		}
	}
}

func kindOf(c postedCommand) string {
	if c.review {
		return "review"
	}
	return "comment"
}

// postedCommands lists the pull request's commands in the order posted,
// and the ids gallivant's own comments answer.
func (p *passState) postedCommands(ctx context.Context, pr gatekeep.PR, self string) ([]postedCommand, map[int64]bool, error) {
	cs, err := p.GitHub.IssueComments(ctx, pr.Repo, pr.Number, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	rs, err := p.GitHub.Reviews(ctx, pr.Repo, pr.Number)
	if err != nil {
		return nil, nil, err
	}
	answered := map[int64]bool{}
	var out []postedCommand
	for _, c := range cs {
		if strings.EqualFold(c.User, self) {
			if id, ok := gatekeep.CommandAnswered(c.Body); ok {
				answered[id] = true
			}
			continue
		}
		if gatekeep.IsCommand(c.Body) {
			out = append(out, postedCommand{id: c.ID, user: c.User, body: c.Body, at: c.CreatedAt})
		}
	}
	for _, r := range rs {
		if !strings.EqualFold(r.User, self) && gatekeep.IsCommand(r.Body) {
			out = append(out, postedCommand{id: r.ID, review: true, user: r.User, body: r.Body, at: r.SubmittedAt})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].id < out[j].id
	})
	return out, answered, nil
}

// maySteer reports whether login may steer the entry: the configured
// reviewer, or write access to repo by the permission API, read once per
// login and pass (the cache the review loop's steerers share).
func (p *passState) maySteer(ctx context.Context, repo, login string) (bool, error) {
	if rc := p.cfg.Reviewer; rc != nil && strings.EqualFold(rc.Login, login) {
		return true, nil
	}
	key := repo + " " + strings.ToLower(login)
	if p.perms == nil {
		p.perms = map[string]githubapi.Permission{}
	}
	perm, ok := p.perms[key]
	if !ok {
		var err error
		if perm, err = p.GitHub.Permission(ctx, repo, login); err != nil {
			return false, err
		}
		p.perms[key] = perm
	}
	return perm.Writes(), nil
}

// commandActed returns the subject of the ledger's commit that performed
// comment id, "" when none did.
func (p *passState) commandActed(e *entry, id int64) (string, error) {
	log, err := p.Store.Log(p.ctx, e.ledgerPath, commandHistory)
	if err != nil {
		return "", err
	}
	trailer := "\n" + ledger.TrailerCommentID + ": " + strconv.FormatInt(id, 10) + "\n"
	for _, c := range log {
		if s, err := ledger.ParseSubject(c.Subject); err == nil && s.Kind == ledger.KindRequest && strings.Contains(c.Message+"\n", trailer) {
			return c.Subject, nil
		}
	}
	return "", nil
}

// answerCommand posts gallivant's one answer to a command: its marker
// makes it once, even when the post's response was lost. A failed post is
// noted and owed: the next pass answers it (ok is false).
func (p *passState) answerCommand(ctx context.Context, e *entry, pr gatekeep.PR, c postedCommand, reply string) (ok bool) {
	marker := gatekeep.CommandAnswerMarker(c.id)
	body := fmt.Sprintf("gallivant, to @%s's command (%s %d): %s\n\n%s", c.user, kindOf(c), c.id, reply, marker)
	if _, err := p.GitHub.EnsureComment(ctx, pr.Repo, pr.Number, marker, body); err != nil {
		p.note(e.specPath, true, "the answer to %s %d on %s is owed: %v", kindOf(c), c.id, pr, err)
		return false
	}
	return true
}

// commentURL is the web address of a comment or review on GitHub (or the
// Enterprise server the API URL names), as githubapi.WebURL derives it.
func (p *passState) commentURL(pr gatekeep.PR, c postedCommand) string {
	web := githubapi.WebURL(p.cfg.GitHub.APIURL)
	anchor := "issuecomment-"
	if c.review {
		anchor = "pullrequestreview-"
	}
	return fmt.Sprintf("%s%s/pull/%d#%s%d", web, pr.Repo, pr.Number, anchor, c.id)
}
