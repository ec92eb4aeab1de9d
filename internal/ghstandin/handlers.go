package ghstandin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ctx is one API request's view: the authenticated login and the repo.
type ctx struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	login string
	repo  *repo
	full  string
	git   gitRepo
}

// handle wraps a handler: it takes the server lock, resolves the repository
// and persists state after a successful write.
func (s *Server) handle(needRepo bool, fn func(c *ctx)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		login, _ := s.authenticate(r)
		s.mu.Lock()
		defer s.mu.Unlock()
		c := &ctx{s: s, w: w, r: r, login: login}
		if needRepo {
			c.full, c.repo = s.lookupRepo(r.PathValue("owner") + "/" + r.PathValue("repo"))
			if c.repo == nil {
				writeError(w, http.StatusNotFound, "Not Found")
				return
			}
			c.git = s.repoGit(c.full)
			before := c.mark()
			c.runUpdates()
			defer c.announce(before)
		}
		if needRepo && r.Method != http.MethodGet && (s.outOfScope(r, c.full) || s.readOnlyToken(r)) {
			// An installation token narrowed to other repositories reads
			// this public one and writes nothing to it.
			writeError(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		if needRepo && r.Method != http.MethodGet && needsWrite(r) && s.roleOf(c.repo, login) == RoleRead {
			// GitHub answers a read-only user's write with 403 or, for
			// labels, 404; 403 is enough for every client to stop.
			writeError(w, http.StatusForbidden, "Must have push access to repository")
			return
		}
		fn(c)
		if r.Method != http.MethodGet || s.dirty {
			s.dirty = false
			_ = s.save()
		}
	}
}

// needsWrite reports whether a request needs push access: anyone who can
// read a public repository may comment, review and open pull requests.
func needsWrite(r *http.Request) bool {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/comments"), strings.Contains(p, "/issues/comments/"), strings.HasSuffix(p, "/reviews"):
		return false
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/pulls"), issueWrite(r):
		return false
	}
	return true
}

// getPermission answers GET /repos/{owner}/{repo}/collaborators/{username}/permission
// with the legacy permission (admin, write, read, none) and the role name.
func getPermission(c *ctx) {
	if role := c.s.roleOf(c.repo, c.login); role != RoleAdmin && role != RoleWrite {
		// GitHub: reading collaborators needs push access.
		writeError(c.w, http.StatusForbidden, "Must have push access to view repository collaborators.")
		return
	}
	login := c.r.PathValue("username")
	known := c.s.tokenOf(login) != "" || strings.EqualFold(login, c.repo.Owner)
	if !known {
		writeError(c.w, http.StatusNotFound, "Not Found")
		return
	}
	perm := c.s.roleOf(c.repo, login)
	roleName := map[string]string{RoleAdmin: "admin", RoleWrite: "write", RoleRead: "read", RoleNone: "none"}[perm]
	// The user is a collaborator: its permissions and role name too.
	writeJSON(c.w, 200, map[string]any{"permission": perm, "role_name": roleName, "user": collaboratorJSON{userJSON: c.s.user(login), RoleName: roleName,
		Permissions: map[string]bool{"admin": perm == RoleAdmin, "maintain": perm == RoleAdmin, "push": perm == RoleAdmin || perm == RoleWrite,
			"triage": perm != RoleNone, "pull": perm != RoleNone}}})
}

// collaboratorJSON is a user as the collaborator routes show it.
type collaboratorJSON struct {
	*userJSON
	Permissions map[string]bool `json:"permissions"`
	RoleName    string          `json:"role_name"`
}

