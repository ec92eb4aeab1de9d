package ghstandin

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Workflow runs are what GitHub Actions records for a workflow it started
// (or was asked to start). The stand-in runs nothing: tests record runs
// with AddWorkflowRun, for instance the runs GitHub holds for a
// maintainer's approval (status completed, conclusion action_required),
// which create no check run on the head.

// WorkflowRun is one recorded workflow run.
type WorkflowRun struct {
	// ID is assigned by AddWorkflowRun.
	ID int64 `json:"id"`
	// Name is the workflow's name.
	Name string `json:"name"`
	// Path is the workflow file; .github/workflows/ci.yml when empty.
	Path string `json:"path"`
	// HeadSHA is the commit the run is for (a full SHA or any ref the
	// repository resolves).
	HeadSHA string `json:"head_sha"`
	// HeadBranch is the branch the run is for; null in answers when empty.
	HeadBranch string `json:"head_branch,omitempty"`
	// Event is what triggered the run; pull_request when empty.
	Event string `json:"event"`
	// Status is queued, in_progress, completed, waiting, requested or
	// pending; queued when empty, completed when Conclusion is set.
	Status string `json:"status"`
	// Conclusion is the outcome of a completed run, such as success,
	// failure or action_required (held for a maintainer's approval).
	Conclusion string `json:"conclusion,omitempty"`
	// CreatedAt is assigned by AddWorkflowRun from the server's clock.
	CreatedAt time.Time `json:"created_at"`
}

// AddWorkflowRun records a workflow run in a repository and returns its
// id. It fails for an unknown repository, a head that does not resolve to
// a commit, an unknown status, or a completed run without a conclusion.
func (s *Server) AddWorkflowRun(fullName string, run WorkflowRun) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full, r := s.lookupRepo(fullName)
	if r == nil {
		return 0, fmt.Errorf("ghstandin: no repository %s", fullName)
	}
	sha, ok := s.repoGit(full).resolve(run.HeadSHA)
	if !ok {
		return 0, fmt.Errorf("ghstandin: %s: no commit %q", fullName, run.HeadSHA)
	}
	run.HeadSHA = sha
	if run.Path == "" {
		run.Path = ".github/workflows/ci.yml"
	}
	if run.Event == "" {
		run.Event = "pull_request"
	}
	if run.Conclusion != "" {
		run.Status = "completed"
	}
	switch run.Status {
	case "":
		run.Status = "queued"
	case "queued", "in_progress", "waiting", "requested", "pending":
	case "completed":
		if run.Conclusion == "" {
			return 0, fmt.Errorf("ghstandin: a completed workflow run needs a conclusion")
		}
	default:
		return 0, fmt.Errorf("ghstandin: workflow run status %q is not one GitHub reports", run.Status)
	}
	run.ID = s.id()
	run.CreatedAt = s.now()
	r.WorkflowRuns = append(r.WorkflowRuns, &run)
	return run.ID, s.save()
}

// runStatuses are the values GET /actions/runs accepts for status: a
// run's status or its conclusion.
var runStatuses = map[string]bool{"completed": true, "action_required": true, "cancelled": true, "failure": true, "neutral": true,
	"skipped": true, "stale": true, "success": true, "timed_out": true, "in_progress": true, "queued": true, "requested": true,
	"waiting": true, "pending": true}

// listWorkflowRuns answers GET /repos/{o}/{r}/actions/runs, newest first,
// with GitHub's filters head_sha, status (which matches a run's status or
// its conclusion), event, branch and exclude_pull_requests, and its
// pagination; total_count counts every match, not the page.
func listWorkflowRuns(c *ctx) {
	q := c.r.URL.Query()
	c.sync() // pull requests' heads, for the runs' pull_requests
	if st := q.Get("status"); st != "" && !runStatuses[st] {
		c.invalidField("WorkflowRun", "status", "invalid", "status must be a workflow run status or conclusion")
		return
	}
	out := []map[string]any{}
	for i := len(c.repo.WorkflowRuns) - 1; i >= 0; i-- {
		run := c.repo.WorkflowRuns[i]
		if v := q.Get("head_sha"); v != "" && run.HeadSHA != v {
			continue
		}
		if v := q.Get("status"); v != "" && run.Status != v && run.Conclusion != v {
			continue
		}
		if v := q.Get("event"); v != "" && run.Event != v {
			continue
		}
		if v := q.Get("branch"); v != "" && run.HeadBranch != v {
			continue
		}
		j, err := c.workflowRunJSON(run, q.Get("exclude_pull_requests") == "true")
		if err != nil {
			writeError(c.w, http.StatusInternalServerError, err.Error())
			return
		}
		out = append(out, j)
	}
	page := pageOf(c, out, 30, 100)
	writeJSON(c.w, http.StatusOK, map[string]any{"total_count": len(out), "workflow_runs": page})
}

