package ghstandin

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file serves a repository's issues as GitHub documents them
// (issues/create, issues/get, issues/update, issues/list-for-repo). Issues
// and pull requests share one sequence of numbers, and the listing holds
// both, a pull request with its pull_request links, as GitHub's does.
// Anyone who can read the repository opens an issue; its body and title
// are edited by their author or by a writer, and anyone else's edit is
// GitHub's 403. Each change of a body is kept as a content edit, the
// history GraphQL serves as userContentEdits (graphql_issues.go): who
// edited, when, and the body it left.

// issue is an issue that is not a pull request.
type issue struct {
	ID          int64        `json:"id"`
	Number      int          `json:"number"`
	Title       string       `json:"title"`
	Body        string       `json:"body"`
	User        string       `json:"user"`
	State       string       `json:"state"`
	StateReason string       `json:"state_reason,omitempty"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
	ClosedAt    *time.Time   `json:"closed_at,omitempty"`
	ClosedBy    string       `json:"closed_by,omitempty"`
	Edits       []*issueEdit `json:"edits,omitempty"`
}

// issueEdit is one version of an issue's body: GitHub records the first
// version too, once the body is edited.
type issueEdit struct {
	ID       int64     `json:"id"`
	Editor   string    `json:"editor"`
	EditedAt time.Time `json:"edited_at"`
	Body     string    `json:"body"`
}

type issuePullJSON struct {
	URL      string     `json:"url"`
	HTMLURL  string     `json:"html_url"`
	DiffURL  string     `json:"diff_url"`
	PatchURL string     `json:"patch_url"`
	MergedAt *time.Time `json:"merged_at"`
}

type issueReactionsJSON struct {
	URL        string `json:"url"`
	TotalCount int    `json:"total_count"`
	PlusOne    int    `json:"+1"`
	MinusOne   int    `json:"-1"`
	Laugh      int    `json:"laugh"`
	Confused   int    `json:"confused"`
	Heart      int    `json:"heart"`
	Hooray     int    `json:"hooray"`
	Eyes       int    `json:"eyes"`
	Rocket     int    `json:"rocket"`
}

// issueJSON is GitHub's issue object.
type issueJSON struct {
	ID                int64              `json:"id"`
	NodeID            string             `json:"node_id"`
	URL               string             `json:"url"`
	RepositoryURL     string             `json:"repository_url"`
	LabelsURL         string             `json:"labels_url"`
	CommentsURL       string             `json:"comments_url"`
	EventsURL         string             `json:"events_url"`
	HTMLURL           string             `json:"html_url"`
	TimelineURL       string             `json:"timeline_url"`
	Number            int                `json:"number"`
	State             string             `json:"state"`
	StateReason       *string            `json:"state_reason"`
	Title             string             `json:"title"`
	Body              *string            `json:"body"`
	User              *userJSON          `json:"user"`
	Labels            []labelJSON        `json:"labels"`
	Assignee          *userJSON          `json:"assignee"`
	Assignees         []*userJSON        `json:"assignees"`
	Milestone         *struct{}          `json:"milestone"`
	Locked            bool               `json:"locked"`
	ActiveLockReason  *string            `json:"active_lock_reason"`
	Comments          int                `json:"comments"`
	PullRequest       *issuePullJSON     `json:"pull_request,omitempty"`
	ClosedAt          *time.Time         `json:"closed_at"`
	ClosedBy          *userJSON          `json:"closed_by,omitempty"`
	CreatedAt         time.Time          `json:"created_at"`
	UpdatedAt         time.Time          `json:"updated_at"`
	AuthorAssociation string             `json:"author_association"`
	Reactions         issueReactionsJSON `json:"reactions"`
}

func (s *Server) issueRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("GET "+r+"/issues", s.handle(true, listIssues))
	mux.HandleFunc("POST "+r+"/issues", s.handle(true, createIssue))
	mux.HandleFunc("GET "+r+"/issues/{number}", s.handle(true, getIssue))
	mux.HandleFunc("PATCH "+r+"/issues/{number}", s.handle(true, updateIssue))
}

// issueWrite reports whether a request is one the issue handlers judge
// themselves: opening an issue (anyone who reads may) and editing one (its
// author may).
func issueWrite(r *http.Request) bool {
	p := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method == http.MethodPost && strings.HasSuffix(p, "/issues") {
		return true
	}
	i := strings.LastIndex(p, "/issues/")
	if r.Method != http.MethodPatch || i < 0 {
		return false
	}
	_, err := strconv.Atoi(p[i+len("/issues/"):])
	return err == nil
}

func (c *ctx) issueBase(n int) (api, html string) {
	return c.s.url + "/api/v3/repos/" + c.full + "/issues/" + strconv.Itoa(n), c.s.url + "/" + c.full + "/issues/" + strconv.Itoa(n)
}

func (c *ctx) plainIssueJSON(is *issue) issueJSON {
	api, html := c.issueBase(is.Number)
	j := c.issueShell(is.ID, is.Number, api, html)
	j.NodeID = "I_" + strconv.FormatInt(is.ID, 10)
	j.State, j.Title, j.User = is.State, is.Title, c.s.user(is.User)
	if is.Body != "" {
		b := is.Body
		j.Body = &b
	}
	if is.StateReason != "" {
		r := is.StateReason
		j.StateReason = &r
	}
	j.ClosedAt, j.CreatedAt, j.UpdatedAt = is.ClosedAt, is.CreatedAt, is.UpdatedAt
	if is.ClosedBy != "" {
		j.ClosedBy = c.s.user(is.ClosedBy)
	}
	return j
}

// pullIssueJSON is a pull request as the issue listing shows it.
func (c *ctx) pullIssueJSON(p *pull) issueJSON {
	api, _ := c.issueBase(p.Number)
	html := c.s.url + "/" + c.full + "/pull/" + strconv.Itoa(p.Number)
	j := c.issueShell(p.ID, p.Number, api, html)
	j.NodeID = "PR_" + strconv.FormatInt(p.ID, 10)
	j.State, j.Title, j.User = p.State, p.Title, c.s.user(p.User)
	if p.Body != "" {
		b := p.Body
		j.Body = &b
	}
	j.ClosedAt, j.CreatedAt, j.UpdatedAt = p.ClosedAt, p.CreatedAt, p.UpdatedAt
	j.PullRequest = &issuePullJSON{URL: c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(p.Number), HTMLURL: html,
		DiffURL: html + ".diff", PatchURL: html + ".patch", MergedAt: p.MergedAt}
	return j
}

func (c *ctx) issueShell(id int64, n int, api, html string) issueJSON {
	j := issueJSON{ID: id, URL: api, RepositoryURL: c.s.url + "/api/v3/repos/" + c.full, LabelsURL: api + "/labels{/name}",
		CommentsURL: api + "/comments", EventsURL: api + "/events", TimelineURL: api + "/timeline", HTMLURL: html, Number: n,
		Labels: c.labelsOf(n), Assignees: []*userJSON{}, Comments: c.commentCount(n), AuthorAssociation: "MEMBER",
		Reactions: issueReactionsJSON{URL: api + "/reactions"}}
	if j.Labels == nil {
		j.Labels = []labelJSON{}
	}
	return j
}

// issueNumber is the issue the path names, or false after answering 404.
// A pull request's number is no issue to edit here: the stand-in edits
// pull requests through /pulls only.
func (c *ctx) issueNumber() (*issue, bool) {
	n, err := strconv.Atoi(c.r.PathValue("number"))
	if err == nil {
		for _, is := range c.repo.Issues {
			if is.Number == n {
				return is, true
			}
		}
	}
	writeError(c.w, http.StatusNotFound, "Not Found")
	return nil, false
}

func createIssue(c *ctx) {
	var in struct {
		Title *string `json:"title"`
		Body  string  `json:"body"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
		c.invalidField("Issue", "title", "missing_field", "")
		return
	}
	now := c.s.now()
	is := &issue{ID: c.s.id(), Number: c.repo.NextNumber, Title: *in.Title, Body: in.Body, User: c.login, State: "open", CreatedAt: now, UpdatedAt: now}
	c.repo.NextNumber++
	c.repo.Issues = append(c.repo.Issues, is)
	j := c.plainIssueJSON(is)
	c.location(j.URL)
	writeJSON(c.w, http.StatusCreated, j)
}

