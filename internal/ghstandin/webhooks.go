package ghstandin

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Webhooks (issue 30 item 7): a repository's hooks receive GitHub's
// events for what changes in it, signed as GitHub signs them. Events come
// from comparing the repository before and after each request (API or git
// push), so every way a change happens — a handler, a background
// update-branch, a push over HTTP — is announced the same way.

// hookEvents are the events the stand-in delivers. GitHub's "*" means all.
var hookEvents = []string{"push", "pull_request", "pull_request_review", "issue_comment", "check_run", "check_suite", "status"}

// otherEvents are further repository webhook events GitHub accepts in a
// hook's events; the stand-in takes them (a hook asking for them is
// valid) and never delivers them.
var otherEvents = []string{"create", "delete", "deployment", "deployment_status", "fork", "issues", "label", "member",
	"milestone", "pull_request_review_comment", "pull_request_review_thread", "release", "repository", "star", "watch",
	"workflow_dispatch", "workflow_job", "workflow_run"}

// hook is a repository webhook.
type hook struct {
	ID     int64    `json:"id"`
	URL    string   `json:"url"`
	Secret string   `json:"secret,omitempty"`
	Events []string `json:"events"`
	Active bool     `json:"active"`
	// CreatedAt and UpdatedAt are the hook's own times.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// wants reports whether the hook subscribes to event.
func (h *hook) wants(event string) bool {
	return h.Active && (slices.Contains(h.Events, "*") || slices.Contains(h.Events, event))
}

// Delivery is one webhook delivery the server attempted.
type Delivery struct {
	// ID is the X-GitHub-Delivery GUID.
	ID    string
	Hook  int64
	Repo  string
	Event string
	// Action is the payload's action ("" for push and status).
	Action string
	// Status is the receiver's answer, 0 when it could not be reached;
	// Error says why.
	Status int
	Error  string
}

// outgoing is a delivery waiting for its request to be answered first.
type outgoing struct {
	hook    hook
	repo    string
	event   string
	action  string
	payload []byte
}

// hookTimeout is GitHub's: a receiver that has not answered in ten
// seconds fails the delivery.
const hookTimeout = 10 * time.Second

// maxHooks is GitHub's limit of webhooks per event on a repository.
const maxHooks = 20

// CheckHookURL accepts a webhook address the sandbox may deliver to: an
// http or https URL of a loopback host (the sandbox is local; it never
// posts to other machines).
func CheckHookURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q: %v (expected e.g. http://127.0.0.1:9402/hooks/github)", raw, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "":
		return fmt.Errorf("%q: expected an http or https URL, e.g. http://127.0.0.1:9402/hooks/github", raw)
	case u.User != nil:
		return fmt.Errorf("%q: expected no credentials in the URL", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q: the sandbox delivers to loopback addresses only (127.0.0.1, ::1, localhost)", raw)
	}
	return nil
}

// AddHook subscribes url to every event of the repository fullName,
// signed with secret (none when empty), as a repository webhook created
// with content type json. A hook with the same URL is updated instead, so
// a restart with the same flags adds none. It returns the hook's id.
func (s *Server) AddHook(fullName, rawURL, secret string) (int64, error) {
	if err := CheckHookURL(rawURL); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	full, r := s.lookupRepo(fullName)
	if r == nil {
		return 0, fmt.Errorf("no repository %s", fullName)
	}
	now := s.now()
	for _, h := range r.Hooks {
		if h.URL == rawURL {
			h.Secret, h.Events, h.Active, h.UpdatedAt = secret, []string{"*"}, true, now
			return h.ID, s.save()
		}
	}
	h := &hook{ID: s.id(), URL: rawURL, Secret: secret, Events: []string{"*"}, Active: true, CreatedAt: now, UpdatedAt: now}
	r.Hooks = append(r.Hooks, h)
	s.queuePing(full, r, h)
	return h.ID, s.save()
}

func (s *Server) hookRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("GET "+r+"/hooks", s.handle(true, listHooks))
	mux.HandleFunc("POST "+r+"/hooks", s.handle(true, createHook))
	mux.HandleFunc("DELETE "+r+"/hooks/{id}", s.handle(true, deleteHook))
}

