package ghstandin

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds the routes and rules that make the stand-in answer as
// GitHub documents: repository rules, contents, matching refs, check-run
// filters and workflow dispatch validated against the workflow file.

func (s *Server) fidelityRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("GET "+r+"/rules/branches/{branch...}", s.handle(true, branchRules))
	mux.HandleFunc("GET "+r+"/contents/{path...}", s.handle(true, getContents))
	mux.HandleFunc("GET "+r+"/git/matching-refs/{ref...}", s.handle(true, matchingRefs))
	mux.HandleFunc("POST "+r+"/actions/workflows/{id}/dispatches", s.handle(true, dispatchWorkflow))
	mux.HandleFunc("GET "+r+"/actions/runs", s.handle(true, listWorkflowRuns))
}

// ruleJSON is one rule of GET /repos/{o}/{r}/rules/branches/{branch}.
type ruleJSON struct {
	Type              string         `json:"type"`
	Parameters        map[string]any `json:"parameters,omitempty"`
	RulesetSourceType string         `json:"ruleset_source_type"`
	RulesetSource     string         `json:"ruleset_source"`
	RulesetID         int64          `json:"ruleset_id"`
}

// branchRules answers the rules that apply to a branch. Any reader may
// query it, unlike branch protection; only rulesets appear here, as on
// GitHub, where classic branch protection is not a rule.
func branchRules(c *ctx) {
	out := []ruleJSON{}
	if p := c.repo.Protection[c.r.PathValue("branch")]; p != nil && p.Ruleset {
		rule := func(typ string, params map[string]any) {
			out = append(out, ruleJSON{Type: typ, Parameters: params, RulesetSourceType: "Repository", RulesetSource: c.full, RulesetID: c.repo.ID})
		}
		if !p.AllowForcePushes {
			rule("deletion", nil)
			rule("non_fast_forward", nil)
		}
		if p.RequiredReviews > 0 {
			rule("pull_request", map[string]any{"dismiss_stale_reviews_on_push": false, "require_code_owner_review": false,
				"require_last_push_approval": false, "required_approving_review_count": p.RequiredReviews, "required_review_thread_resolution": false})
		}
		if len(p.RequiredContexts) > 0 {
			checks := []map[string]string{}
			for _, name := range p.RequiredContexts {
				checks = append(checks, map[string]string{"context": name})
			}
			rule("required_status_checks", map[string]any{"required_status_checks": checks, "strict_required_status_checks_policy": p.Strict})
		}
	}
	paginate(c, out)
}

// branchProtection answers GET /repos/{o}/{r}/branches/{b}/protection:
// classic protection, readable by administrators only (everyone else gets
// 404, as if the branch were unprotected); a ruleset is not classic
// protection.
func (c *ctx) branchProtection(branch string) {
	p := c.repo.Protection[branch]
	if c.s.roleOf(c.repo, c.login) != RoleAdmin {
		writeError(c.w, 404, "Not Found")
		return
	}
	if p == nil || p.Ruleset {
		writeError(c.w, 404, "Branch not protected")
		return
	}
	u := c.s.url + "/api/v3/repos/" + c.full + "/branches/" + branch + "/protection"
	enabled := func(b bool) map[string]bool { return map[string]bool{"enabled": b} }
	j := map[string]any{
		"url":                              u,
		"enforce_admins":                   map[string]any{"url": u + "/enforce_admins", "enabled": p.EnforceAdmins},
		"required_signatures":              map[string]any{"url": u + "/required_signatures", "enabled": false},
		"allow_force_pushes":               enabled(p.AllowForcePushes),
		"allow_deletions":                  enabled(p.AllowForcePushes),
		"required_linear_history":          enabled(false),
		"required_conversation_resolution": enabled(false),
		"block_creations":                  enabled(false),
		"lock_branch":                      enabled(false),
		"allow_fork_syncing":               enabled(false),
	}
	if len(p.RequiredContexts) > 0 {
		checks := []map[string]any{}
		for _, name := range p.RequiredContexts {
			checks = append(checks, map[string]any{"context": name, "app_id": nil})
		}
		j["required_status_checks"] = map[string]any{"url": u + "/required_status_checks", "contexts_url": u + "/required_status_checks/contexts",
			"strict": p.Strict, "contexts": p.RequiredContexts, "checks": checks, "enforcement_level": "non_admins"}
	}
	if p.RequiredReviews > 0 {
		j["required_pull_request_reviews"] = map[string]any{"url": u + "/required_pull_request_reviews", "dismiss_stale_reviews": false,
			"require_code_owner_reviews": false, "required_approving_review_count": p.RequiredReviews, "require_last_push_approval": false}
	}
	writeJSON(c.w, 200, j)
}