// getIssue answers an issue, or a pull request seen as one, as GitHub
// does for a pull request's number.
func getIssue(c *ctx) {
	if n, err := strconv.Atoi(c.r.PathValue("number")); err == nil {
		if p := c.pull(n); p != nil {
			writeJSON(c.w, http.StatusOK, c.pullIssueJSON(p))
			return
		}
	}
	if is, ok := c.issueNumber(); ok {
		writeJSON(c.w, http.StatusOK, c.plainIssueJSON(is))
	}
}

// updateIssue edits an issue's title, body or state. Only its author and
// the repository's writers may: GitHub refuses anyone else with 403.
func updateIssue(c *ctx) {
	is, ok := c.issueNumber()
	if !ok {
		return
	}
	var in struct {
		Title       *string `json:"title"`
		Body        *string `json:"body"`
		State       *string `json:"state"`
		StateReason *string `json:"state_reason"`
	}
	if !c.decode(&in) {
		return
	}
	if role := c.s.roleOf(c.repo, c.login); is.User != c.login && role != RoleAdmin && role != RoleWrite {
		writeError(c.w, http.StatusForbidden, "Must have admin rights to Repository.")
		return
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		c.invalidField("Issue", "state", "invalid", "")
		return
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		c.invalidField("Issue", "title", "missing_field", "")
		return
	}
	now := c.s.now()
	changed := false
	if in.Title != nil && *in.Title != is.Title {
		is.Title, changed = *in.Title, true
	}
	if in.Body != nil && *in.Body != is.Body {
		if len(is.Edits) == 0 {
			is.Edits = append(is.Edits, &issueEdit{ID: c.s.id(), Editor: is.User, EditedAt: is.CreatedAt, Body: is.Body})
		}
		is.Body, changed = *in.Body, true
		is.Edits = append(is.Edits, &issueEdit{ID: c.s.id(), Editor: c.login, EditedAt: now, Body: is.Body})
	}
	if in.State != nil && *in.State != is.State {
		is.State, changed = *in.State, true
		if is.State == "closed" {
			is.ClosedAt, is.ClosedBy, is.StateReason = &now, c.login, "completed"
			if in.StateReason != nil && (*in.StateReason == "not_planned" || *in.StateReason == "duplicate") {
				is.StateReason = *in.StateReason
			}
		} else {
			is.ClosedAt, is.ClosedBy, is.StateReason = nil, "", "reopened"
		}
	}
	if changed {
		is.UpdatedAt = now
	}
	writeJSON(c.w, http.StatusOK, c.plainIssueJSON(is))
}