// hookJSON is a repository webhook as GitHub renders it: the secret is
// never shown, only that one is set.
func (c *ctx) hookJSON(h *hook) map[string]any {
	api := c.s.url + "/api/v3/repos/" + c.full + "/hooks/" + strconv.FormatInt(h.ID, 10)
	cfg := map[string]any{"url": h.URL, "content_type": "json", "insecure_ssl": "0"}
	if h.Secret != "" {
		cfg["secret"] = "********"
	}
	return map[string]any{"type": "Repository", "id": h.ID, "name": "web", "active": h.Active, "events": h.Events, "config": cfg,
		"updated_at": h.UpdatedAt, "created_at": h.CreatedAt, "url": api, "test_url": api + "/test", "ping_url": api + "/pings",
		"deliveries_url": api + "/deliveries", "last_response": map[string]any{"code": nil, "status": "unused", "message": nil}}
}

// The hooks endpoints need admin rights on the repository, as on GitHub.
func (c *ctx) hookAdmin() bool {
	if c.s.roleOf(c.repo, c.login) != RoleAdmin {
		writeError(c.w, http.StatusNotFound, "Not Found")
		return false
	}
	return true
}

func listHooks(c *ctx) {
	if !c.hookAdmin() {
		return
	}
	out := []map[string]any{}
	for _, h := range c.repo.Hooks {
		out = append(out, c.hookJSON(h))
	}
	paginate(c, out)
}

func createHook(c *ctx) {
	if !c.hookAdmin() {
		return
	}
	var in struct {
		Name   string   `json:"name"`
		Active *bool    `json:"active"`
		Events []string `json:"events"`
		Config struct {
			URL         string `json:"url"`
			ContentType string `json:"content_type"`
			Secret      string `json:"secret"`
		} `json:"config"`
	}
	if !c.decode(&in) {
		return
	}
	switch {
	case in.Name != "" && in.Name != "web":
		c.invalidField("Hook", "name", "invalid", "")
		return
	case in.Config.URL == "":
		c.invalidField("Hook", "url", "missing_field", "")
		return
	case CheckHookURL(in.Config.URL) != nil:
		writeJSON(c.w, 422, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "Hook", "code": "custom",
			"message": CheckHookURL(in.Config.URL).Error()}}, "documentation_url": "https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook"})
		return
	case in.Config.ContentType != "" && in.Config.ContentType != "json":
		// GitHub also sends form-encoded payloads; the stand-in sends
		// JSON only and says so rather than sending the wrong shape.
		c.invalidField("Hook", "content_type", "invalid", "")
		return
	case len(c.repo.Hooks) >= maxHooks:
		c.invalidField("Hook", "hook", "custom", "")
		return
	}
	events := in.Events
	if len(events) == 0 {
		events = []string{"push"} // GitHub's default
	}
	for _, e := range events {
		if e != "*" && !slices.Contains(hookEvents, e) && !slices.Contains(otherEvents, e) {
			writeJSON(c.w, 422, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "Hook", "code": "custom",
				"message": fmt.Sprintf("%q is not a webhook event (the sandbox delivers %s)", e, strings.Join(hookEvents, ", "))}},
				"documentation_url": "https://docs.github.com/rest/repos/webhooks#create-a-repository-webhook"})
			return
		}
	}
	now := c.s.now()
	h := &hook{ID: c.s.id(), URL: in.Config.URL, Secret: in.Config.Secret, Events: events, Active: in.Active == nil || *in.Active, CreatedAt: now, UpdatedAt: now}
	c.repo.Hooks = append(c.repo.Hooks, h)
	c.s.dirty = true
	c.s.queuePing(c.full, c.repo, h)
	j := c.hookJSON(h)
	c.location(j["url"].(string))
	writeJSON(c.w, 201, j)
}

