package daemon

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v66/github"
)

// Webhook delivery outcomes, the values of
// gallivant_webhook_deliveries_total's outcome label.
const (
	WebhookTriggered    = "triggered"    // valid, about gallivant's work: a pass was asked for
	WebhookIgnored      = "ignored"      // valid, but about something gallivant does not own, or an event it does not read
	WebhookUnauthorized = "unauthorized" // missing or wrong X-Hub-Signature-256 (a SHA-1 X-Hub-Signature alone is refused)
	WebhookStranger     = "stranger"     // valid, about gallivant's work, but from a login that may not steer: no pass
	WebhookMalformed    = "malformed"    // signed, but the payload does not parse as its event
	WebhookDisabled     = "disabled"     // no secret is configured
)

// maxPayload is GitHub's own cap on a webhook payload.
const maxPayload = 25 << 20

// hook receives a GitHub webhook delivery. The signature is checked
// before anything else is read from the payload; a valid delivery about
// gallivant's work kicks the trigger and is answered 202 at once, so
// GitHub's ten-second delivery timeout never waits on a pass.
func (s *server) hook(w http.ResponseWriter, r *http.Request) {
	delivery := github.DeliveryID(r)
	event := github.WebHookType(r)
	if len(s.Secret) == 0 {
		s.Metrics.ObserveWebhook(WebhookDisabled)
		http.Error(w, "webhooks are off: the daemon has no webhook secret (GALLIVANT_WEBHOOK_SECRET)", http.StatusNotFound)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPayload)
	if r.Header.Get(github.SHA256SignatureHeader) == "" {
		// go-github falls back to the SHA-1 X-Hub-Signature, which GitHub
		// keeps only for compatibility: refused.
		s.Metrics.ObserveWebhook(WebhookUnauthorized)
		s.Log.Warn("webhook refused", "delivery", delivery, "event", event, "reason", "signature", "error", "no X-Hub-Signature-256 (a SHA-1 X-Hub-Signature alone is not accepted)")
		http.Error(w, "signature missing: X-Hub-Signature-256 is required", http.StatusUnauthorized)
		return
	}
	payload, err := github.ValidatePayload(r, s.Secret)
	if err != nil {
		s.Metrics.ObserveWebhook(WebhookUnauthorized)
		s.Log.Warn("webhook refused", "delivery", delivery, "event", event, "reason", "signature", "error", err.Error())
		http.Error(w, "signature missing or invalid", http.StatusUnauthorized)
		return
	}
	ev, err := github.ParseWebHook(event, payload)
	if err != nil {
		if strings.HasPrefix(err.Error(), "unknown X-Github-Event") {
			s.Metrics.ObserveWebhook(WebhookIgnored)
			s.Log.Info("webhook ignored", "delivery", delivery, "event", event, "reason", "event not read")
			w.WriteHeader(http.StatusAccepted)
			return
		}
		s.Metrics.ObserveWebhook(WebhookMalformed)
		s.Log.Warn("webhook refused", "delivery", delivery, "event", event, "reason", "payload", "error", err.Error())
		http.Error(w, "payload does not parse", http.StatusBadRequest)
		return
	}
	if why := s.relevant(ev); why != "" {
		if repo, login := steerer(ev); login != "" && !s.maySteer(r.Context(), repo, login) {
			s.Metrics.ObserveWebhook(WebhookStranger)
			s.Log.Info("webhook ignored", "delivery", delivery, "event", event, "about", why, "reason", "from a login that may not steer", "login", login)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		s.Metrics.ObserveWebhook(WebhookTriggered)
		s.Log.Info("webhook triggers a pass", "delivery", delivery, "event", event, "about", why)
		if repo := repoOf(ev); repo != "" && s.Changed != nil {
			s.Changed(repo)
		}
		s.Kick()
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte("pass scheduled\n"))
		return
	}
	s.Metrics.ObserveWebhook(WebhookIgnored)
	s.Log.Info("webhook ignored", "delivery", delivery, "event", event, "reason", "not gallivant's")
	w.WriteHeader(http.StatusAccepted)
}

// relevant says what a delivery is about when it concerns gallivant's
// work ("" when not): a push to the control branch or to a work branch,
// or an event on a pull request or work branch of an entry. Before the
// first view exists every pull request event counts, since nothing is
// known yet about what gallivant owns.
func (s *server) relevant(ev any) string {
	r := relevance{v: s.State.View(), control: s.ControlRepo}
	switch e := ev.(type) {
	case *github.PushEvent:
		return r.push(e)
	case *github.PullRequestEvent:
		return r.pr(e.GetRepo(), e.GetNumber())
	case *github.PullRequestReviewEvent:
		return r.pr(e.GetRepo(), e.GetPullRequest().GetNumber())
	case *github.PullRequestReviewCommentEvent:
		return r.pr(e.GetRepo(), e.GetPullRequest().GetNumber())
	case *github.PullRequestReviewThreadEvent:
		return r.pr(e.GetRepo(), e.GetPullRequest().GetNumber())
	case *github.IssueCommentEvent:
		if e.GetIssue().IsPullRequest() {
			return r.pr(e.GetRepo(), e.GetIssue().GetNumber())
		}
	case *github.CheckRunEvent:
		return r.checks(e.GetRepo(), e.GetCheckRun().PullRequests, e.GetCheckRun().GetCheckSuite().GetHeadBranch())
	case *github.CheckSuiteEvent:
		return r.checks(e.GetRepo(), e.GetCheckSuite().PullRequests, e.GetCheckSuite().GetHeadBranch())
	case *github.StatusEvent:
		for _, b := range e.Branches {
			if why := r.branch(e.GetRepo().GetFullName(), b.GetName()); why != "" {
				return why
			}
		}
	case *github.WorkflowRunEvent:
		return r.branch(e.GetRepo().GetFullName(), e.GetWorkflowRun().GetHeadBranch())
	}
	return ""
}