func (c *ctx) decode(v any) bool {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, 8<<20))
	if err != nil || json.Unmarshal(body, v) != nil {
		writeError(c.w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

// decodeOptional is decode for a body whose fields are all optional: an
// empty body is an empty object.
func (c *ctx) decodeOptional(v any) bool {
	body, err := io.ReadAll(io.LimitReader(c.r.Body, 8<<20))
	if err == nil && len(bytes.TrimSpace(body)) == 0 {
		return true
	}
	if err != nil || json.Unmarshal(body, v) != nil {
		writeError(c.w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func (s *Server) routes(mux *http.ServeMux) {
	const p = "/api/v3"
	mux.Handle("POST /api/graphql", s.graphqlHandler(mux))
	s.metaRoutes(mux, p)
	mux.HandleFunc("GET "+p+"/user", s.handle(false, getUser))
	mux.HandleFunc("GET "+p+"/rate_limit", s.handle(false, func(c *ctx) {
		rl := c.s.rateOf(c.login)
		core := map[string]any{"limit": c.s.limit, "remaining": max(0, c.s.limit-rl.used), "used": rl.used, "reset": rl.reset.Unix()}
		// The stand-in limits core and GraphQL requests, each on its own
		// budget (serveAPI); search is reported
		// unused at GitHub's limit of 30 a minute.
		search := map[string]any{"limit": 30, "remaining": 30, "used": 0, "reset": c.s.now().Add(time.Minute).Unix()}
		g := c.s.rateOf(rateKey(c.login, "graphql"))
		gql := map[string]any{"limit": c.s.limit, "remaining": max(0, c.s.limit-g.used), "used": g.used, "reset": g.reset.Unix()}
		writeJSON(c.w, 200, map[string]any{"resources": map[string]any{"core": core, "search": search, "graphql": gql}, "rate": core})
	}))
	r := p + "/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+r, s.handle(true, getRepo))
	mux.HandleFunc("GET "+r+"/collaborators/{username}/permission", s.handle(true, getPermission))
	mux.HandleFunc("GET "+r+"/branches", s.handle(true, listBranches))
	mux.HandleFunc("GET "+r+"/branches/{branch...}", s.handle(true, getBranch))
	mux.HandleFunc("GET "+r+"/git/ref/{ref...}", s.handle(true, getRef))
	mux.HandleFunc("POST "+r+"/git/refs", s.handle(true, createRef))
	mux.HandleFunc("PATCH "+r+"/git/refs/{ref...}", s.handle(true, updateRef))
	mux.HandleFunc("DELETE "+r+"/git/refs/{ref...}", s.handle(true, deleteRef))
	mux.HandleFunc("GET "+r+"/commits/{rest...}", s.handle(true, getCommitRoutes))
	mux.HandleFunc("GET "+r+"/compare/{basehead...}", s.handle(true, compare))
	mux.HandleFunc("GET "+r+"/pulls", s.handle(true, listPulls))
	mux.HandleFunc("POST "+r+"/pulls", s.handle(true, createPull))
	mux.HandleFunc("GET "+r+"/pulls/{number}", s.handle(true, getPull))
	mux.HandleFunc("PATCH "+r+"/pulls/{number}", s.handle(true, updatePull))
	mux.HandleFunc("GET "+r+"/pulls/{number}/files", s.handle(true, pullFiles))
	mux.HandleFunc("PUT "+r+"/pulls/{number}/merge", s.handle(true, mergePull))
	mux.HandleFunc("PUT "+r+"/pulls/{number}/update-branch", s.handle(true, updateBranch))
	mux.HandleFunc("GET "+r+"/pulls/{number}/reviews", s.handle(true, listReviews))
	mux.HandleFunc("POST "+r+"/pulls/{number}/reviews", s.handle(true, createReview))
	mux.HandleFunc("PUT "+r+"/pulls/{number}/reviews/{id}/dismissals", s.handle(true, dismissReview))
	mux.HandleFunc("GET "+r+"/pulls/{number}/comments", s.handle(true, listReviewComments))
	mux.HandleFunc("POST "+r+"/pulls/{number}/comments", s.handle(true, createReviewComment))
	mux.HandleFunc("GET "+r+"/issues/{number}/comments", s.handle(true, listIssueComments))
	mux.HandleFunc("POST "+r+"/issues/{number}/comments", s.handle(true, createIssueComment))
	mux.HandleFunc("PATCH "+r+"/issues/comments/{id}", s.handle(true, updateIssueComment))
	mux.HandleFunc("DELETE "+r+"/issues/comments/{id}", s.handle(true, deleteIssueComment))
	mux.HandleFunc("GET "+r+"/issues/{number}/labels", s.handle(true, listLabels))
	mux.HandleFunc("POST "+r+"/issues/{number}/labels", s.handle(true, addLabels))
	mux.HandleFunc("DELETE "+r+"/issues/{number}/labels/{name}", s.handle(true, removeLabel))
	mux.HandleFunc("POST "+r+"/statuses/{sha}", s.handle(true, createStatus))
	mux.HandleFunc("POST "+r+"/check-runs", s.handle(true, createCheckRun))
	mux.HandleFunc("PATCH "+r+"/check-runs/{id}", s.handle(true, updateCheckRun))
	s.fidelityRoutes(mux, r)
	s.reactionRoutes(mux, r)
	s.issueRoutes(mux, r)
	s.hookRoutes(mux, r)
	s.forkRoutes(mux, r)
	s.jobLogRoutes(mux, r)
	mux.HandleFunc("GET "+r+"/actions/permissions", s.handle(true, getActionsPermissions))
	s.appRoutes(mux, p)
	// Anything else, whatever the method, is GitHub's JSON 404.
	mux.HandleFunc(p+"/", func(w http.ResponseWriter, _ *http.Request) { writeError(w, http.StatusNotFound, "Not Found") })
}

func listBranches(c *ctx) {
	bs, err := c.git.branches()
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	var names []string
	for n := range bs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []map[string]any{}
	for _, n := range names {
		out = append(out, c.branchJSON(n, bs[n]))
	}
	paginate(c, out)
}

func (c *ctx) branchJSON(name, sha string) map[string]any {
	_, protected := c.repo.Protection[name]
	return map[string]any{"name": name, "protected": protected,
		"commit": map[string]string{"sha": sha, "url": c.s.url + "/api/v3/repos/" + c.full + "/commits/" + sha}}
}

func getBranch(c *ctx) {
	name := c.r.PathValue("branch")
	if b, ok := strings.CutSuffix(name, "/protection"); ok {
		c.branchProtection(b)
		return
	}
	if b, ok := strings.CutSuffix(name, "/protection/required_status_checks"); ok {
		pr := c.repo.Protection[b]
		if c.s.roleOf(c.repo, c.login) != RoleAdmin {
			// Branch protection is an admin-only read: GitHub answers
			// everyone else 404, as if the branch were not protected.
			writeError(c.w, 404, "Not Found")
			return
		}
		if pr == nil || pr.Ruleset {
			writeError(c.w, 404, "Branch not protected")
			return
		}
		u := c.s.url + "/api/v3/repos/" + c.full + "/branches/" + b + "/protection/required_status_checks"
		checks := []map[string]any{}
		for _, name := range pr.RequiredContexts {
			checks = append(checks, map[string]any{"context": name, "app_id": nil})
		}
		writeJSON(c.w, 200, map[string]any{"url": u, "contexts_url": u + "/contexts", "strict": pr.Strict, "contexts": nonNil(pr.RequiredContexts), "checks": checks})
		return
	}
	bs, _ := c.git.branches()
	sha, ok := bs[name]
	if !ok {
		writeError(c.w, 404, "Branch not found")
		return
	}
	info, err := c.git.commit(sha)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	j := c.branchJSON(name, sha)
	api := c.s.url + "/api/v3/repos/" + c.full + "/branches/" + name
	j["commit"] = c.s.commitJSON(c.full, info, nil)
	j["_links"] = map[string]string{"self": api, "html": c.s.url + "/" + c.full + "/tree/" + name}
	j["protection_url"] = api + "/protection"
	checks := map[string]any{"enforcement_level": "off", "contexts": []string{}, "checks": []any{}}
	if p := c.repo.Protection[name]; p != nil && !p.Ruleset {
		var named []any
		for _, n := range p.RequiredContexts {
			named = append(named, map[string]any{"context": n, "app_id": nil})
		}
		checks = map[string]any{"enforcement_level": "non_admins", "contexts": nonNil(p.RequiredContexts), "checks": append([]any{}, named...), "strict": p.Strict}
	}
	j["protection"] = map[string]any{"enabled": j["protected"], "required_status_checks": checks}
	writeJSON(c.w, 200, j)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// fullRefJSON is a git reference (refs/heads/… or refs/tags/…); an
// annotated tag's object is the tag, as GitHub answers.
func (c *ctx) fullRefJSON(ref, sha string) map[string]any {
	typ, path := "commit", "/git/commits/"
	if strings.HasPrefix(ref, "refs/tags/") {
		if t, err := c.git.typeOf(sha); err == nil && t == "tag" {
			typ, path = "tag", "/git/tags/"
		}
	}
	return map[string]any{"ref": ref, "node_id": "REF_" + strings.TrimPrefix(ref, "refs/"), "url": c.s.url + "/api/v3/repos/" + c.full + "/git/" + ref,
		"object": map[string]string{"type": typ, "sha": sha, "url": c.s.url + "/api/v3/repos/" + c.full + path + sha}}
}

// refPath turns the {ref} of /git/ref(s)/{ref} into a full ref name:
// heads/<branch> or tags/<tag>, the references GitHub's git refs API
// serves; ok is false for anything else.
func refPath(ref string) (string, bool) {
	for _, p := range []string{"heads/", "tags/"} {
		if name, ok := strings.CutPrefix(ref, p); ok && name != "" && !strings.Contains(name, "..") {
			return "refs/" + ref, true
		}
	}
	return "", false
}

// lookupRef is a full ref's target, read from the repository's files.
func (c *ctx) lookupRef(full string) (string, bool) {
	refs, err := readRefs(c.git.dir)
	if err != nil {
		return "", false
	}
	sha, ok := refs[full]
	return sha, ok
}

func getRef(c *ctx) {
	full, ok := refPath(c.r.PathValue("ref"))
	sha, found := c.lookupRef(full)
	if !ok || !found {
		writeError(c.w, 404, "Not Found")
		return
	}
	writeJSON(c.w, 200, c.fullRefJSON(full, sha))
}

func createRef(c *ctx) {
	var in struct{ Ref, SHA string }
	if !c.decode(&in) {
		return
	}
	full, ok := refPath(strings.TrimPrefix(in.Ref, "refs/"))
	ok = ok && strings.HasPrefix(in.Ref, "refs/")
	sha := in.SHA
	found := false
	if strings.HasPrefix(full, "refs/tags/") {
		// A tag may name any object (an annotated tag's object too).
		t, err := c.git.typeOf(in.SHA)
		found = err == nil && t != ""
	} else {
		sha, found = c.git.resolve(in.SHA)
	}
	if !ok || !found || len(in.SHA) != 40 {
		writeError(c.w, 422, "Reference update failed")
		return
	}
	if _, err := c.git.out("update-ref", full, sha, strings.Repeat("0", 40)); err != nil {
		writeError(c.w, 422, "Reference already exists")
		return
	}
	c.location(c.s.url + "/api/v3/repos/" + c.full + "/git/" + full)
	writeJSON(c.w, 201, c.fullRefJSON(full, sha))
}

func updateRef(c *ctx) {
	var in struct {
		SHA   string
		Force bool
	}
	if !c.decode(&in) {
		return
	}
	full, ok := refPath(c.r.PathValue("ref"))
	old, found := c.lookupRef(full)
	sha, resolved := c.git.resolve(in.SHA)
	if !ok || !found || !resolved {
		writeError(c.w, 422, "Reference does not exist")
		return
	}
	if !in.Force && !c.git.isAncestor(old, sha) {
		writeError(c.w, 422, "Update is not a fast forward")
		return
	}
	if _, err := c.git.out("update-ref", full, sha, old); err != nil {
		writeError(c.w, 422, "Reference update failed")
		return
	}
	writeJSON(c.w, 200, c.fullRefJSON(full, sha))
}

func deleteRef(c *ctx) {
	full, ok := refPath(c.r.PathValue("ref"))
	if _, found := c.lookupRef(full); !ok || !found {
		writeError(c.w, 422, "Reference does not exist")
		return
	}
	if _, err := c.git.out("update-ref", "-d", full); err != nil {
		writeError(c.w, 422, "Reference does not exist")
		return
	}
	c.w.WriteHeader(204)
}

// getCommitRoutes serves /commits/{ref}, /commits/{ref}/status,
// /commits/{ref}/statuses and /commits/{ref}/check-runs.
func getCommitRoutes(c *ctx) {
	rest := c.r.PathValue("rest")
	for _, suffix := range []string{"/status", "/statuses", "/check-runs"} {
		if ref, ok := strings.CutSuffix(rest, suffix); ok {
			sha, found := c.git.resolve(ref)
			if !found {
				writeError(c.w, 422, "No commit found for SHA: "+ref)
				return
			}
			switch suffix {
			case "/status":
				c.combinedStatus(sha)
			case "/statuses":
				paginate(c, c.statusesFor(sha, false))
			case "/check-runs":
				c.checkRuns(sha)
			}
			return
		}
	}
	sha, found := c.git.resolve(rest)
	if !found {
		writeError(c.w, 422, "No commit found for SHA: "+rest)
		return
	}
	info, err := c.git.commit(sha)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	// GitHub answers the bare SHA to both spellings of the media type.
	if accept := c.r.Header.Get("Accept"); strings.Contains(accept, "application/vnd.github.v3.sha") || strings.Contains(accept, "application/vnd.github.sha") {
		c.w.Header().Set("Content-Type", "application/vnd.github.sha; charset=utf-8")
		_, _ = io.WriteString(c.w, sha)
		return
	}
	parent := "4b825dc642cb6eb9a060e54bf8d69288fbee4904" // the empty tree
	if len(info.Parents) > 0 {
		parent = info.Parents[0]
	}
	files, err := c.git.diff(parent, sha)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	if files == nil {
		files = []fileChange{}
	}
	// GitHub pages a commit's files (300 by default), repeating the
	// commit itself on every page; stats cover every file.
	j := c.s.commitJSON(c.full, info, files)
	j.Files = pageOf(c, j.Files, 300, 300)
	writeJSON(c.w, 200, j)
}

func compare(c *ctx) {
	bh := c.r.PathValue("basehead")
	base, head, ok := strings.Cut(bh, "...")
	if !ok {
		writeError(c.w, 404, "Not Found")
		return
	}
	baseSHA, ok1 := c.compareSide(base)
	headSHA, ok2 := c.compareSide(head)
	if !ok1 || !ok2 {
		writeError(c.w, 404, "Not Found")
		return
	}
	mb, ok := c.git.mergeBase(baseSHA, headSHA)
	if !ok {
		writeError(c.w, 404, "No common ancestor between "+base+" and "+head+".")
		return
	}
	ahead, behind := c.git.count(mb+".."+headSHA), c.git.count(mb+".."+baseSHA)
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case behind == 0:
		status = "ahead"
	case ahead == 0:
		status = "behind"
	}
	commits, _ := c.git.commitsBetween(mb, headSHA)
	files, _ := c.git.diff(mb, headSHA)
	q := c.r.URL.Query()
	if q.Has("per_page") || q.Has("page") {
		// Paginated, as GitHub documents it: a page of commits, and the
		// files on the first page only.
		commits = pageOf(c, commits, 30, 100)
		if p, _ := strconv.Atoi(q.Get("page")); p > 1 {
			files = nil
		}
	} else if len(commits) > 250 {
		commits = commits[:250]
	}
	baseInfo, _ := c.git.commit(baseSHA)
	mbInfo, _ := c.git.commit(mb)
	cj := []commitJSON{}
	for _, ci := range commits {
		cj = append(cj, c.s.commitJSON(c.full, ci, nil))
	}
	writeJSON(c.w, 200, map[string]any{
		"url": c.s.url + "/api/v3/repos/" + c.full + "/compare/" + bh, "status": status,
		"html_url": c.s.url + "/" + c.full + "/compare/" + bh, "permalink_url": c.s.url + "/" + c.full + "/compare/" + c.repo.Owner + ":" + mb[:7] + "..." + c.repo.Owner + ":" + headSHA[:7],
		"diff_url": c.s.url + "/" + c.full + "/compare/" + bh + ".diff", "patch_url": c.s.url + "/" + c.full + "/compare/" + bh + ".patch",
		"ahead_by": ahead, "behind_by": behind, "total_commits": ahead,
		"base_commit": c.s.commitJSON(c.full, baseInfo, nil), "merge_base_commit": c.s.commitJSON(c.full, mbInfo, nil),
		"commits": cj, "files": filesJSON(c.full, c.s.url, files),
	})
}

func (c *ctx) pullNumber() (*pull, bool) {
	n, err := strconv.Atoi(c.r.PathValue("number"))
	if err == nil {
		for _, p := range c.repo.Pulls {
			if p.Number == n {
				return p, true
			}
		}
	}
	writeError(c.w, 404, "Not Found")
	return nil, false
}

// sync brings open pull requests up to date with the repository's refs: a
// moved head is a new revision and bumps updated_at, as on GitHub; a
// deleted head branch closes the pull request and a base that came to
// contain the head marks it merged (see autoState).
func (c *ctx) sync() map[string]string {
	bs, _ := c.git.branches()
	for _, p := range c.repo.Pulls {
		if p.State != "open" {
			continue
		}
		view := c.pullView(p, bs)
		if p.HeadRepo != "" {
			// A fork's head commits are copied in before anything
			// compares or merges them.
			if sha, ok := view[p.Head]; ok && sha != p.HeadSHA {
				c.pullRefAt(p, sha)
			}
		}
		if c.autoState(p, view) {
			continue
		}
		if sha, ok := view[p.Head]; ok && sha != p.HeadSHA {
			p.HeadSHA = sha
			p.UpdatedAt = c.s.now()
			c.s.dirty = true
			c.pullRef(p)
		}
		if sha, ok := bs[p.Base]; ok && sha != p.BaseSHA {
			p.BaseSHA = sha
			c.s.dirty = true
		}
	}
	return bs
}

func (c *ctx) pullJSON(p *pull, full bool) pullJSON {
	rj := c.s.repoJSON(c.repo)
	api := c.s.url + "/api/v3/repos/" + c.full
	num := strconv.Itoa(p.Number)
	self := api + "/pulls/" + num
	html := c.s.url + "/" + c.full + "/pull/" + num
	href := func(u string) map[string]string { return map[string]string{"href": u} }
	j := pullJSON{
		URL: self, ID: p.ID, NodeID: "PR_" + strconv.FormatInt(p.ID, 10), HTMLURL: html, DiffURL: html + ".diff", PatchURL: html + ".patch",
		IssueURL: api + "/issues/" + num, CommitsURL: self + "/commits", ReviewCommentsURL: self + "/comments", ReviewCommentURL: api + "/pulls/comments{/number}",
		CommentsURL: api + "/issues/" + num + "/comments", StatusesURL: api + "/statuses/" + p.HeadSHA,
		Number: p.Number, State: p.State, Title: p.Title, Assignees: []userJSON{}, RequestedReviewers: []userJSON{}, RequestedTeams: []struct{}{},
		User: c.s.user(p.User), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, ClosedAt: p.ClosedAt, MergedAt: p.MergedAt, Draft: p.Draft,
		Head: branchRefJSON{Label: c.headOwner(p) + ":" + p.Head, Ref: p.Head, SHA: p.HeadSHA, User: c.s.user(c.headOwner(p)), Repo: c.headRepoJSON(p, rj)},
		Base: branchRefJSON{Label: c.repo.Owner + ":" + p.Base, Ref: p.Base, SHA: p.BaseSHA, User: c.s.user(c.repo.Owner), Repo: rj},
		Links: map[string]any{"self": href(self), "html": href(html), "issue": href(api + "/issues/" + num), "comments": href(api + "/issues/" + num + "/comments"),
			"review_comments": href(self + "/comments"), "review_comment": href(api + "/pulls/comments{/number}"), "commits": href(self + "/commits"),
			"statuses": href(api + "/statuses/" + p.HeadSHA)},
		AuthorAssociation: "MEMBER", Labels: []labelJSON{},
	}
	if p.Body != "" {
		b := p.Body
		j.Body = &b
	}
	if p.MergeCommitSHA != "" {
		m := p.MergeCommitSHA
		j.MergeCommitSHA = &m
	}
	for _, l := range c.repo.Labels[num] {
		j.Labels = append(j.Labels, c.s.labelJSON(c.repo, l))
	}
	if full {
		d := &pullDetailJSON{Merged: p.Merged, MergedBy: c.s.user(p.MergedBy), MaintainerCanModify: p.MaintainerCanModify}
		d.Mergeable, d.MergeableState = c.mergeability(p)
		d.Rebaseable = d.Mergeable
		// A merged pull request keeps the commits it had; its head may
		// be gone or inside the base by now.
		d.Commits = c.git.count(p.BaseSHA + ".." + p.HeadSHA)
		if mb, ok := c.git.mergeBase(p.BaseSHA, p.HeadSHA); ok {
			files, _ := c.git.diff(mb, p.HeadSHA)
			d.ChangedFiles = len(files)
			for _, f := range files {
				d.Additions += f.Additions
				d.Deletions += f.Deletions
			}
		}
		for _, ic := range c.repo.Comments {
			if ic.Number == p.Number {
				d.Comments++
			}
		}
		for _, rc := range c.repo.ReviewCmts {
			if rc.Number == p.Number {
				d.ReviewComments++
			}
		}
		j.pullDetailJSON = d
	}
	return j
}

// mergeability is null on the first read after the head or base moves and
// computed from a real merge and the required checks afterwards.
func (c *ctx) mergeability(p *pull) (*bool, string) {
	if p.State != "open" {
		return nil, "unknown"
	}
	key := p.HeadSHA + ":" + p.BaseSHA
	c.s.dirty = true
	if p.MergeKey != key {
		p.MergeKey, p.MergeWait, p.Conflict = key, c.s.mergeAt, nil
	}
	if p.MergeWait > 0 {
		p.MergeWait--
		return nil, "unknown"
	}
	if p.Conflict == nil {
		_, conflict, err := c.git.mergeTree(p.BaseSHA, p.HeadSHA)
		if err != nil {
			return nil, "unknown"
		}
		p.Conflict = &conflict
	}
	ok := !*p.Conflict
	switch {
	case *p.Conflict:
		return &ok, "dirty"
	case p.Draft:
		return &ok, "draft"
	}
	var required []string
	if prot := c.repo.Protection[p.Base]; prot != nil {
		required = prot.RequiredContexts
		if !c.requiredPass(p.HeadSHA, prot.RequiredContexts) || c.reviewsMissing(p, prot) != "" {
			return &ok, "blocked"
		}
		if prot.Strict && !c.git.isAncestor(p.BaseSHA, p.HeadSHA) {
			return &ok, "behind"
		}
	}
	// GitHub: unstable is a failing or pending commit status or check
	// outside the required ones.
	if c.anyFailing(p.HeadSHA) || c.anyPending(p.HeadSHA, required) {
		return &ok, "unstable"
	}
	return &ok, "clean"
}

// reviewsMissing says why a pull request lacks the reviews its base's
// protection requires, "" when it has them: the latest approving or
// change-requesting review of each user with push access counts (the
// author cannot review their own pull request), a change request blocks,
// and at least RequiredReviews approvals are needed.
func (c *ctx) reviewsMissing(p *pull, prot *Protection) string {
	if prot.RequiredReviews == 0 {
		return ""
	}
	latest := map[string]string{}
	for _, rv := range c.repo.Reviews {
		if rv.Number != p.Number || rv.User == p.User {
			continue
		}
		if role := c.s.roleOf(c.repo, rv.User); role != RoleAdmin && role != RoleWrite {
			continue
		}
		switch rv.State {
		case "APPROVED", "CHANGES_REQUESTED", "DISMISSED":
			latest[strings.ToLower(rv.User)] = rv.State
		}
	}
	approved := 0
	for _, st := range latest {
		if st == "CHANGES_REQUESTED" {
			return "Changes have been requested."
		}
		if st == "APPROVED" {
			approved++
		}
	}
	if approved < prot.RequiredReviews {
		if prot.RequiredReviews == 1 {
			return "At least 1 approving review is required by reviewers with write access."
		}
		return fmt.Sprintf("At least %d approving reviews are required by reviewers with write access.", prot.RequiredReviews)
	}
	return ""
}

// anyPending reports a commit status or check run still pending, queued or
// in progress that is not one of the required ones.
func (c *ctx) anyPending(sha string, required []string) bool {
	for _, st := range c.statusesFor(sha, true) {
		if st.State == "pending" && !slices.Contains(required, st.Context) {
			return true
		}
	}
	for _, cr := range c.runsOf(sha) {
		if cr.Status != "completed" && !slices.Contains(required, cr.Name) {
			return true
		}
	}
	return false
}

func (c *ctx) requiredPass(sha string, required []string) bool {
	for _, name := range required {
		passed := false
		for _, st := range c.statusesFor(sha, true) {
			if st.Context == name && st.State == "success" {
				passed = true
			}
		}
		for _, cr := range c.runsOf(sha) {
			if cr.Name == name && cr.Status == "completed" && (cr.Conclusion == "success" || cr.Conclusion == "neutral" || cr.Conclusion == "skipped") {
				passed = true
			}
		}
		if !passed {
			return false
		}
	}
	return true
}

func (c *ctx) anyFailing(sha string) bool {
	for _, st := range c.statusesFor(sha, true) {
		if st.State == "failure" || st.State == "error" {
			return true
		}
	}
	for _, cr := range c.runsOf(sha) {
		if cr.Status == "completed" && (cr.Conclusion == "failure" || cr.Conclusion == "timed_out" || cr.Conclusion == "cancelled" || cr.Conclusion == "action_required") {
			return true
		}
	}
	return false
}

// listPulls lists a repository's pull requests as GitHub does: filtered
// by state (open unless asked), head and base, then sorted.
func listPulls(c *ctx) {
	c.sync()
	q := c.r.URL.Query()
	state := q.Get("state")
	switch state {
	case "":
		state = "open"
	case "open", "closed", "all":
	default:
		c.invalidField("PullRequest", "state", "invalid", "state must be open, closed or all")
		return
	}
	var ps []*pull
	for _, p := range c.repo.Pulls {
		if c.pullListed(p, state, q.Get("head"), q.Get("base")) {
			ps = append(ps, p)
		}
	}
	sortBy, dir := q.Get("sort"), q.Get("direction")
	if field, msg := pullSortRefusal(sortBy, dir); field != "" {
		c.invalidField("PullRequest", field, "invalid", msg)
		return
	}
	sortPulls(ps, sortBy, dir)
	out := make([]pullJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, c.pullJSON(p, false))
	}
	paginate(c, out)
}

// pullListed reports whether p passes a list's filters: its state (or
// all), its head as user:ref-name when head is given (the user matches in
// any case, as GitHub's logins do) and its base when base is given.
func (c *ctx) pullListed(p *pull, state, head, base string) bool {
	if state != "all" && p.State != state {
		return false
	}
	if head != "" {
		owner, ref, _ := strings.Cut(head, ":")
		if !strings.EqualFold(owner, c.headOwner(p)) || ref != p.Head {
			return false
		}
	}
	return base == "" || base == p.Base
}

// pullSortRefusal is the field and message of a list's sort or direction
// GitHub refuses, or "" when both are valid.
func pullSortRefusal(sortBy, dir string) (field, msg string) {
	switch {
	case sortBy != "" && sortBy != "created" && sortBy != "updated" && sortBy != "popularity" && sortBy != "long-running":
		return "sort", "sort must be created, updated, popularity or long-running"
	case dir != "" && dir != "asc" && dir != "desc":
		return "direction", "direction must be asc or desc"
	}
	return "", ""
}

// sortPulls orders ps as GitHub does: by update time for sort=updated,
// by number otherwise; direction defaults to desc when sort is created or
// not given, otherwise to asc.
func sortPulls(ps []*pull, sortBy, dir string) {
	desc := dir == "desc" || (dir == "" && (sortBy == "" || sortBy == "created"))
	if sortBy != "updated" {
		sort.SliceStable(ps, func(i, j int) bool { return (ps[i].Number > ps[j].Number) == desc })
		return
	}
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].UpdatedAt.Equal(ps[j].UpdatedAt) {
			return (ps[i].Number > ps[j].Number) == desc
		}
		return ps[i].UpdatedAt.After(ps[j].UpdatedAt) == desc
	})
}

func getPull(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	writeJSON(c.w, 200, c.pullJSON(p, true))
}

func createPull(c *ctx) {
	var in struct {
		Title, Head, Base, Body string
		Draft                   bool
		MaintainerCanModify     bool `json:"maintainer_can_modify"`
	}
	if !c.decode(&in) {
		return
	}
	bs := c.sync()
	fork, head, headSHA, ok1 := c.forkHead(in.Head, bs)
	baseSHA, ok2 := bs[in.Base]
	number := c.repo.NextNumber
	if ok1 && fork != "" {
		// The fork's commits are copied in as refs/pull/N/head first,
		// so that they can be compared.
		c.pullRefAt(&pull{Number: number, HeadRepo: fork, Head: head}, headSHA)
		defer func() {
			if c.repo.NextNumber == number {
				_, _ = c.git.exec(nil, nil, "update-ref", "-d", "refs/pull/"+strconv.Itoa(number)+"/head")
			}
		}()
	}
	switch {
	case in.Title == "":
		c.invalidField("PullRequest", "title", "missing_field", "")
		return
	case !ok1:
		c.invalidField("PullRequest", "head", "invalid", "")
		return
	case !ok2:
		c.invalidField("PullRequest", "base", "invalid", "")
		return
	case c.git.count(baseSHA+".."+headSHA) == 0:
		c.invalidField("PullRequest", "", "custom", "No commits between "+in.Base+" and "+head)
		return
	}
	for _, p := range c.repo.Pulls {
		if p.State == "open" && p.Head == head && strings.EqualFold(p.HeadRepo, fork) && p.Base == in.Base {
			c.invalidField("PullRequest", "", "custom", "A pull request already exists for "+c.headOwner(p)+":"+head+".")
			return
		}
	}
	now := c.s.now()
	p := &pull{ID: c.s.id(), Number: c.repo.NextNumber, Title: in.Title, Body: in.Body, User: c.login, Head: head, Base: in.Base,
		HeadSHA: headSHA, BaseSHA: baseSHA, State: "open", Draft: in.Draft, CreatedAt: now, UpdatedAt: now,
		HeadRepo: fork, MaintainerCanModify: fork != "" && in.MaintainerCanModify}
	c.repo.NextNumber++
	c.repo.Pulls = append(c.repo.Pulls, p)
	c.pullRef(p)
	c.location(c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(p.Number))
	writeJSON(c.w, 201, c.pullJSON(p, true))
}

// updatePull edits a pull request's title, body, base, state or (for a
// fork's) maintainer_can_modify, after
// checking the whole edit as GitHub does.
func updatePull(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	var in pullUpdate
	if !c.decode(&in) {
		return
	}
	if field, code, why := c.updateRefusal(p, in); field != "" {
		c.invalidField("PullRequest", field, code, why)
		return
	}
	if in.Title != nil {
		p.Title = *in.Title
	}
	if in.Body != nil {
		p.Body = *in.Body
	}
	if in.Base != nil {
		p.Base = *in.Base
	}
	if in.State != nil && !p.Merged {
		c.setPullState(p, *in.State)
	}
	if in.MaintainerCanModify != nil && p.HeadRepo != "" {
		// Only a fork's pull request has the setting; its author may
		// withdraw it (or grant it) at any time.
		p.MaintainerCanModify = *in.MaintainerCanModify
	}
	p.UpdatedAt = c.s.now()
	writeJSON(c.w, 200, c.pullJSON(p, true))
}

// pullUpdate is the body of a pull request edit: the fields it sets.
type pullUpdate struct {
	Title, Body, State, Base *string
	MaintainerCanModify      *bool `json:"maintainer_can_modify"`
}

// updateRefusal is the field, error code and message of an edit of p
// GitHub refuses: a state that is neither open nor closed, a reopening
// GitHub refuses (reopenRefusal) or a base branch that does not exist;
// field is "" for an edit it takes.
func (c *ctx) updateRefusal(p *pull, in pullUpdate) (field, code, why string) {
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return "state", "invalid", "state must be open or closed"
	}
	if in.State != nil && *in.State == "open" && p.State == "closed" {
		if why := c.reopenRefusal(p); why != "" {
			return "state", "custom", why
		}
	}
	if in.Base != nil {
		if bs, _ := c.git.branches(); bs[*in.Base] == "" {
			return "base", "invalid", "Proposed base branch '" + *in.Base + "' was not found"
		}
	}
	return "", "", ""
}

