package ghstandin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Why CI is red: a check run's output (title, summary, text), as an app
// sets it on POST/PATCH /check-runs, and the log of the GitHub Actions job
// behind a check run (an Actions check run's id is its job's id), served by
// GET /actions/jobs/{job_id}/logs the way GitHub serves it: a 302 to the
// plain-text log at a signed URL that takes no token (serveJobLog).

// checkOutput is a check run's output object.
type checkOutput struct {
	Title   *string `json:"title"`
	Summary *string `json:"summary"`
	Text    *string `json:"text"`
}

// outputJSON renders a check run's output as GitHub does: every field
// present, null when unset.
func (c *ctx) outputJSON(cr *checkRun) map[string]any {
	out := map[string]any{"title": nil, "summary": nil, "text": nil, "annotations_count": 0,
		"annotations_url": c.s.url + "/api/v3/repos/" + c.full + "/check-runs/" + strconv.FormatInt(cr.ID, 10) + "/annotations"}
	if o := cr.Output; o != nil {
		for k, v := range map[string]*string{"title": o.Title, "summary": o.Summary, "text": o.Text} {
			if v != nil {
				out[k] = *v
			}
		}
	}
	return out
}

// SetJobLog gives the Actions job behind check run id of fullName its log.
func (s *Server) SetJobLog(fullName string, id int64, log string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, r := s.lookupRepo(fullName)
	if r == nil {
		return fmt.Errorf("ghstandin: no repository %s", fullName)
	}
	for _, cr := range r.CheckRuns {
		if cr.ID == id {
			cr.JobLog = log
			return s.save()
		}
	}
	return fmt.Errorf("ghstandin: %s has no check run %d", fullName, id)
}

func (s *Server) jobLogRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("GET "+r+"/actions/jobs/{id}/logs", s.handle(true, func(c *ctx) {
		if cr := c.jobOf(c.r.PathValue("id")); cr != nil {
			path := jobLogPrefix + c.full + "/" + strconv.FormatInt(cr.ID, 10)
			http.Redirect(c.w, c.r, c.s.url+path+"?sig="+c.s.logSignature(path), http.StatusFound)
			return
		}
		writeError(c.w, 404, "Not Found")
	}))
}

// jobLogPrefix is where the stand-in serves job logs: outside the API, at
// a signed URL that takes no token, as GitHub's log storage does.
const jobLogPrefix = "/_job-logs/"

// serveJobLog answers GET /_job-logs/{owner}/{repo}/{id}?sig=….
func (s *Server) serveJobLog(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rest := strings.TrimPrefix(r.URL.Path, jobLogPrefix)
	i := strings.LastIndexByte(rest, '/')
	if r.Method != http.MethodGet || i < 0 || r.URL.Query().Get("sig") != s.logSignature(r.URL.Path) {
		writeError(w, http.StatusForbidden, "Signature does not match")
		return
	}
	full, rp := s.lookupRepo(rest[:i])
	if rp == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	c := &ctx{s: s, w: w, r: r, full: full, repo: rp}
	if cr := c.jobOf(rest[i+1:]); cr != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(cr.JobLog))
		return
	}
	writeError(w, http.StatusNotFound, "Not Found")
}

// logSignature signs a log download path with the server's state, which
// only the server knows.
func (s *Server) logSignature(path string) string {
	h := sha256.Sum256([]byte(s.dir + "|" + path))
	return hex.EncodeToString(h[:16])
}

// jobOf is the check run whose job has a log, or nil.
func (c *ctx) jobOf(id string) *checkRun {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	for _, cr := range c.repo.CheckRuns {
		if cr.ID == n && cr.JobLog != "" {
			return cr
		}
	}
	return nil
}