// listIssues lists issues and pull requests, newest first as GitHub's
// default sort (created, desc) has them, filtered by state (open unless
// asked) and creator.
func listIssues(c *ctx) {
	q := c.r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" && state != "all" {
		c.invalidField("Issue", "state", "invalid", "")
		return
	}
	creator := q.Get("creator")
	type item struct {
		at time.Time
		n  int
		j  func() issueJSON
	}
	var items []item
	keep := func(st, user string) bool {
		return (state == "all" || st == state) && (creator == "" || strings.EqualFold(creator, user))
	}
	for _, is := range c.repo.Issues {
		if keep(is.State, is.User) {
			items = append(items, item{is.CreatedAt, is.Number, func() issueJSON { return c.plainIssueJSON(is) }})
		}
	}
	for _, p := range c.repo.Pulls {
		if keep(pullIssueState(p), p.User) {
			items = append(items, item{p.CreatedAt, p.Number, func() issueJSON { return c.pullIssueJSON(p) }})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if !a.at.Equal(b.at) {
			return b.at.Compare(a.at)
		}
		return b.n - a.n
	})
	out := make([]issueJSON, 0, len(items))
	for _, it := range pageOf(c, items, 30, 100) {
		out = append(out, it.j())
	}
	writeJSON(c.w, http.StatusOK, out)
}

// pullIssueState is a pull request's state as an issue: open or closed
// (merged is closed).
func pullIssueState(p *pull) string {
	if p.State == "open" {
		return "open"
	}
	return "closed"
}