// setPullState closes or reopens p, which is not merged. A reopened pull
// request takes its head branch's commit: the head may have moved on (a
// fast-forward) while it was closed.
func (c *ctx) setPullState(p *pull, state string) {
	switch state {
	case "closed":
		if p.State == "open" {
			now := c.s.now()
			p.State, p.ClosedAt = "closed", &now
		}
	case "open":
		if p.State == "closed" {
			bs, _ := c.git.branches()
			if bs = c.pullView(p, bs); bs[p.Head] != "" {
				p.HeadSHA = bs[p.Head]
				c.pullRef(p)
			}
			c.s.dirty = true
		}
		p.State, p.ClosedAt = "open", nil
	}
}

// reopenRefusal says why GitHub refuses to reopen a closed pull request,
// "" when it may be reopened: a merged one never is, nor one whose head
// branch was deleted or force-pushed (its head is no longer the commit the
// pull request had or a descendant of it).
func (c *ctx) reopenRefusal(p *pull) string {
	if p.Merged {
		return "state cannot be changed. The pull request has already been merged."
	}
	bs, _ := c.git.branches()
	head, ok := c.pullView(p, bs)[p.Head]
	if ok && p.HeadRepo != "" {
		c.pullRefAt(p, head)
	}
	switch {
	case !ok:
		return "state cannot be changed. The " + p.Head + " branch has been deleted."
	case head != p.HeadSHA && !c.git.isAncestor(p.HeadSHA, head):
		return "state cannot be changed. The " + p.Head + " branch was force-pushed or recreated."
	}
	return ""
}