// workflowRunJSON renders a run as GitHub's workflow-run schema describes
// it: every required field, null where GitHub sends null.
func (c *ctx) workflowRunJSON(run *WorkflowRun, excludePulls bool) (map[string]any, error) {
	info, err := c.git.commit(run.HeadSHA)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", run.HeadSHA, err)
	}
	api := c.s.url + "/api/v3/repos/" + c.full
	runURL := api + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	h := fnv.New32a()
	_, _ = h.Write([]byte(c.full + ":" + run.Path))
	workflowID := int64(h.Sum32()%9000000) + 1000000
	number := 0
	for _, other := range c.repo.WorkflowRuns {
		if other.Path == run.Path && other.ID <= run.ID {
			number++
		}
	}
	var branch, conclusion any
	if run.HeadBranch != "" {
		branch = run.HeadBranch
	}
	if run.Conclusion != "" {
		conclusion = run.Conclusion
	}
	title, _, _ := strings.Cut(info.Message, "\n")
	pulls := []map[string]any{}
	if !excludePulls {
		pulls = c.runPulls(run)
	}
	repo := c.s.repoJSON(c.repo)
	return map[string]any{
		"id": run.ID, "name": run.Name, "node_id": "WFR_" + strconv.FormatInt(run.ID, 10),
		"check_suite_id": run.ID, "check_suite_node_id": "CS_" + strconv.FormatInt(run.ID, 10),
		"head_branch": branch, "head_sha": run.HeadSHA, "path": run.Path, "run_number": number, "run_attempt": 1,
		"referenced_workflows": []any{}, "event": run.Event, "status": run.Status, "conclusion": conclusion,
		"workflow_id": workflowID, "url": runURL, "html_url": c.s.url + "/" + c.full + "/actions/runs/" + strconv.FormatInt(run.ID, 10),
		"pull_requests": pulls, "created_at": run.CreatedAt, "updated_at": run.CreatedAt, "run_started_at": run.CreatedAt,
		"actor": c.s.user(DefaultLogin), "triggering_actor": c.s.user(DefaultLogin),
		"jobs_url": runURL + "/jobs", "logs_url": runURL + "/logs", "check_suite_url": api + "/check-suites/" + strconv.FormatInt(run.ID, 10),
		"artifacts_url": runURL + "/artifacts", "cancel_url": runURL + "/cancel", "rerun_url": runURL + "/rerun",
		"previous_attempt_url": nil, "workflow_url": api + "/actions/workflows/" + strconv.FormatInt(workflowID, 10),
		"head_commit": map[string]any{"id": info.SHA, "tree_id": info.Tree, "message": info.Message, "timestamp": info.CommitterDate,
			"author":    map[string]string{"name": info.AuthorName, "email": info.AuthorEmail},
			"committer": map[string]string{"name": info.CommitterName, "email": info.CommitterEmail}},
		"repository": repo, "head_repository": repo, "head_repository_id": c.repo.ID, "display_title": title,
	}, nil
}

// runPulls are the open pull requests of the repository whose head is the
// run's head, as GitHub lists them on a run (minimal: ids, refs, SHAs).
func (c *ctx) runPulls(run *WorkflowRun) []map[string]any {
	api := c.s.url + "/api/v3/repos/" + c.full
	ref := map[string]any{"id": c.repo.ID, "url": api, "name": c.repo.Name}
	out := []map[string]any{}
	var numbers []int
	byNumber := map[int]*pull{}
	for _, p := range c.repo.Pulls {
		if p.State == "open" && p.HeadSHA == run.HeadSHA {
			numbers = append(numbers, p.Number)
			byNumber[p.Number] = p
		}
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		p := byNumber[n]
		out = append(out, map[string]any{"id": p.ID, "number": p.Number, "url": api + "/pulls/" + strconv.Itoa(p.Number),
			"head": map[string]any{"ref": p.Head, "sha": p.HeadSHA, "repo": ref},
			"base": map[string]any{"ref": p.Base, "sha": p.BaseSHA, "repo": ref}})
	}
	return out
}