// contentJSON is one entry of GET /repos/{o}/{r}/contents/{path}.
type contentJSON struct {
	Type        string            `json:"type"`
	Encoding    string            `json:"encoding,omitempty"`
	Size        int               `json:"size"`
	Name        string            `json:"name"`
	Path        string            `json:"path"`
	Content     *string           `json:"content,omitempty"`
	SHA         string            `json:"sha"`
	URL         string            `json:"url"`
	GitURL      *string           `json:"git_url"`
	HTMLURL     *string           `json:"html_url"`
	DownloadURL *string           `json:"download_url"`
	Links       map[string]string `json:"_links"`
}

func (c *ctx) contentOf(ref string, e treeEntry) contentJSON {
	api := c.s.url + "/api/v3/repos/" + c.full
	kind := map[string]string{"blob": "file", "tree": "dir", "commit": "submodule"}[e.Type]
	self := api + "/contents/" + e.Path + "?ref=" + ref
	gitURL := api + "/git/" + e.Type + "s/" + e.SHA
	html := c.s.url + "/" + c.full + "/" + map[bool]string{true: "tree", false: "blob"}[kind == "dir"] + "/" + ref + "/" + e.Path
	j := contentJSON{Type: kind, Size: e.Size, Name: path.Base(e.Path), Path: e.Path, SHA: e.SHA, URL: self, GitURL: &gitURL, HTMLURL: &html,
		Links: map[string]string{"self": self, "git": gitURL, "html": html}}
	if kind == "file" {
		dl := c.s.url + "/" + c.full + "/raw/" + ref + "/" + e.Path
		j.DownloadURL = &dl
	}
	return j
}

// getContents serves a file (base64, as GitHub sends it) or a directory
// listing at ?ref=, the default branch when absent.
func getContents(c *ctx) {
	ref := c.r.URL.Query().Get("ref")
	if ref == "" {
		ref = c.repo.DefaultBranch
	}
	p := strings.Trim(c.r.PathValue("path"), "/")
	commit, ok := c.git.resolve(ref)
	if !ok {
		writeError(c.w, 404, "No commit found for the ref "+ref)
		return
	}
	e, ok := c.git.entry(commit, p)
	if !ok {
		writeError(c.w, 404, "Not Found")
		return
	}
	if e.Type == "tree" {
		entries, err := c.git.list(commit, p)
		if err != nil {
			writeError(c.w, 500, err.Error())
			return
		}
		out := []contentJSON{}
		for _, x := range entries {
			out = append(out, c.contentOf(ref, x))
		}
		writeJSON(c.w, 200, out)
		return
	}
	data, err := c.git.blob(e.SHA)
	if err != nil {
		writeError(c.w, 500, err.Error())
		return
	}
	j := c.contentOf(ref, e)
	enc := base64.StdEncoding.EncodeToString(data)
	// GitHub wraps the base64 at 60 columns.
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}
	b.WriteString(enc + "\n")
	content := b.String()
	j.Content, j.Encoding = &content, "base64"
	writeJSON(c.w, 200, j)
}

