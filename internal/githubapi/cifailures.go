package githubapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Why CI is red. A fix round for red CI is only as good as what its agent
// can see of the failure: a commit status's description and target URL, a
// check run's output (title, summary, text) and, for a GitHub Actions check
// run, the tail of its job's log. CIFailures gathers them for the failing
// checks of one commit, when a round is about to run.

// CIFailure is what GitHub says about one failing check on a commit. Every
// text is the check's author's, untrusted: the caller quotes it as data.
type CIFailure struct {
	// Name is the check run's name or the status's context; Kind is
	// check_run or status_context, as gatekeep.Check has it.
	Name, Kind string
	// Conclusion is the check run's conclusion or the status's state.
	Conclusion string
	// URL is the status's target URL or the check run's details URL.
	URL string
	// Description is a commit status's description.
	Description string
	// Title, Summary and Text are a check run's output.
	Title, Summary, Text string
	// LogTail is the last lines of the Actions job's log, when gallivant
	// could read it; LogProblem says why not, when it tried and failed.
	LogTail, LogProblem string
}

// Bounds on what CIFailures reads and keeps.
const (
	// MaxLogBytes is how much of a job log is read; the tail is its end.
	MaxLogBytes = 4 << 20
	// LogTailLines is how many lines of a job log's end are kept.
	LogTailLines = 40
	// logTimeout bounds the download of one job log.
	logTimeout = 30 * time.Second
)

// failing reports a conclusion or state gatekeep counts as failing.
func failing(conclusion string) bool {
	switch conclusion {
	case "failure", "error", "cancelled", "timed_out", "action_required", "startup_failure":
		return true
	}
	return false
}

// CIFailures returns the failing check runs and commit statuses on sha with
// their descriptions and output, and the log tail of each failing GitHub
// Actions job. A job log that cannot be read (the token lacks actions:read,
// the log expired) leaves LogProblem set and is no error.
func (g *Client) CIFailures(ctx context.Context, repo, sha string) ([]CIFailure, error) {
	o, n := splitRepo(repo)
	runs, err := g.checkRuns(ctx, repo, o, n, sha)
	if err != nil {
		return nil, err
	}
	var out []CIFailure
	for _, r := range runs {
		if r.GetStatus() != "completed" || !failing(r.GetConclusion()) {
			continue
		}
		f := CIFailure{Name: r.GetName(), Kind: "check_run", Conclusion: r.GetConclusion(), URL: r.GetDetailsURL()}
		if o := r.GetOutput(); o != nil {
			f.Title, f.Summary, f.Text = o.GetTitle(), o.GetSummary(), o.GetText()
		}
		if r.GetApp().GetSlug() == "github-actions" {
			// An Actions check run's id is its job's id.
			f.LogTail, f.LogProblem = g.jobLogTail(ctx, repo, r.GetID())
		}
		out = append(out, f)
	}
	statuses, err := g.statuses(ctx, repo, o, n, sha)
	if err != nil {
		return nil, err
	}
	for _, s := range statuses {
		if failing(s.GetState()) {
			out = append(out, CIFailure{Name: s.GetContext(), Kind: "status_context", Conclusion: s.GetState(), URL: s.GetTargetURL(), Description: s.GetDescription()})
		}
	}
	return out, nil
}

// jobLogTail reads the end of an Actions job's log: GitHub answers with a
// redirect to a short-lived signed URL, which is fetched without the token.
func (g *Client) jobLogTail(ctx context.Context, repo string, job int64) (tail, problem string) {
	o, n := splitRepo(repo)
	u, _, err := g.c.Actions.GetWorkflowJobLogs(ctx, o, n, job, 2)
	if err != nil {
		return "", classify(fmt.Sprintf("read the log of job %d in %s", job, repo), err).Error()
	}
	ctx, cancel := context.WithTimeout(ctx, logTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Sprintf("the log of job %d: %v", job, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Sprintf("download the log of job %d: %v", job, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Sprintf("download the log of job %d: %s", job, resp.Status)
	}
	return Tail(io.LimitReader(resp.Body, MaxLogBytes), LogTailLines), ""
}

// Tail returns the last n lines of r, without trailing blank lines.
func Tail(r io.Reader, n int) string {
	ring := make([]string, 0, n)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if len(ring) == n {
			ring = ring[1:]
		}
		ring = append(ring, strings.TrimRight(sc.Text(), "\r"))
	}
	for len(ring) > 0 && strings.TrimSpace(ring[len(ring)-1]) == "" {
		ring = ring[:len(ring)-1]
	}
	return strings.Join(ring, "\n")
}