func pullFiles(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	mb, ok := c.git.mergeBase(p.BaseSHA, p.HeadSHA)
	if !ok {
		mb = p.BaseSHA
	}
	files, _ := c.git.diff(mb, p.HeadSHA)
	paginate(c, filesJSON(c.full, c.s.url, files))
}

func mergePull(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	var in struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	// Every field is optional, and GitHub merges on an empty body too
	// (curl -X PUT …/merge).
	if !c.decodeOptional(&in) {
		return
	}
	tree, ok := c.mergeRefusal(p, in.SHA, in.MergeMethod)
	if !ok {
		return
	}
	title := in.CommitTitle
	if title == "" {
		title = "Merge pull request #" + strconv.Itoa(p.Number) + " from " + c.headOwner(p) + "/" + p.Head
	}
	msg := title
	if in.CommitMessage != "" {
		msg += "\n\n" + in.CommitMessage
	}
	parents := []string{p.BaseSHA, p.HeadSHA}
	if in.MergeMethod == "squash" {
		parents = parents[:1]
	}
	sha, err := c.git.commitTree(tree, parents, msg, c.login, c.s.now())
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	if err := c.git.updateRef(p.Base, sha, p.BaseSHA); err != nil {
		writeError(c.w, 409, "Base branch was modified. Review and try the merge again.")
		return
	}
	now := c.s.now()
	p.State, p.Merged, p.MergedAt, p.ClosedAt, p.MergeCommitSHA, p.MergedBy, p.UpdatedAt = "closed", true, &now, &now, sha, c.login, now
	writeJSON(c.w, 200, map[string]any{"sha": sha, "merged": true, "message": "Pull Request successfully merged"})
}

