package ghstandin_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// received is one webhook delivery as a receiver saw it, after checking
// its signature and parsing it with go-github.
type received struct {
	event, action, delivery string
	ev                      any
}

// hookReceiver is a webhook receiver that checks X-Hub-Signature-256 with
// secret, as GitHub's documentation tells receivers to, and parses the
// payload as its X-GitHub-Event.
func hookReceiver(t *testing.T, secret string) (string, <-chan received) {
	t.Helper()
	ch := make(chan received, 100)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Hub-Signature-256") == "" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("delivery %s without X-Hub-Signature-256 or not JSON: %v", r.Header.Get("X-GitHub-Event"), r.Header)
		}
		payload, err := github.ValidatePayload(r, []byte(secret))
		if err != nil {
			t.Errorf("delivery %s: %v", r.Header.Get("X-GitHub-Event"), err)
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		ev, err := github.ParseWebHook(github.WebHookType(r), payload)
		if err != nil {
			t.Errorf("delivery %s does not parse: %v", github.WebHookType(r), err)
		}
		var head struct{ Action string }
		_ = json.Unmarshal(payload, &head)
		ch <- received{event: github.WebHookType(r), action: head.Action, delivery: github.DeliveryID(r), ev: ev}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/hooks/github", ch
}

// next reads the deliveries a step caused: n of them, in order.
func next(t *testing.T, ch <-chan received, n int) []received {
	t.Helper()
	var out []received
	for len(out) < n {
		select {
		case r := <-ch:
			out = append(out, r)
		case <-time.After(10 * time.Second): // a bound on a hung receiver, not a wait for time
			t.Fatalf("got %d deliveries, want %d: %v", len(out), n, out)
		}
	}
	return out
}

func kinds(rs []received) []string {
	var out []string
	for _, r := range rs {
		out = append(out, strings.TrimSuffix(r.event+" "+r.action, " "))
	}
	return out
}

// A repository webhook (POST /repos/{o}/{r}/hooks, issue 30 item 7)
// receives GitHub's events with GitHub's headers and signatures: ping on
// creation, then push for a git push, pull_request for opening,
// labelling and merging, issue_comment for a comment on the pull request
// (its issue carries pull_request), pull_request_review, status, and
// check_run and check_suite with the pull request they concern.
func TestWebhookDeliveries(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	url, ch := hookReceiver(t, "s3cret")
	st, v := call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/hooks", map[string]any{"name": "web", "events": []string{"*"},
		"config": map[string]string{"url": url, "content_type": "json", "secret": "s3cret"}})
	if st != 201 || field(field(v, "config"), "secret") != "********" {
		t.Fatalf("create hook: %d %v, want 201 with the secret masked", st, v)
	}
	if got := kinds(next(t, ch, 1)); !cmp.Equal(got, []string{"ping"}) {
		t.Errorf("on creation (-want +got):\n%s", cmp.Diff([]string{"ping"}, got))
	}

	w := clone(t, s, "acme/api")
	head := pushFile(t, w, "f", "f.txt", "f\n")
	push := next(t, ch, 1)
	if pe, ok := push[0].ev.(*github.PushEvent); !ok || pe.GetRef() != "refs/heads/f" || pe.GetAfter() != head || !pe.GetCreated() ||
		pe.GetRepo().GetFullName() != "acme/api" || len(pe.Commits) != 1 || pe.GetHeadCommit().GetID() != head {
		t.Errorf("git push of a new branch: %#v", push[0].ev)
	}

	n := openPull(t, s, "f", nil)
	opened := next(t, ch, 1)
	if pe, ok := opened[0].ev.(*github.PullRequestEvent); !ok || opened[0].action != "opened" || pe.GetNumber() != n ||
		pe.GetPullRequest().GetHead().GetSHA() != head || pe.GetSender().GetLogin() != ghstandin.DefaultLogin {
		t.Errorf("opening: %s %#v", opened[0].action, opened[0].ev)
	}

	if st, v := call(t, s, "alice", "POST", "/repos/acme/api/issues/"+itoa(n)+"/comments", map[string]string{"body": "please rename"}); st != 201 {
		t.Fatalf("comment: %d %v", st, v)
	}
	comment := next(t, ch, 1)
	if ce, ok := comment[0].ev.(*github.IssueCommentEvent); !ok || comment[0].action != "created" || !ce.GetIssue().IsPullRequest() ||
		ce.GetIssue().GetNumber() != n || ce.GetComment().GetBody() != "please rename" || ce.GetSender().GetLogin() != "alice" {
		t.Errorf("comment: %s %#v", comment[0].action, comment[0].ev)
	}

	if st, v := call(t, s, "alice", "POST", "/repos/acme/api/pulls/"+itoa(n)+"/reviews", map[string]string{"event": "APPROVE"}); st != 200 {
		t.Fatalf("review: %d %v", st, v)
	}
	review := next(t, ch, 1)
	if re, ok := review[0].ev.(*github.PullRequestReviewEvent); !ok || review[0].action != "submitted" || re.GetReview().GetState() != "APPROVED" ||
		re.GetPullRequest().GetNumber() != n {
		t.Errorf("review: %s %#v", review[0].action, review[0].ev)
	}

	call(t, s, "ci-bot", "POST", "/repos/acme/api/statuses/"+head, map[string]string{"state": "success", "context": "ci"})
	status := next(t, ch, 1)
	if se, ok := status[0].ev.(*github.StatusEvent); !ok || se.GetSHA() != head || se.GetState() != "success" || se.GetContext() != "ci" ||
		len(se.Branches) != 1 || se.Branches[0].GetName() != "f" {
		t.Errorf("status: %#v", status[0].ev)
	}

	call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/check-runs", map[string]string{"name": "build", "head_sha": head, "status": "completed", "conclusion": "success"})
	check := next(t, ch, 2)
	if ce, ok := check[0].ev.(*github.CheckRunEvent); !ok || check[0].action != "created" || len(ce.GetCheckRun().PullRequests) != 1 ||
		ce.GetCheckRun().PullRequests[0].GetNumber() != n || ce.GetCheckRun().GetCheckSuite().GetHeadBranch() != "f" {
		t.Errorf("check run: %s %#v", check[0].action, check[0].ev)
	}
	// Its suite (the commit's only one) completed with it.
	if se, ok := check[1].ev.(*github.CheckSuiteEvent); !ok || check[1].action != "completed" || se.GetCheckSuite().GetConclusion() != "success" ||
		se.GetCheckSuite().GetHeadBranch() != "f" || len(se.GetCheckSuite().PullRequests) != 1 {
		t.Errorf("check suite: %s %#v", check[1].action, check[1].ev)
	}

	call(t, s, ghstandin.DefaultLogin, "POST", "/repos/acme/api/issues/"+itoa(n)+"/labels", map[string]any{"labels": []string{"ready-for-human"}})
	if got := kinds(next(t, ch, 1)); !cmp.Equal(got, []string{"pull_request labeled"}) {
		t.Errorf("labelling (-want +got):\n%s", cmp.Diff([]string{"pull_request labeled"}, got))
	}

	if st, v := call(t, s, ghstandin.DefaultLogin, "PUT", "/repos/acme/api/pulls/"+itoa(n)+"/merge", nil); st != 200 {
		t.Fatalf("merge: %d %v", st, v)
	}
	merged := next(t, ch, 2)
	if got, want := kinds(merged), []string{"push", "pull_request closed"}; !cmp.Equal(got, want) {
		t.Errorf("merging (-want +got):\n%s", cmp.Diff(want, got))
	} else if pe := merged[1].ev.(*github.PullRequestEvent); !pe.GetPullRequest().GetMerged() {
		t.Errorf("the closed event's pull request is not merged: %#v", pe.GetPullRequest())
	}

	ids := map[string]bool{}
	for _, d := range s.Deliveries() {
		if d.Status != http.StatusAccepted || ids[d.ID] || len(d.ID) != 36 {
			t.Errorf("delivery %+v: want 202 and a unique GUID", d)
		}
		ids[d.ID] = true
	}
	if len(ids) != 11 {
		t.Errorf("the server recorded %d deliveries, want 11", len(ids))
	}
}