// relevance answers relevant against one view of what gallivant owns (nil
// before the first) and the control repository.
type relevance struct {
	v       *View
	control string
}

// pr is the pull request n of repo when gallivant owns it (or nothing is
// known yet), "" otherwise.
func (r relevance) pr(repo *github.Repository, n int) string {
	if r.v == nil || r.v.OwnsPR(repo.GetFullName(), n) {
		return repo.GetFullName() + "#" + itoa(n)
	}
	return ""
}

// branch is the branch b of repo (owner/name) when it is a work branch of
// an entry, "" otherwise.
func (r relevance) branch(repo, b string) string {
	if r.v != nil && r.v.OwnsBranch(repo, b) {
		return repo + " " + b
	}
	return ""
}

// push is what a push is about: the control branch (of the control
// repository, when it is known and on GitHub), or a work branch.
func (r relevance) push(e *github.PushEvent) string {
	b := strings.TrimPrefix(e.GetRef(), "refs/heads/")
	repo := e.GetRepo().GetFullName()
	if r.v == nil || b == r.v.ControlBranch {
		if r.control == "" || strings.HasPrefix(r.control, "local/") || strings.EqualFold(repo, r.control) {
			return "control branch " + b
		}
	}
	return r.branch(repo, b)
}

// checks is what a check run or suite is about: the first of its pull
// requests gallivant owns, else its head branch.
func (r relevance) checks(repo *github.Repository, pulls []*github.PullRequest, head string) string {
	for _, p := range pulls {
		if why := r.pr(repo, p.GetNumber()); why != "" {
			return why
		}
	}
	return r.branch(repo.GetFullName(), head)
}

// repoOf is the repository (owner/name) a delivery is about, "" when it
// names none.
func repoOf(ev any) string {
	switch e := ev.(type) {
	case *github.PushEvent:
		return e.GetRepo().GetFullName()
	case interface{ GetRepo() *github.Repository }:
		return e.GetRepo().GetFullName()
	}
	return ""
}

// steerer is the repository and the login of a delivery that only a
// person who may steer can make count: a comment, a review, a review
// comment or thread. Other deliveries ("" login) are GitHub's own news
// (pushes, checks, pull request state) and trigger a pass as they are.
func steerer(ev any) (repo, login string) {
	switch e := ev.(type) {
	case *github.IssueCommentEvent:
		return e.GetRepo().GetFullName(), e.GetSender().GetLogin()
	case *github.PullRequestReviewEvent:
		return e.GetRepo().GetFullName(), e.GetSender().GetLogin()
	case *github.PullRequestReviewCommentEvent:
		return e.GetRepo().GetFullName(), e.GetSender().GetLogin()
	case *github.PullRequestReviewThreadEvent:
		return e.GetRepo().GetFullName(), e.GetSender().GetLogin()
	}
	return "", ""
}

// steerTTL is how long an answer of MaySteer is kept: a stranger's
// comments cost one permission request per login and repository, not one
// per delivery.
const steerTTL = 10 * time.Minute

// steerCache keeps MaySteer's answers for steerTTL.
type steerCache struct {
	mu      sync.Mutex
	answers map[string]steerAnswer
}

type steerAnswer struct {
	may bool
	at  time.Time
}

// maySteer asks HandlerOptions.MaySteer, through the cache; with no MaySteer
// every login may. An error of the lookup counts as may-not: a pass is
// only put off to the next tick.
func (s *server) maySteer(ctx context.Context, repo, login string) bool {
	if s.MaySteer == nil {
		return true
	}
	key := strings.ToLower(repo + "\x00" + login)
	now := s.Now()
	s.steer.mu.Lock()
	a, ok := s.steer.answers[key]
	s.steer.mu.Unlock()
	if ok && now.Sub(a.at) < steerTTL {
		return a.may
	}
	may, err := s.MaySteer(ctx, repo, login)
	if err != nil {
		s.Log.Warn("webhook sender's permission unknown", "repo", repo, "login", login, "error", err.Error())
		return false
	}
	s.steer.mu.Lock()
	if s.steer.answers == nil {
		s.steer.answers = map[string]steerAnswer{}
	}
	if len(s.steer.answers) > 10000 {
		clear(s.steer.answers)
	}
	s.steer.answers[key] = steerAnswer{may: may, at: now}
	s.steer.mu.Unlock()
	return may
}