func (c *ctx) reviewJSON(rv *review) reviewJSON {
	return reviewJSON{ID: rv.ID, NodeID: "PRR_" + strconv.FormatInt(rv.ID, 10), User: c.s.user(rv.User), Body: rv.Body, State: rv.State,
		HTMLURL:        c.s.url + "/" + c.full + "/pull/" + strconv.Itoa(rv.Number) + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10),
		PullRequestURL: c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(rv.Number), CommitID: rv.CommitID,
		SubmittedAt: rv.SubmittedAt, AuthorAssociation: "MEMBER",
		Links: map[string]map[string]string{"html": {"href": c.s.url + "/" + c.full + "/pull/" + strconv.Itoa(rv.Number) + "#pullrequestreview-" + strconv.FormatInt(rv.ID, 10)},
			"pull_request": {"href": c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(rv.Number)}}}
}

func listReviews(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	out := []reviewJSON{}
	for _, rv := range c.repo.Reviews {
		if rv.Number == p.Number && (rv.State != "PENDING" || rv.User == c.login) {
			out = append(out, c.reviewJSON(rv))
		}
	}
	paginate(c, out)
}

func createReview(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	var in struct {
		Body     string `json:"body"`
		Event    string `json:"event"`
		CommitID string `json:"commit_id"`
		Comments []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
			Body string `json:"body"`
		} `json:"comments"`
	}
	if !c.decode(&in) {
		return
	}
	state := map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED", "": "PENDING"}[in.Event]
	if state == "" {
		c.invalidSimple("event must be APPROVE, REQUEST_CHANGES or COMMENT")
		return
	}
	if (state == "APPROVED" || state == "CHANGES_REQUESTED") && c.login == p.User {
		writeJSON(c.w, 422, map[string]any{"message": "Unprocessable Entity", "errors": []string{"Can not approve your own pull request"}, "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"})
		return
	}
	if (state == "CHANGES_REQUESTED" || state == "COMMENTED") && in.Body == "" && len(in.Comments) == 0 {
		c.invalidSimple("Review body is required for this event")
		return
	}
	commit := p.HeadSHA
	if in.CommitID != "" {
		sha, ok := c.git.resolve(in.CommitID)
		if !ok || !c.inPull(p, sha) {
			c.invalidField("PullRequestReview", "commit_id", "invalid", "commit_id is not part of the pull request")
			return
		}
		commit = sha
	}
	for _, cm := range in.Comments {
		if msg := c.offDiff(p, commit, cm.Path, cm.Line); msg != "" {
			c.invalidSimple(msg)
			return
		}
	}
	now := c.s.now()
	rv := &review{ID: c.s.id(), Number: p.Number, User: c.login, Body: in.Body, State: state, CommitID: commit}
	if state != "PENDING" {
		rv.SubmittedAt = &now
	}
	c.repo.Reviews = append(c.repo.Reviews, rv)
	for _, cm := range in.Comments {
		c.repo.ReviewCmts = append(c.repo.ReviewCmts, &reviewComment{ID: c.s.id(), Number: p.Number, ReviewID: rv.ID, User: c.login,
			Body: cm.Body, Path: cm.Path, Line: cm.Line, CommitID: commit, CreatedAt: now, UpdatedAt: now})
	}
	p.UpdatedAt = now
	writeJSON(c.w, 200, c.reviewJSON(rv))
}