// A delivery's signature is the HMAC-SHA256 of the exact payload bytes
// with the hook's secret, hex, after "sha256=", as GitHub documents (its
// own test vector).
func TestSign256MatchesGitHubsExample(t *testing.T) {
	t.Parallel()
	got := ghstandin.Sign256([]byte("It's a Secret to Everybody"), []byte("Hello, World!"))
	if want := "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"; got != want {
		t.Errorf("Sign256 = %s, want %s", got, want)
	}
}

// Hooks are for repository admins (a writer is answered 404, a reader
// 403 as every write of a reader), and the sandbox posts to loopback
// addresses only: any other URL is refused with 422, not delivered to.
func TestHookCreationIsRefused(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	if _, err := s.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		login, url string
		events     []string
		want       int
	}{
		{"mallory", "http://127.0.0.1:1/hook", nil, 403},
		{"alice", "http://127.0.0.1:1/hook", nil, 404},
		{ghstandin.DefaultLogin, "http://example.com/hook", nil, 422},
		{ghstandin.DefaultLogin, "ftp://127.0.0.1/hook", nil, 422},
		{ghstandin.DefaultLogin, "", nil, 422},
		{ghstandin.DefaultLogin, "http://127.0.0.1:1/hook", []string{"no_such_event"}, 422},
	} {
		st, v := call(t, s, tc.login, "POST", "/repos/acme/api/hooks", map[string]any{"events": tc.events, "config": map[string]string{"url": tc.url}})
		if st != tc.want {
			t.Errorf("%s creating a hook to %q for %v: %d %v, want %d", tc.login, tc.url, tc.events, st, v, tc.want)
		}
	}
	if d := s.Deliveries(); len(d) != 0 {
		t.Errorf("refused hooks were delivered to: %+v", d)
	}
	_, v := call(t, s, ghstandin.DefaultLogin, "GET", "/repos/acme/api/hooks", nil)
	if list, _ := v.([]any); len(list) != 0 {
		t.Errorf("hooks after refusals: %v", v)
	}
}