// matchingRefs lists the branches whose full name starts with
// refs/<ref>; GitHub matches a prefix, not a path segment.
func matchingRefs(c *ctx) {
	prefix := "refs/" + c.r.PathValue("ref")
	refs, _ := readRefs(c.git.dir)
	var names []string
	for n := range refs {
		// Branches and tags; refs/pull/* is not served here, as on
		// GitHub.
		if (strings.HasPrefix(n, "refs/heads/") || strings.HasPrefix(n, "refs/tags/")) && strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := []map[string]any{}
	for _, n := range names {
		out = append(out, c.fullRefJSON(n, refs[n]))
	}
	paginate(c, out)
}

// workflowInput is one declared workflow_dispatch input.
type workflowInput struct {
	Required bool     `yaml:"required"`
	Default  any      `yaml:"default"`
	Type     string   `yaml:"type"`
	Options  []string `yaml:"options"`
}

// dispatchable reads a workflow file's workflow_dispatch trigger: whether
// it has one and which inputs it declares.
func dispatchable(data []byte) (bool, map[string]workflowInput, error) {
	var wf struct {
		On yaml.Node `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return false, nil, err
	}
	on := wf.On
	switch on.Kind {
	case yaml.ScalarNode:
		return on.Value == "workflow_dispatch", nil, nil
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if n.Value == "workflow_dispatch" {
				return true, nil, nil
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(on.Content); i += 2 {
			if on.Content[i].Value != "workflow_dispatch" {
				continue
			}
			var trig struct {
				Inputs map[string]workflowInput `yaml:"inputs"`
			}
			if err := on.Content[i+1].Decode(&trig); err != nil {
				return true, nil, err
			}
			return true, trig.Inputs, nil
		}
	}
	return false, nil, nil
}

// dispatchWorkflow validates a dispatch as GitHub does, against the
// workflow file on the requested ref: an unknown workflow is 404; a ref
// that does not exist, a workflow without a workflow_dispatch trigger, an
// input the workflow does not declare or a required input left out is 422.
func dispatchWorkflow(c *ctx) {
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails bool           `json:"return_run_details"`
	}
	if !c.decode(&in) {
		return
	}
	id := c.r.PathValue("id")
	if in.Ref == "" {
		c.invalidField("Workflow", "ref", "missing_field", "ref is missing")
		return
	}
	data, ok := c.workflowFile(id, in.Ref)
	if !ok {
		return
	}
	ok, declared, err := dispatchable(data)
	switch {
	case err != nil:
		writeError(c.w, 422, "Invalid workflow file: "+err.Error())
		return
	case !ok:
		writeError(c.w, 422, "Workflow does not have 'workflow_dispatch' trigger")
		return
	case len(in.Inputs) > 25:
		writeError(c.w, 422, "Too many inputs: a dispatch takes at most 25")
		return
	}
	inputs, refused := dispatchInputs(declared, in.Inputs)
	if refused != "" {
		writeError(c.w, 422, refused)
		return
	}
	c.repo.Dispatches = append(c.repo.Dispatches, &Dispatch{Workflow: id, Ref: in.Ref, Inputs: inputs, At: c.s.now(), Login: c.login})
	if in.ReturnRunDetails {
		run := c.s.id()
		writeJSON(c.w, 200, map[string]any{"workflow_run_id": run, "run_url": fmt.Sprintf("%s/api/v3/repos/%s/actions/runs/%d", c.s.url, c.full, run),
			"html_url": fmt.Sprintf("%s/%s/actions/runs/%d", c.s.url, c.full, run)})
		return
	}
	c.w.WriteHeader(204)
}

// workflowFile is the workflow file id on ref; when there is none it
// answers 404, or 422 when the ref itself does not exist, and reads false.
func (c *ctx) workflowFile(id, ref string) ([]byte, bool) {
	if _, err := strconv.ParseInt(id, 10, 64); err == nil || strings.Contains(id, "/") || strings.HasPrefix(ref, "-") || strings.Contains(ref, ":") {
		// The stand-in registers workflows by file name only.
		writeError(c.w, 404, "Not Found")
		return nil, false
	}
	// One git call on the common path: the file at ref. Only when it
	// fails does the ref itself decide between 422 and 404.
	data, err := c.git.blob(ref + ":.github/workflows/" + id)
	if err == nil {
		return data, true
	}
	if _, ok := c.git.resolve(ref); !ok {
		writeError(c.w, 422, "No ref found for: "+ref)
		return nil, false
	}
	writeError(c.w, 404, "Not Found")
	return nil, false
}

// dispatchInputs checks a dispatch's inputs given against the inputs the
// workflow declares, as GitHub does, and returns them as strings; refused
// is GitHub's message when it refuses them (422), "" otherwise.
func dispatchInputs(declared map[string]workflowInput, given map[string]any) (inputs map[string]string, refused string) {
	var unexpected []string
	for name := range given {
		if _, ok := declared[name]; !ok {
			unexpected = append(unexpected, strconv.Quote(name))
		}
	}
	if len(unexpected) > 0 {
		sort.Strings(unexpected)
		return nil, "Unexpected inputs provided: [" + strings.Join(unexpected, ", ") + "]"
	}
	inputs = map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		d := declared[name]
		v, ok := given[name]
		if !ok {
			if d.Required && d.Default == nil {
				return nil, "Required input '" + name + "' not provided"
			}
			continue
		}
		s := fmt.Sprint(v)
		if !d.allows(s) {
			return nil, "Provided value '" + s + "' for input '" + name + "' not in the list of allowed values"
		}
		inputs[name] = s
	}
	return inputs, ""
}

// allows reports whether the input takes the value s: a boolean takes
// true or false, a choice one of its options, any other type anything.
func (d workflowInput) allows(s string) bool {
	switch d.Type {
	case "boolean":
		return s == "true" || s == "false"
	case "choice":
		return slices.Contains(d.Options, s)
	}
	return true
}

// invalidField answers 422 Validation Failed naming one field, the shape
// GitHub uses for request validation.
func (c *ctx) invalidField(resource, field, code, msg string) {
	e := map[string]string{"resource": resource, "code": code}
	if field != "" {
		e["field"] = field
	}
	if msg != "" {
		e["message"] = msg
	}
	writeJSON(c.w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{e},
		"documentation_url": "https://docs.github.com/rest"})
}

// latestRuns keeps the newest check run per name, which is what GitHub's
// filter=latest (the default) returns: a re-run hides the run it replaces.
func latestRuns(runs []*checkRun) []*checkRun {
	seen := map[string]bool{}
	var out []*checkRun
	for i := len(runs) - 1; i >= 0; i-- {
		if !seen[runs[i].Name] {
			seen[runs[i].Name] = true
			out = append(out, runs[i])
		}
	}
	// Back to creation order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// runsOf returns a commit's check runs, the latest per name.
func (c *ctx) runsOf(sha string) []*checkRun {
	var runs []*checkRun
	for _, cr := range c.repo.CheckRuns {
		if cr.HeadSHA == sha {
			runs = append(runs, cr)
		}
	}
	return latestRuns(runs)
}

// checkRuns answers GET /commits/{ref}/check-runs with GitHub's filters
// (filter=latest by default or all, check_name, status) and pagination;
// total_count counts every match, not the page.
func (c *ctx) checkRuns(sha string) {
	q := c.r.URL.Query()
	var runs []*checkRun
	for _, cr := range c.repo.CheckRuns {
		if cr.HeadSHA == sha {
			runs = append(runs, cr)
		}
	}
	switch q.Get("filter") {
	case "", "latest":
		runs = latestRuns(runs)
	case "all":
	default:
		c.invalidField("CheckRun", "filter", "invalid", "filter must be latest or all")
		return
	}
	var out []checkRunJSON
	for _, cr := range runs {
		if n := q.Get("check_name"); n != "" && cr.Name != n {
			continue
		}
		if st := q.Get("status"); st != "" && cr.Status != st {
			continue
		}
		out = append(out, c.checkRunJSON(cr))
	}
	page := pageOf(c, out, 30, 100)
	writeJSON(c.w, 200, map[string]any{"total_count": len(out), "check_runs": page})
}

// location sets the Location header of a 201 to the created resource.
func (c *ctx) location(u string) { c.w.Header().Set("Location", u) }

// lookupRepo finds a repository by owner/name regardless of case, as
// GitHub does, and returns its canonical full name.
func (s *Server) lookupRepo(full string) (string, *repo) {
	if r := s.st.Repos[full]; r != nil {
		return full, r
	}
	for name, r := range s.st.Repos {
		if strings.EqualFold(name, full) {
			return name, r
		}
	}
	return full, nil
}

// mergeRefusal applies GitHub's checks before a merge, in GitHub's order,
// and answers the refusal itself; it returns the merged tree when the
// merge may go ahead.
func (c *ctx) mergeRefusal(p *pull, sha, method string) (string, bool) {
	switch method {
	case "", "merge", "squash":
	case "rebase":
		// The stand-in's repositories allow merge commits and squash
		// merges only, as a repository can be configured on GitHub.
		writeError(c.w, 405, "Rebase merges are not allowed on this repository.")
		return "", false
	default:
		c.invalidField("PullRequest", "merge_method", "invalid", "merge_method must be merge, squash or rebase")
		return "", false
	}
	if p.State != "open" {
		writeError(c.w, 405, "Pull Request is not mergeable")
		return "", false
	}
	if sha != "" && sha != p.HeadSHA {
		writeError(c.w, 409, "Head branch was modified. Review and try the merge again.")
		return "", false
	}
	if p.Draft {
		writeError(c.w, 405, "Pull Request is still a draft")
		return "", false
	}
	tree, conflict, err := c.git.mergeTree(p.BaseSHA, p.HeadSHA)
	if err != nil || conflict {
		writeError(c.w, 405, "Pull Request is not mergeable")
		return "", false
	}
	if prot := c.repo.Protection[p.Base]; prot != nil {
		if why := c.reviewsMissing(p, prot); why != "" {
			writeError(c.w, 405, why)
			return "", false
		}
		if !c.requiredPass(p.HeadSHA, prot.RequiredContexts) {
			writeError(c.w, 405, "Required status checks have not succeeded.")
			return "", false
		}
		if prot.Strict && !c.git.isAncestor(p.BaseSHA, p.HeadSHA) {
			writeError(c.w, 405, "Head branch is out of date. Review and try the merge again.")
			return "", false
		}
	}
	return tree, true
}

// offDiff says why an inline comment cannot go on path:line of the pull
// request's diff at commit, "" when it can: GitHub only places comments on
// lines of the diff's hunks (the new side).
func (c *ctx) offDiff(p *pull, commit, file string, line int) string {
	mb, ok := c.git.mergeBase(p.BaseSHA, commit)
	if !ok {
		return "Path could not be resolved"
	}
	hunks, err := c.git.hunks(mb, commit, file)
	if err != nil || hunks == nil {
		return "Path could not be resolved"
	}
	for _, h := range hunks {
		if line >= h[0] && line < h[0]+h[1] {
			return ""
		}
	}
	return "Line could not be resolved"
}

// invalidSimple answers 422 with errors as plain strings, the
// validation-error-simple shape GitHub uses on the review routes.
func (c *ctx) invalidSimple(msg string) {
	writeJSON(c.w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity", "errors": []string{msg},
		"documentation_url": "https://docs.github.com/rest/pulls/reviews"})
}

// PutFile commits content at path on a repository's branch, as a push or
// GitHub's contents API would: tests and the sandbox use it to place a
// workflow file the dispatch validation reads.
func (s *Server) PutFile(fullName, branch, path, content string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	full, r := s.lookupRepo(fullName)
	if r == nil {
		return fmt.Errorf("ghstandin: no repository %s", fullName)
	}
	g := s.repoGit(full)
	bs, err := g.branches()
	if err != nil {
		return err
	}
	old, ok := bs[branch]
	if !ok {
		return fmt.Errorf("ghstandin: %s has no branch %s", full, branch)
	}
	tree, err := g.withFile(old, path, []byte(content))
	if err != nil {
		return err
	}
	sha, err := g.commitTree(tree, []string{old}, "Update "+path, r.Owner, s.now())
	if err != nil {
		return err
	}
	return g.updateRef(branch, sha, old)
}

// autoState applies the state changes GitHub makes on its own when refs
// move outside the API, and reports whether it changed p: deleting an open
// pull request's head branch closes it, and pushing its head into the base
// (a merge outside GitHub) marks it merged, with the base's new head as
// its merge commit and no merged_by.
func (c *ctx) autoState(p *pull, bs map[string]string) bool {
	now := c.s.now()
	head, ok := bs[p.Head]
	if !ok {
		p.State, p.ClosedAt, p.UpdatedAt = "closed", &now, now
		c.s.dirty = true
		return true
	}
	base, ok := bs[p.Base]
	if !ok || base == p.BaseSHA || !c.git.isAncestor(head, base) {
		return false
	}
	p.HeadSHA = head
	p.State, p.Merged, p.MergedAt, p.ClosedAt, p.MergeCommitSHA, p.UpdatedAt = "closed", true, &now, &now, base, now
	c.s.dirty = true
	return true
}