func dismissReview(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	var in struct {
		Message *string `json:"message"`
		Event   string  `json:"event"`
	}
	if !c.decode(&in) {
		return
	}
	if in.Message == nil || *in.Message == "" {
		c.invalidSimple("message is missing")
		return
	}
	for _, rv := range c.repo.Reviews {
		if rv.ID == id && rv.Number == p.Number {
			if rv.State != "APPROVED" && rv.State != "CHANGES_REQUESTED" && rv.State != "DISMISSED" {
				writeError(c.w, 422, "Can not dismiss a "+strings.ToLower(rv.State)+" pull request review")
				return
			}
			rv.State = "DISMISSED"
			p.UpdatedAt = c.s.now()
			writeJSON(c.w, 200, c.reviewJSON(rv))
			return
		}
	}
	writeError(c.w, 404, "Not Found")
}

// sinceFilter parses GitHub's `since` (updated at or after).
func (c *ctx) sinceFilter() (time.Time, bool) {
	v := c.r.URL.Query().Get("since")
	if v == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, v)
	return t, err == nil
}

func (c *ctx) reviewCommentJSON(rc *reviewComment) commentJSON {
	line, rid := rc.Line, rc.ReviewID
	return commentJSON{ID: rc.ID, NodeID: "PRRC_" + strconv.FormatInt(rc.ID, 10), URL: c.s.url + "/api/v3/repos/" + c.full + "/pulls/comments/" + strconv.FormatInt(rc.ID, 10),
		HTMLURL: c.s.url + "/" + c.full + "/pull/" + strconv.Itoa(rc.Number) + "#discussion_r" + strconv.FormatInt(rc.ID, 10), Body: rc.Body, User: c.s.user(rc.User),
		CreatedAt: rc.CreatedAt, UpdatedAt: rc.UpdatedAt, AuthorAssociation: "MEMBER", PullRequestReviewID: &rid, Path: rc.Path, Line: &line, OriginalLine: &line,
		CommitID: rc.CommitID, OriginalCommitID: rc.CommitID, DiffHunk: "@@ -1 +1 @@", PullRequestURL: c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(rc.Number),
		Side: "RIGHT", Links: map[string]map[string]string{"self": {"href": c.s.url + "/api/v3/repos/" + c.full + "/pulls/comments/" + strconv.FormatInt(rc.ID, 10)},
			"html":         {"href": c.s.url + "/" + c.full + "/pull/" + strconv.Itoa(rc.Number) + "#discussion_r" + strconv.FormatInt(rc.ID, 10)},
			"pull_request": {"href": c.s.url + "/api/v3/repos/" + c.full + "/pulls/" + strconv.Itoa(rc.Number)}}}
}

