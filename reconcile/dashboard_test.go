package reconcile

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/google/go-github/v66/github"
)

// onControl makes the control repository acme/control on the stand-in.
func onControl(o *Options) { o.ControlRepo = "acme/control" }

// dashboardBody is the body of the dashboard issue, acme/control#1.
func (r *rig) dashboardBody() string {
	r.t.Helper()
	is, _, err := r.gh.Client("alice").Issues.Get(context.Background(), "acme", "control", 1)
	if err != nil {
		r.t.Fatal(err)
	}
	if !strings.Contains(is.GetBody(), gatekeep.DashboardMarker) {
		r.t.Fatalf("acme/control#1 is not the dashboard:\n%s", is.GetBody())
	}
	return is.GetBody()
}

// editDashboard has login edit the dashboard's body.
func (r *rig) editDashboard(login string, change func(string) string) error {
	body := change(r.dashboardBody())
	_, _, err := r.gh.Client(login).Issues.Edit(context.Background(), "acme", "control", 1, &github.IssueRequest{Body: &body})
	return err
}

// dashboardWrites counts the edits of issues the stand-in answered.
func (r *rig) dashboardWrites() int {
	n := 0
	for _, q := range r.gh.Requests() {
		if q.Method == http.MethodPatch && strings.Contains(q.Path, "/repos/acme/control/issues/") {
			n++
		}
	}
	return n
}

// The dashboard issue (issue 34, docs/requests.md): opened once, it shows
// a stopped entry with a box per request that clears the stop; a pass
// that changes nothing makes no edit; a read-only user cannot tick the
// box (GitHub's 403) and nothing happens; a writer's tick is performed as
// one `loop: request resume from acme/control#1 by @bob` commit, and a
// pass killed between that commit and the body write neither loses nor
// repeats it: the next one resumes the entry and clears the box with the
// result beside it.
func TestDashboardIssueResumesAStop(t *testing.T) {
	t.Parallel()
	config := rigConfig + "reviewer:\n  login: alice\n  rereview_minutes: 60\n  stall_hours: 48\ndashboard_issue: true\n"
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, ""), "gallivant.yaml": config}, "acme/api", "acme/control")
	r.gh.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	if _, err := r.gh.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	rep := r.pass(onControl)
	if note := noteOf(rep); !strings.Contains(note, "opened the dashboard issue acme/control#1") {
		t.Fatalf("no dashboard opened: %s", note)
	}
	r.as("alice").close(1)
	wantSubjects(t, r.pass(onControl), "loop: stop closed")
	body := r.dashboardBody()
	if !strings.Contains(body, "## stopped\n\n- `specs/feature.md`: ") || !strings.Contains(body, "  stopped: `closed") || !strings.Contains(body, "\n- [ ] resume <!-- gallivant:box ") {
		t.Fatalf("the dashboard does not offer the resume:\n%s", body)
	}

	before := r.dashboardWrites()
	wantSubjects(t, r.pass(onControl))
	if n := r.dashboardWrites() - before; n != 0 {
		t.Errorf("an idle pass edited the dashboard %d times", n)
	}

	err := r.editDashboard("mallory", func(b string) string { return strings.Replace(b, "- [ ] resume <!--", "- [x] resume <!--", 1) })
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusForbidden {
		t.Fatalf("a read-only user's tick: %v, want GitHub's 403", err)
	}
	wantSubjects(t, r.pass(onControl))
	if got := r.dashboardBody(); got != body {
		t.Fatalf("the body changed after a refused tick:\n%s", got)
	}

	if err := r.editDashboard("bob", func(b string) string {
		return strings.Replace(b, "- [ ] resume <!--", "- [x] resume | the close was a mistake <!--", 1)
	}); err != nil {
		t.Fatal(err)
	}
	rep, err = r.reconciler(onControl, func(o *Options) {
		o.Crash = func(point string) error {
			if point == "push:after" && strings.Contains(strings.Join(r.subjects(), "\n"), "loop: request resume") {
				return errInjected
			}
			return nil
		}
	}).Pass(context.Background())
	if !errors.Is(err, errInjected) {
		t.Fatalf("pass: %v, want the injected kill after the push (%s)\n%s", err, noteOf(rep), r.dashboardBody())
	}
	msg := run(t, r.control, "git", "log", "-1", "--format=%B", "--grep=^loop: request resume", "main")
	if !strings.HasPrefix(msg, "loop: request resume from acme/control#1 by @bob\n") || !strings.Contains(msg, "\nGallivant-Box: ") ||
		!strings.Contains(msg, "Gallivant-Dashboard: "+r.gh.URL()+"/acme/control/issues/1") || !strings.Contains(msg, "Gallivant-Request: resume | the close was a mistake") {
		t.Fatalf("the request commit:\n%s", msg)
	}
	if !strings.Contains(r.dashboardBody(), "- [x] resume | the close was a mistake <!--") {
		t.Fatalf("the box was cleared before the kill:\n%s", r.dashboardBody())
	}

	rep = r.pass(onControl)
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: reopen acme/api#1" || strings.Contains(strings.Join(got, "\n"), "loop: request") {
		t.Fatalf("after the kill: %v, want the reopen and no second request (%s)", got, noteOf(rep))
	}
	body = r.dashboardBody()
	if strings.Contains(body, "- [x] resume") || !strings.Contains(body, "- [ ] resume <!-- gallivant:box ") ||
		!strings.Contains(body, "--> — done for `@bob`: `loop: request resume from acme/control#1 by @bob`") {
		t.Fatalf("the box is not cleared with its result:\n%s", body)
	}
	// The entry shows its last request and where it came from.
	if !strings.Contains(body, "\n  last request: `\"resume | the close was a mistake\", from a box of the dashboard issue acme/control#1 ticked by @bob (box ") {
		t.Errorf("the entry does not show its last request:\n%s", body)
	}
	if !r.ledger(ledgerPath).Delivery.Stop.IsZero() {
		t.Errorf("the stop is still there")
	}
	before = r.dashboardWrites()
	r.pass(onControl)
	if n := r.dashboardWrites() - before; n != 0 {
		t.Errorf("an idle pass after the resume edited the dashboard %d times:\n%s", n, r.dashboardBody())
	}
	if n := strings.Count(strings.Join(r.subjects(), "\n"), "loop: request"); n != 1 {
		t.Errorf("%d request commits, want 1", n)
	}
	// The kept box, ticked again, is refused: the entry is not stopped.
	if err := r.editDashboard("bob", func(b string) string { return strings.Replace(b, "- [ ] resume <!--", "- [x] resume <!--", 1) }); err != nil {
		t.Fatal(err)
	}
	wantSubjects(t, r.pass(onControl))
	if body := r.dashboardBody(); strings.Contains(body, "- [x] resume") || !strings.Contains(body, "--> — `@bob`: `Not accepted now: ") {
		t.Fatalf("the refused box is not reset with why:\n%s", body)
	}

	// gallivant verify replays the box's commit as any request commit.
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	v := audit.NewVerifier()
	if err := st.History(context.Background(), "", nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		t.Fatal(err)
	}
	if vr := v.Report(); !vr.Legal() {
		t.Errorf("verify: %s\nviolations %+v", vr.Summary(), vr.Violations)
	}
}