func deleteHook(c *ctx) {
	if !c.hookAdmin() {
		return
	}
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	for i, h := range c.repo.Hooks {
		if h.ID == id {
			c.repo.Hooks = append(c.repo.Hooks[:i:i], c.repo.Hooks[i+1:]...)
			c.s.dirty = true
			c.w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	writeError(c.w, http.StatusNotFound, "Not Found")
}

// queuePing queues GitHub's ping, sent when a hook is created. The caller
// holds s.mu.
func (s *Server) queuePing(full string, r *repo, h *hook) {
	payload := map[string]any{"zen": "Keep it logically awesome.", "hook_id": h.ID,
		"hook": map[string]any{"type": "Repository", "id": h.ID, "name": "web", "active": h.Active, "events": h.Events,
			"config": map[string]any{"url": h.URL, "content_type": "json", "insecure_ssl": "0"}},
		"repository": s.repoJSON(r)}
	s.queue(full, *h, "ping", "", payload)
}

// queue adds a delivery to the outbox. The caller holds s.mu.
func (s *Server) queue(full string, h hook, event, action string, payload map[string]any) {
	b, err := json.Marshal(payload)
	if err != nil {
		return
	}
	s.outbox = append(s.outbox, outgoing{hook: h, repo: full, event: event, action: action, payload: b})
}

// deliver sends the outbox's deliveries, in order, after the request that
// caused them has been answered; a receiver gets hookTimeout to answer.
// A failed delivery is recorded, not retried (GitHub redelivers only on
// request).
func (s *Server) deliver(ctx context.Context) {
	s.mu.Lock()
	out := s.outbox
	s.outbox = nil
	s.mu.Unlock()
	for _, o := range out {
		d := Delivery{ID: deliveryID(), Hook: o.hook.ID, Repo: o.repo, Event: o.event, Action: o.action}
		d.Status, d.Error = post(ctx, o, d.ID)
		s.mu.Lock()
		s.deliveries = append(s.deliveries, d)
		s.mu.Unlock()
	}
}

// post sends one delivery with GitHub's headers and signatures.
func post(ctx context.Context, o outgoing, id string) (int, string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.hook.URL, bytes.NewReader(o.payload))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/standin")
	req.Header.Set("X-GitHub-Event", o.event)
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-GitHub-Hook-ID", strconv.FormatInt(o.hook.ID, 10))
	req.Header.Set("X-GitHub-Hook-Installation-Target-Type", "repository")
	if o.hook.Secret != "" {
		req.Header.Set("X-Hub-Signature-256", "sha256="+Sign256([]byte(o.hook.Secret), o.payload))
		m := hmac.New(sha1.New, []byte(o.hook.Secret))
		m.Write(o.payload)
		req.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(m.Sum(nil)))
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	resp.Body.Close()
	return resp.StatusCode, ""
}

// Sign256 is GitHub's X-Hub-Signature-256 of payload without its "sha256="
// prefix: the hex HMAC-SHA256 with the hook's secret as the key.
func Sign256(secret, payload []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(payload)
	return hex.EncodeToString(m.Sum(nil))
}

// deliveryID is a GUID as GitHub's X-GitHub-Delivery is.
func deliveryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// repoMark is what the events are computed from: the repository as one
// request found it.
type repoMark struct {
	branches  map[string]string
	pulls     map[int]pullMark
	comments  map[int64]time.Time
	reviews   map[int64]string
	statuses  int
	checkRuns map[int64]string
}

type pullMark struct {
	state, head string
	merged      bool
	labels      []string
}

// mark records the repository for the events of the request under way;
// nil when nobody listens. The caller holds s.mu.
func (c *ctx) mark() *repoMark {
	if c.repo == nil || len(c.repo.Hooks) == 0 {
		return nil
	}
	m := &repoMark{pulls: map[int]pullMark{}, comments: map[int64]time.Time{}, reviews: map[int64]string{}, checkRuns: map[int64]string{},
		statuses: len(c.repo.Statuses)}
	m.branches, _ = c.git.branches()
	for _, p := range c.repo.Pulls {
		m.pulls[p.Number] = pullMark{state: p.State, head: p.HeadSHA, merged: p.Merged, labels: slices.Clone(c.repo.Labels[strconv.Itoa(p.Number)])}
	}
	for _, ic := range c.repo.Comments {
		m.comments[ic.ID] = ic.UpdatedAt
	}
	for _, rv := range c.repo.Reviews {
		m.reviews[rv.ID] = rv.State
	}
	for _, cr := range c.repo.CheckRuns {
		m.checkRuns[cr.ID] = cr.Status + "/" + cr.Conclusion
	}
	return m
}

// announce queues the events for what changed since before, sent by the
// request's user. The caller holds s.mu.
func (c *ctx) announce(before *repoMark) {
	if before == nil {
		return
	}
	rj := c.s.repoJSON(c.repo)
	sender := c.s.user(c.login)
	if sender == nil {
		sender = c.s.user(DefaultLogin)
	}
	send := func(event, action string, payload map[string]any) {
		if action != "" {
			payload["action"] = action
		}
		payload["repository"], payload["sender"] = rj, sender
		for _, h := range c.repo.Hooks {
			if h.wants(event) {
				c.s.queue(c.full, *h, event, action, payload)
			}
		}
	}
	after, _ := c.git.branches()
	c.announcePushes(before.branches, after, send)
	c.announcePulls(before, send)
	c.announceComments(before, send)
	c.announceReviews(before, send)
	for _, st := range c.repo.Statuses[min(before.statuses, len(c.repo.Statuses)):] {
		send("status", "", c.statusEvent(st, after))
	}
	c.announceCheckRuns(before, after, send)
}

// sendFunc queues one event with its action ("" for none) to the hooks
// that want it.
type sendFunc func(event, action string, payload map[string]any)

// pullAction is the pull_request action for a pull request that was (seen
// before the request) was and is now p: "" when neither its state nor its
// head changed.
func pullAction(was pullMark, seen bool, p *pull) string {
	switch {
	case !seen:
		return "opened"
	case was.state == "open" && p.State == "closed":
		return "closed"
	case was.state == "closed" && p.State == "open":
		return "reopened"
	case p.State == "open" && was.head != p.HeadSHA:
		return "synchronize"
	}
	return ""
}

// announcePulls queues the pull_request events: opened, closed, reopened,
// synchronize, then labeled and unlabeled per label.
func (c *ctx) announcePulls(before *repoMark, send sendFunc) {
	for _, p := range c.repo.Pulls {
		was, seen := before.pulls[p.Number]
		pj := func() map[string]any { return map[string]any{"number": p.Number, "pull_request": c.pullJSON(p, true)} }
		action := pullAction(was, seen, p)
		switch action {
		case "":
		case "synchronize":
			ev := pj()
			ev["before"], ev["after"] = was.head, p.HeadSHA
			send("pull_request", action, ev)
		default:
			send("pull_request", action, pj())
		}
		if !seen {
			continue
		}
		now := c.repo.Labels[strconv.Itoa(p.Number)]
		label := func(action string, labels, others []string) {
			for _, l := range labels {
				if !slices.Contains(others, l) {
					ev := pj()
					ev["label"] = c.s.labelJSON(c.repo, l)
					send("pull_request", action, ev)
				}
			}
		}
		label("labeled", now, was.labels)
		label("unlabeled", was.labels, now)
	}
}

// announceComments queues an issue_comment event for each comment created
// or edited on a pull request.
func (c *ctx) announceComments(before *repoMark, send sendFunc) {
	for _, ic := range c.repo.Comments {
		at, seen := before.comments[ic.ID]
		if seen && at.Equal(ic.UpdatedAt) {
			continue
		}
		action := "created"
		if seen {
			action = "edited"
		}
		p := c.pull(ic.Number)
		if p == nil {
			continue
		}
		send("issue_comment", action, map[string]any{"issue": c.issueJSON(p), "comment": c.issueCommentJSON(ic)})
	}
}

// reviewAction is the pull_request_review action for a review that was
// (seen before the request) in state was and is now in state: "" for none.
func reviewAction(was string, seen bool, state string) string {
	switch {
	case !seen && state != "PENDING":
		return "submitted"
	case seen && was != state && state == "DISMISSED":
		return "dismissed"
	}
	return ""
}

// announceReviews queues a pull_request_review event for each review
// submitted or dismissed.
func (c *ctx) announceReviews(before *repoMark, send sendFunc) {
	for _, rv := range c.repo.Reviews {
		was, seen := before.reviews[rv.ID]
		action := reviewAction(was, seen, rv.State)
		if p := c.pull(rv.Number); action != "" && p != nil {
			send("pull_request_review", action, map[string]any{"review": c.reviewJSON(rv), "pull_request": c.pullJSON(p, false)})
		}
	}
}

// checkRunAction is the check_run action for a check run that was (seen
// before the request) was as "status/conclusion" and now has status and
// conclusion: "" for none.
func checkRunAction(was string, seen bool, status, conclusion string) string {
	switch {
	case !seen:
		return "created"
	case was != status+"/"+conclusion && status == "completed":
		return "completed"
	}
	return ""
}

// announceCheckRuns queues a check_run event for each check run created
// or completed, and a check_suite completed event once per commit whose
// runs have all completed.
func (c *ctx) announceCheckRuns(before *repoMark, after map[string]string, send sendFunc) {
	suiteDone := map[string]bool{}
	for _, cr := range c.repo.CheckRuns {
		was, seen := before.checkRuns[cr.ID]
		action := checkRunAction(was, seen, cr.Status, cr.Conclusion)
		if action == "" {
			continue
		}
		ev := c.checkRunEvent(cr, after)
		send("check_run", action, map[string]any{"check_run": ev})
		if cr.Status == "completed" && !suiteDone[cr.HeadSHA] && c.suiteCompleted(cr.HeadSHA) {
			suiteDone[cr.HeadSHA] = true
			send("check_suite", "completed", map[string]any{"check_suite": c.checkSuiteEvent(cr.HeadSHA, ev)})
		}
	}
}

// suiteCompleted reports whether every check run on sha has completed:
// the stand-in's one check suite (GitHub Actions') per commit is then
// completed.
func (c *ctx) suiteCompleted(sha string) bool {
	for _, cr := range c.repo.CheckRuns {
		if cr.HeadSHA == sha && cr.Status != "completed" {
			return false
		}
	}
	return true
}

// checkSuiteEvent is the check suite of the check runs on sha, as
// check_suite events carry it: its conclusion is the worst of theirs.
func (c *ctx) checkSuiteEvent(sha string, run checkRunJSON) map[string]any {
	rank := map[string]int{"success": 0, "neutral": 1, "skipped": 1, "stale": 2, "cancelled": 3, "timed_out": 4, "action_required": 5, "failure": 6, "startup_failure": 6}
	conclusion := "success"
	for _, cr := range c.repo.CheckRuns {
		if cr.HeadSHA == sha && rank[cr.Conclusion] > rank[conclusion] {
			conclusion = cr.Conclusion
		}
	}
	return map[string]any{"id": run.CheckSuite["id"], "node_id": "CS_" + sha[:12], "head_branch": run.CheckSuite["head_branch"], "head_sha": sha,
		"status": "completed", "conclusion": conclusion, "url": c.s.url + "/api/v3/repos/" + c.full + "/check-suites/" + sha[:12],
		"pull_requests": run.PullRequests, "app": c.s.actionsApp(), "created_at": run.StartedAt, "updated_at": run.CompletedAt,
		"latest_check_runs_count": 0, "check_runs_url": c.s.url + "/api/v3/repos/" + c.full + "/commits/" + sha + "/check-runs"}
}

// announcePushes queues a push event for each branch that moved, was
// created or was deleted.
func (c *ctx) announcePushes(before, after map[string]string, send sendFunc) {
	const zero = "0000000000000000000000000000000000000000"
	names := map[string]bool{}
	for b := range before {
		names[b] = true
	}
	for b := range after {
		names[b] = true
	}
	sorted := make([]string, 0, len(names))
	for b := range names {
		sorted = append(sorted, b)
	}
	slices.Sort(sorted)
	for _, b := range sorted {
		old, now := before[b], after[b]
		if old == now {
			continue
		}
		ev := map[string]any{"ref": "refs/heads/" + b, "before": zero, "after": zero, "created": old == "", "deleted": now == "",
			"forced": old != "" && now != "" && !c.git.isAncestor(old, now), "base_ref": nil,
			"compare": c.s.url + "/" + c.full + "/compare/" + short12(old) + "..." + short12(now),
			"commits": []any{}, "head_commit": nil, "pusher": map[string]any{"name": c.login, "email": nil}}
		if old != "" {
			ev["before"] = old
		}
		if now != "" {
			ev["after"] = now
			var commits []commitInfo
			if old != "" {
				commits, _ = c.git.commitsBetween(old, now)
			} else if ci, err := c.git.commit(now); err == nil {
				commits = []commitInfo{ci}
			}
			list := []any{}
			for _, ci := range commits {
				list = append(list, c.pushCommit(ci))
			}
			ev["commits"] = list
			if ci, err := c.git.commit(now); err == nil {
				ev["head_commit"] = c.pushCommit(ci)
			}
		}
		send("push", "", ev)
	}
}

func short12(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// pushCommit is a commit as a push event lists it.
func (c *ctx) pushCommit(ci commitInfo) map[string]any {
	return map[string]any{"id": ci.SHA, "tree_id": ci.Tree, "distinct": true, "message": strings.TrimRight(ci.Message, "\n"),
		"timestamp": ci.CommitterDate, "url": c.s.url + "/" + c.full + "/commit/" + ci.SHA,
		"author":    map[string]any{"name": ci.AuthorName, "email": ci.AuthorEmail},
		"committer": map[string]any{"name": ci.CommitterName, "email": ci.CommitterEmail},
		"added":     []string{}, "removed": []string{}, "modified": []string{}}
}

// pull is the pull request numbered n, nil when there is none.
func (c *ctx) pull(n int) *pull {
	for _, p := range c.repo.Pulls {
		if p.Number == n {
			return p
		}
	}
	return nil
}

// issueJSON is a pull request seen as an issue, as issue_comment events
// carry it: pull_request is set, which is how a receiver tells it from an
// issue.
func (c *ctx) issueJSON(p *pull) map[string]any {
	api := c.s.url + "/api/v3/repos/" + c.full
	num := strconv.Itoa(p.Number)
	html := c.s.url + "/" + c.full + "/pull/" + num
	state := p.State
	return map[string]any{"id": p.ID, "node_id": "I_" + strconv.FormatInt(p.ID, 10), "number": p.Number, "title": p.Title, "body": p.Body,
		"state": state, "locked": false, "user": c.s.user(p.User), "labels": c.labelsOf(p.Number), "comments": c.commentCount(p.Number),
		"created_at": p.CreatedAt, "updated_at": p.UpdatedAt, "closed_at": p.ClosedAt, "author_association": "MEMBER",
		"url": api + "/issues/" + num, "html_url": html, "repository_url": api,
		"pull_request": map[string]any{"url": api + "/pulls/" + num, "html_url": html, "diff_url": html + ".diff", "patch_url": html + ".patch", "merged_at": p.MergedAt}}
}

func (c *ctx) commentCount(n int) int {
	k := 0
	for _, ic := range c.repo.Comments {
		if ic.Number == n {
			k++
		}
	}
	return k
}

// statusEvent is a status event's payload: the status and the branches
// whose head is its commit.
func (c *ctx) statusEvent(st *commitStatus, branches map[string]string) map[string]any {
	j := c.statusJSON(st)
	var bs []map[string]any
	for _, b := range sortedKeys(branches) {
		if branches[b] == st.SHA {
			bs = append(bs, map[string]any{"name": b, "commit": map[string]any{"sha": st.SHA, "url": c.s.url + "/api/v3/repos/" + c.full + "/commits/" + st.SHA}, "protected": c.repo.Protection[b] != nil})
		}
	}
	if bs == nil {
		bs = []map[string]any{}
	}
	return map[string]any{"id": j.ID, "sha": st.SHA, "name": c.full, "target_url": j.TargetURL, "context": st.Context, "description": j.Description,
		"state": st.State, "commit": map[string]any{"sha": st.SHA, "url": c.s.url + "/api/v3/repos/" + c.full + "/commits/" + st.SHA},
		"branches": bs, "created_at": st.CreatedAt, "updated_at": st.CreatedAt}
}

// checkRunEvent is a check run as check_run events carry it: with the
// open pull requests whose head is its commit, and its suite's head
// branch.
func (c *ctx) checkRunEvent(cr *checkRun, branches map[string]string) checkRunJSON {
	j := c.checkRunJSON(cr)
	head := ""
	for _, b := range sortedKeys(branches) {
		if branches[b] == cr.HeadSHA {
			head = b
			break
		}
	}
	var prs []any
	for _, p := range c.repo.Pulls {
		if p.State == "open" && p.HeadSHA == cr.HeadSHA {
			head = p.Head
			api := c.s.url + "/api/v3/repos/" + c.full
			rj := map[string]any{"id": c.repo.ID, "url": api, "name": c.repo.Name}
			prs = append(prs, map[string]any{"id": p.ID, "number": p.Number, "url": api + "/pulls/" + strconv.Itoa(p.Number),
				"head": map[string]any{"ref": p.Head, "sha": p.HeadSHA, "repo": rj}, "base": map[string]any{"ref": p.Base, "sha": p.BaseSHA, "repo": rj}})
		}
	}
	if prs == nil {
		prs = []any{}
	}
	j.PullRequests = prs
	j.CheckSuite = map[string]any{"id": cr.ID, "head_branch": head, "head_sha": cr.HeadSHA}
	return j
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