func listReviewComments(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	since, filter := c.sinceFilter()
	out := []commentJSON{}
	for _, rc := range c.repo.ReviewCmts {
		if rc.Number == p.Number && (!filter || !rc.UpdatedAt.Before(since)) {
			out = append(out, c.reviewCommentJSON(rc))
		}
	}
	paginate(c, out)
}

func createReviewComment(c *ctx) {
	c.sync()
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	var in struct {
		Body     string `json:"body"`
		Path     string `json:"path"`
		Line     int    `json:"line"`
		CommitID string `json:"commit_id"`
	}
	if !c.decode(&in) {
		return
	}
	switch {
	case in.Body == "":
		c.invalidField("PullRequestReviewComment", "body", "missing_field", "")
		return
	case in.CommitID == "":
		c.invalidField("PullRequestReviewComment", "commit_id", "missing_field", "")
		return
	case in.Path == "":
		c.invalidField("PullRequestReviewComment", "path", "missing_field", "")
		return
	}
	commit, ok := c.git.resolve(in.CommitID)
	if !ok || !c.inPull(p, commit) {
		c.invalidField("PullRequestReviewComment", "commit_id", "invalid", "commit_id is not part of the pull request")
		return
	}
	if msg := c.offDiff(p, commit, in.Path, in.Line); msg != "" {
		c.invalidField("PullRequestReviewComment", "pull_request_review_thread.line", "custom", msg)
		return
	}
	now := c.s.now()
	rv := &review{ID: c.s.id(), Number: p.Number, User: c.login, State: "COMMENTED", CommitID: commit, SubmittedAt: &now}
	c.repo.Reviews = append(c.repo.Reviews, rv)
	rc := &reviewComment{ID: c.s.id(), Number: p.Number, ReviewID: rv.ID, User: c.login, Body: in.Body, Path: in.Path, Line: in.Line, CommitID: commit, CreatedAt: now, UpdatedAt: now}
	c.repo.ReviewCmts = append(c.repo.ReviewCmts, rc)
	p.UpdatedAt = now
	c.location(c.reviewCommentJSON(rc).URL)
	writeJSON(c.w, 201, c.reviewCommentJSON(rc))
}

func (c *ctx) issueCommentJSON(ic *issueComment) commentJSON {
	return commentJSON{ID: ic.ID, NodeID: "IC_" + strconv.FormatInt(ic.ID, 10), URL: c.s.url + "/api/v3/repos/" + c.full + "/issues/comments/" + strconv.FormatInt(ic.ID, 10),
		HTMLURL:  c.s.url + "/" + c.full + "/" + c.conversationPath(ic.Number) + "/" + strconv.Itoa(ic.Number) + "#issuecomment-" + strconv.FormatInt(ic.ID, 10),
		IssueURL: c.s.url + "/api/v3/repos/" + c.full + "/issues/" + strconv.Itoa(ic.Number), Body: ic.Body, User: c.s.user(ic.User),
		CreatedAt: ic.CreatedAt, UpdatedAt: ic.UpdatedAt, AuthorAssociation: "MEMBER"}
}

func listIssueComments(c *ctx) {
	number, _, ok := c.conversation()
	if !ok {
		return
	}
	since, filter := c.sinceFilter()
	out := []commentJSON{}
	for _, ic := range c.repo.Comments {
		if ic.Number == number && (!filter || !ic.UpdatedAt.Before(since)) {
			out = append(out, c.issueCommentJSON(ic))
		}
	}
	paginate(c, out)
}

func createIssueComment(c *ctx) {
	number, touch, ok := c.conversation()
	if !ok {
		return
	}
	var in struct{ Body string }
	if !c.decode(&in) {
		return
	}
	if in.Body == "" {
		c.invalidField("IssueComment", "body", "missing_field", "")
		return
	}
	now := c.s.now()
	ic := &issueComment{ID: c.s.id(), Number: number, User: c.login, Body: in.Body, CreatedAt: now, UpdatedAt: now}
	c.repo.Comments = append(c.repo.Comments, ic)
	touch(now)
	j := c.issueCommentJSON(ic)
	c.location(j.URL)
	writeJSON(c.w, 201, j)
}

func updateIssueComment(c *ctx) {
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	var in struct{ Body string }
	if !c.decode(&in) {
		return
	}
	if in.Body == "" {
		c.invalidField("IssueComment", "body", "missing_field", "")
		return
	}
	for _, ic := range c.repo.Comments {
		if ic.ID == id {
			if ic.User != c.login {
				writeError(c.w, 403, "Must have admin rights to Repository.")
				return
			}
			ic.Body, ic.UpdatedAt = in.Body, c.s.now()
			writeJSON(c.w, 200, c.issueCommentJSON(ic))
			return
		}
	}
	writeError(c.w, 404, "Not Found")
}

// deleteIssueComment removes a comment its author deletes (204, as
// GitHub answers); another user's is refused as updateIssueComment's is.
func deleteIssueComment(c *ctx) {
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	for i, ic := range c.repo.Comments {
		if ic.ID == id {
			if ic.User != c.login {
				writeError(c.w, 403, "Must have admin rights to Repository.")
				return
			}
			c.repo.Comments = append(c.repo.Comments[:i:i], c.repo.Comments[i+1:]...)
			c.w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	writeError(c.w, 404, "Not Found")
}

// labelNames reads the labels of an add-labels body in the shapes GitHub
// documents: ["a"], {"labels": ["a"]}, [{"name": "a"}] and
// {"labels": [{"name": "a"}]}.
func labelNames(body []byte) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(body, &items) != nil {
		var obj struct{ Labels []json.RawMessage }
		if json.Unmarshal(body, &obj) != nil {
			return nil, false
		}
		items = obj.Labels
	}
	names := make([]string, 0, len(items))
	for _, it := range items {
		var name string
		if json.Unmarshal(it, &name) != nil {
			var obj struct{ Name string }
			if json.Unmarshal(it, &obj) != nil {
				return nil, false
			}
			name = obj.Name
		}
		names = append(names, name)
	}
	return names, true
}

// labelName returns the repository's spelling of a label name, or name
// when the repository has no label of that name in any case.
func (r *repo) labelName(name string) string {
	if _, ok := r.LabelIDs[name]; ok {
		return name
	}
	for have := range r.LabelIDs {
		if strings.EqualFold(have, name) {
			return have
		}
	}
	return name
}

func (c *ctx) labelsOf(n int) []labelJSON {
	out := []labelJSON{}
	for _, l := range c.repo.Labels[strconv.Itoa(n)] {
		out = append(out, c.s.labelJSON(c.repo, l))
	}
	return out
}

func listLabels(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	paginate(c, c.labelsOf(p.Number))
}

func addLabels(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	body, _ := io.ReadAll(io.LimitReader(c.r.Body, 1<<20))
	names, ok := labelNames(body)
	if !ok {
		writeError(c.w, 400, "Problems parsing JSON")
		return
	}
	if len(names) == 0 {
		c.invalidField("Label", "labels", "missing_field", "labels must name at least one label")
		return
	}
	key := strconv.Itoa(p.Number)
	for _, n := range names {
		if n == "" {
			c.invalidField("Label", "name", "missing_field", "")
			return
		}
		// One label per name in any case: an existing label keeps its
		// spelling, as on GitHub.
		n = c.repo.labelName(n)
		found := false
		for _, have := range c.repo.Labels[key] {
			found = found || strings.EqualFold(have, n)
		}
		if !found {
			c.repo.Labels[key] = append(c.repo.Labels[key], n)
		}
	}
	p.UpdatedAt = c.s.now()
	writeJSON(c.w, 200, c.labelsOf(p.Number))
}

func removeLabel(c *ctx) {
	p, ok := c.pullNumber()
	if !ok {
		return
	}
	key, name := strconv.Itoa(p.Number), c.r.PathValue("name")
	ls := c.repo.Labels[key]
	for i, l := range ls {
		if strings.EqualFold(l, name) {
			c.repo.Labels[key] = append(ls[:i:i], ls[i+1:]...)
			p.UpdatedAt = c.s.now()
			writeJSON(c.w, 200, c.labelsOf(p.Number))
			return
		}
	}
	writeJSON(c.w, 404, map[string]string{"message": "Label does not exist", "documentation_url": "https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue"})
}

func (c *ctx) statusJSON(st *commitStatus) statusJSON {
	d, t := st.Description, st.TargetURL
	avatar := c.s.url + "/avatars/" + st.Creator
	j := statusJSON{AvatarURL: &avatar, ID: st.ID, NodeID: "SC_" + strconv.FormatInt(st.ID, 10), URL: c.s.url + "/api/v3/repos/" + c.full + "/statuses/" + st.SHA,
		State: st.State, Context: st.Context, CreatedAt: st.CreatedAt, UpdatedAt: st.CreatedAt, Creator: c.s.user(st.Creator)}
	if d != "" {
		j.Description = &d
	}
	if t != "" {
		j.TargetURL = &t
	}
	return j
}

// statusesFor returns a commit's statuses, newest first; latest keeps only
// the newest per context, as the combined status does.
func (c *ctx) statusesFor(sha string, latest bool) []statusJSON {
	out := []statusJSON{}
	seen := map[string]bool{}
	for i := len(c.repo.Statuses) - 1; i >= 0; i-- {
		st := c.repo.Statuses[i]
		// Contexts are one per name in any case, as on GitHub: "CI"
		// replaces "ci".
		if st.SHA != sha || (latest && seen[strings.ToLower(st.Context)]) {
			continue
		}
		seen[strings.ToLower(st.Context)] = true
		out = append(out, c.statusJSON(st))
	}
	return out
}

func (c *ctx) combinedStatus(sha string) {
	sts := c.statusesFor(sha, true)
	state := "success"
	if len(sts) == 0 {
		state = "pending"
	}
	for _, st := range sts {
		switch st.State {
		case "failure", "error":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
	}
	writeJSON(c.w, 200, map[string]any{"state": state, "statuses": pageOf(c, sts, 100, 100), "sha": sha, "total_count": len(sts),
		"url":        c.s.url + "/api/v3/repos/" + c.full + "/commits/" + sha + "/status",
		"repository": c.s.minimalRepoJSON(c.repo), "commit_url": c.s.url + "/api/v3/repos/" + c.full + "/commits/" + sha})
}

func createStatus(c *ctx) {
	sha, ok := c.git.resolve(c.r.PathValue("sha"))
	if !ok {
		writeError(c.w, 422, "No commit found for SHA: "+c.r.PathValue("sha"))
		return
	}
	var in struct {
		State       string `json:"state"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	if !c.decode(&in) {
		return
	}
	switch in.State {
	case "error", "failure", "pending", "success":
	default:
		c.invalidField("Status", "state", "invalid", "")
		return
	}
	if in.Context == "" {
		in.Context = "default"
	}
	st := &commitStatus{ID: c.s.id(), SHA: sha, State: in.State, Context: in.Context, Description: in.Description, TargetURL: in.TargetURL, Creator: c.login, CreatedAt: c.s.now()}
	c.repo.Statuses = append(c.repo.Statuses, st)
	c.location(c.statusJSON(st).URL)
	writeJSON(c.w, 201, c.statusJSON(st))
}

func (c *ctx) checkRunJSON(cr *checkRun) checkRunJSON {
	j := checkRunJSON{ID: cr.ID, NodeID: "CR_" + strconv.FormatInt(cr.ID, 10), HeadSHA: cr.HeadSHA, URL: c.s.url + "/api/v3/repos/" + c.full + "/check-runs/" + strconv.FormatInt(cr.ID, 10),
		HTMLURL: c.s.url + "/" + c.full + "/runs/" + strconv.FormatInt(cr.ID, 10), DetailsURL: cr.DetailsURL, Status: cr.Status, StartedAt: cr.StartedAt,
		CompletedAt: cr.CompletedAt, Name: cr.Name, App: c.s.actionsApp(),
		CheckSuite: map[string]any{"id": cr.ID}, PullRequests: []any{},
		Output: c.outputJSON(cr)}
	if cr.Conclusion != "" {
		cc := cr.Conclusion
		j.Conclusion = &cc
	}
	return j
}

func createCheckRun(c *ctx) {
	var in struct {
		Name       string       `json:"name"`
		HeadSHA    string       `json:"head_sha"`
		Status     string       `json:"status"`
		Conclusion string       `json:"conclusion"`
		DetailsURL string       `json:"details_url"`
		Output     *checkOutput `json:"output"`
	}
	if !c.decode(&in) {
		return
	}
	sha, ok := c.git.resolve(in.HeadSHA)
	if !ok || in.Name == "" {
		c.invalidField("CheckRun", "head_sha", "invalid", "name and an existing head_sha are required")
		return
	}
	cr := &checkRun{ID: c.s.id(), HeadSHA: sha, Name: in.Name, Status: in.Status, DetailsURL: in.DetailsURL, StartedAt: c.s.now(), Output: in.Output}
	if !c.setCheck(cr, in.Status, in.Conclusion) {
		return
	}
	c.repo.CheckRuns = append(c.repo.CheckRuns, cr)
	j := c.checkRunJSON(cr)
	c.location(j.URL)
	writeJSON(c.w, 201, j)
}

func (c *ctx) setCheck(cr *checkRun, status, conclusion string) bool {
	if status == "" {
		status = "queued"
	}
	if conclusion != "" {
		status = "completed"
	}
	switch status {
	case "queued", "in_progress", "completed":
	case "waiting", "requested", "pending":
		// Documented: only GitHub Actions sets these, never a token.
		c.invalidField("CheckRun", "status", "invalid", "Only GitHub Actions can set a status of waiting, pending, or requested.")
		return false
	default:
		c.invalidField("CheckRun", "status", "invalid", "")
		return false
	}
	cr.Status, cr.Conclusion = status, conclusion
	if status == "completed" {
		if conclusion == "" {
			c.invalidField("CheckRun", "conclusion", "missing_field", "conclusion is required when status is completed")
			return false
		}
		now := c.s.now()
		cr.CompletedAt = &now
	}
	return true
}

func updateCheckRun(c *ctx) {
	id, _ := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	var in struct {
		Status     string       `json:"status"`
		Conclusion string       `json:"conclusion"`
		Output     *checkOutput `json:"output"`
	}
	if !c.decode(&in) {
		return
	}
	for _, cr := range c.repo.CheckRuns {
		if cr.ID == id {
			if !c.setCheck(cr, in.Status, in.Conclusion) {
				return
			}
			if in.Output != nil {
				cr.Output = in.Output
			}
			writeJSON(c.w, 200, c.checkRunJSON(cr))
			return
		}
	}
	writeError(c.w, 404, "Not Found")
}
