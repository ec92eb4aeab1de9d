package reconcile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v66/github"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// Issue 33: 20 pull requests in 4 repositories, in review, ready and
// waiting for CI, cost 8 requests per idle pass over an hour at the
// default schedules: a daemon's passes every 5 minutes with one adapter,
// and one-shot CI runs every 10 minutes, each a new process that starts
// from the GitHub cache's state file. Per repository a pass asks its
// list, answered 304, and one GraphQL query for the checks, comments and
// bases of its watched pull requests (paid from GraphQL's budget).
// Nothing is charged to the REST budget in the hour, the 30-minute
// refresh's full reads included (all 304), and the refresh leaves marks
// the next pass holds.
func TestIdlePullRequestsCostTwoRequestsPerRepository(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		every time.Duration
		ci    bool
	}{
		{"daemon every 5 minutes", 5 * time.Minute, false},
		{"one-shot CI every 10 minutes", 10 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := ""
			if tc.ci {
				dir = t.TempDir()
			}
			r, rec, repos := reviewRig(t, 20, 4, mixedState, dir)
			charged, graphql, refreshes, passes := 0, 0, 0, int(time.Hour/tc.every)
			for i := range passes {
				r.clock.Advance(tc.every)
				if tc.ci {
					rec = r.reconciler(func(o *Options) { o.Log = quiet; o.GitHub = r.stateAdapter(t, dir) })
				}
				r.gh.ResetLog()
				rep, err := rec.Pass(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if len(rep.Transitions) != 0 {
					t.Fatalf("pass %d at +%v committed %v", i+1, tc.every*time.Duration(i+1), subjectsOf(rep))
				}
				c := r.gh.Counts()
				charged += c.Counted - c.GraphQL
				graphql += c.GraphQL
				if c.Total > 2*len(repos) {
					// The marks expire every quietRefresh: those pull
					// requests are read in full, conditionally.
					refreshes++
					if c.NotModified+c.GraphQL != c.Total {
						t.Errorf("pass %d refreshed with %d requests, %d answered 304, %d GraphQL; want the rest 304", i+1, c.Total, c.NotModified, c.GraphQL)
					}
					continue
				}
				if c.Total != 2*len(repos) || c.GraphQL != len(repos) || c.NotModified != len(repos) {
					t.Errorf("idle pass %d: %d requests, %d answered 304, %d GraphQL; want %d: a 304 list and a GraphQL query per repository",
						i+1, c.Total, c.NotModified, c.GraphQL, 2*len(repos))
				}
			}
			if charged != 0 {
				t.Errorf("an hour of passes every %v charged %d requests to the REST budget, want 0", tc.every, charged)
			}
			if refreshes > 2 {
				t.Errorf("%d of %d passes read pull requests in full; the marks refresh every %v", refreshes, passes, quietRefresh)
			}
			t.Logf("an hour of %d passes: %d refreshes, %d GraphQL queries, %d charged", passes, refreshes, graphql, charged)
		})
	}
}

// A check re-run on the same head that turns red moves neither the pull
// request's updated_at nor its head: the ready label still comes off at
// the next pass, seen by the repository's GraphQL query, with no webhook.
func TestQuietReadyRerunOnSameHeadUnreadies(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, "")
	pass := daemonPasses(t, r.reconciler())
	pass()
	ci := r.gh.Client("ci-bot")
	run := func(conclusion string) {
		t.Helper()
		if _, _, err := ci.Checks.CreateCheckRun(context.Background(), "acme", "api", github.CreateCheckRunOptions{Name: "ci", HeadSHA: r.head(work),
			Status: github.String("completed"), Conclusion: github.String(conclusion)}); err != nil {
			t.Fatal(err)
		}
	}
	run("success")
	r.as("alice").review(1, "APPROVE", "", r.head(work))
	r.clock.Advance(time.Minute)
	wantSubjects(t, pass(), "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	r.clock.Advance(time.Minute)
	pass() // the full read that leaves the ready mark
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	rep := pass()
	if !strings.Contains(noteOf(rep), "(unchanged since ") {
		t.Fatalf("want the ready mark to hold: %s", noteOf(rep))
	}
	wantIdleCost(t, r, rep, 1)
	run("failure") // the re-run
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	wantSubjects(t, pass(), "loop: unready acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	if c := r.gh.Counts(); c.GraphQL != 1 {
		t.Errorf("the pass that saw the re-run made %d GraphQL queries, want 1", c.GraphQL)
	}
	if got := r.as("alice").labels(1); len(got) != 0 {
		t.Errorf("labels after a re-run turned red on the same head: %v", got)
	}
}

// GraphQL refused (a GitHub Enterprise that answers its endpoint 404, or
// a 502): the pass reads the watched pull request's checks and comments
// through REST, four conditional requests and its base's requirements
// (rules and protection) and head, all 304 when nothing changed, and a check that turns red is still seen at the
// next pass.
func TestQuietRollupFallsBackToREST(t *testing.T) {
	t.Parallel()
	for _, status := range []int{404, 502} {
		t.Run(statusName(status), func(t *testing.T) {
			t.Parallel()
			r, pass := quietReady(t)
			defer r.gh.InjectFault(ghstandin.Fault{Method: "POST", Path: `^/api/graphql$`, Kind: ghstandin.FaultStatus, Status: status})()
			r.clock.Advance(time.Minute)
			r.gh.ResetLog()
			rep := pass()
			if !strings.Contains(noteOf(rep), "is ready; waits for a person to merge it (unchanged since ") {
				t.Errorf("with GraphQL refused the ready mark did not hold: %s", noteOf(rep))
			}
			var rest []string
			c := r.gh.Counts()
			for _, q := range r.gh.Requests() {
				if q.Path != "/api/graphql" {
					rest = append(rest, q.Method+" "+q.Path)
				}
			}
			// The list, the base head, check runs, combined status,
			// the base's rules and protection, both comment lists.
			if c.GraphQL != 1 || c.NotModified != c.Total-1 || len(rest) != 8 {
				t.Errorf("with GraphQL answering %d: %d requests, %d answered 304, %d GraphQL; want 1 GraphQL and 8 REST, all 304: %q", status, c.Total, c.NotModified, c.GraphQL, rest)
			}
			r.as("ci-bot").status(r.head(work), "ci", "failure")
			r.clock.Advance(time.Minute)
			wantSubjects(t, pass(), "loop: unready acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
		})
	}
}

func statusName(status int) string {
	return map[int]string{404: "not found", 502: "bad gateway"}[status]
}

// A base that starts requiring a check the ready pull request lacks, or
// more approving reviews than it has, is seen at the next pass, with no
// webhook and before the 30-minute refresh, which reads the pull request
// in full and reports what it waits for: the check, or (docs/gatekeep.md,
// "Merge state") the approvals. The label stays, as docs/delivery.md's
// lifecycle table says (only a new head, new feedback or a red check
// takes it off; a person merges, and GitHub refuses the merge while
// the approvals are missing); the wait is in the pass's note. A
// ruleset is read through the
// GraphQL query's rules; classic protection (which GitHub shows
// administrators only) through the same query's branchProtectionRule,
// asked because the reconciler's token read that protection through REST
// with a 200 (issue 33).
func TestQuietReadyBaseRuleChangeSeen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		protect ghstandin.Protection
		// note is what the full read waits for.
		note string
	}{
		{"a ruleset's check", ghstandin.Protection{RequiredContexts: []string{"ci", "lint"}, Ruleset: true}, "waits for required check lint"},
		{"classic protection's check", ghstandin.Protection{RequiredContexts: []string{"ci", "lint"}}, "waits for required check lint"},
		{"a ruleset's approvals", ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 2, Ruleset: true}, "waits for 2 approving reviews the base branch requires (1 so far)"},
		{"classic protection's approvals", ghstandin.Protection{RequiredContexts: []string{"ci"}, RequiredReviews: 2}, "waits for 2 approving reviews the base branch requires (1 so far)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, pass := quietReadyHeld(t)
			r.gh.Protect("acme/api", "main", tc.protect)
			r.clock.Advance(time.Minute)
			rep := pass()
			if strings.Contains(noteOf(rep), "unchanged since") || !strings.Contains(noteOf(rep), tc.note) {
				t.Errorf("%s now requires more: the pass did %v, note %q; want a full read that %s", tc.name, subjectsOf(rep), noteOf(rep), tc.note)
			}
			wantSubjects(t, rep)
		})
	}
}

// Issue 33: the base's classic protection, asked in the GraphQL query
// because the token last read it through REST with a 200, answers null
// once it is removed. A null is no answer (GitHub does not document the
// field's visibility to tokens that cannot administer the repository, and
// it must never read as "unprotected"): the same pass reads the
// protection through REST, whose 404 decides, and is remembered, so that
// the passes after ask neither GraphQL's rule nor REST.
func TestQuietReadyProtectionNullReadThroughREST(t *testing.T) {
	t.Parallel()
	r, pass := quietReadyHeld(t)
	r.gh.Protect("acme/api", "main", ghstandin.Protection{Ruleset: true, AllowForcePushes: true}) // no classic protection, no rules
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	rep := pass()
	var protection int
	for _, q := range r.gh.Requests() {
		if q.Method == "GET" && q.Path == "/repos/acme/api/branches/main/protection" {
			protection++
		}
	}
	if protection == 0 {
		t.Errorf("the pass after GraphQL's null did not read the protection through REST: %v", subjectsOf(rep))
	}
	for i := range 2 {
		r.clock.Advance(time.Minute)
		r.gh.ResetLog()
		rep = pass()
		if !strings.Contains(noteOf(rep), "(unchanged since ") {
			t.Fatalf("pass %d after the protection was removed: the ready mark did not hold: %s", i+1, noteOf(rep))
		}
		wantIdleCost(t, r, rep, 1)
	}
}

// Issue 33: GraphQL refused for good (a GitHub Enterprise that answers
// its endpoint 404) is asked once; the passes after read the watched
// pull request through REST without asking it again, until
// githubapi's hour is up. A 502 is transient: every pass asks again.
func TestGraphQLRefusalNotAskedEveryPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		// graphql is how many GraphQL queries each pass after the
		// first asks.
		graphql int
	}{{404, 0}, {502, 1}} {
		t.Run(statusName(tc.status), func(t *testing.T) {
			t.Parallel()
			r, pass := quietReady(t)
			defer r.gh.InjectFault(ghstandin.Fault{Method: "POST", Path: `^/api/graphql$`, Kind: ghstandin.FaultStatus, Status: tc.status})()
			for i := range 4 {
				r.clock.Advance(time.Minute)
				r.gh.ResetLog()
				rep := pass()
				if !strings.Contains(noteOf(rep), "(unchanged since ") {
					t.Fatalf("pass %d: the ready mark did not hold: %s", i+1, noteOf(rep))
				}
				want := tc.graphql
				if i == 0 {
					want = 1
				}
				// The list, the base head, check runs, combined status,
				// the base's rules and protection, both comment lists.
				c := r.gh.Counts()
				if rest := c.Total - c.GraphQL; c.GraphQL != want || rest != 8 || c.NotModified != rest {
					t.Errorf("pass %d with GraphQL answering %d: %d requests, %d answered 304, %d GraphQL; want %d GraphQL and 8 REST, all 304",
						i+1, tc.status, c.Total, c.NotModified, c.GraphQL, want)
				}
			}
		})
	}
}

// quietReady delivers a pull request to ready and passes once more, so
// that the pass after it finds its ready mark recorded.
func quietReady(t *testing.T) (*rig, func() *Report) {
	t.Helper()
	r, pass := quietDelivery(t)
	r.as("alice").review(1, "APPROVE", "", r.head(work))
	r.clock.Advance(time.Minute)
	wantSubjects(t, pass(), "loop: ready acme/api#1", "loop: announced ready acme/api#1")
	r.clock.Advance(time.Minute)
	pass()
	return r, pass
}

// quietReadyHeld delivers a pull request to ready and passes until its
// ready mark holds at one idle request (and one GraphQL query).
func quietReadyHeld(t *testing.T) (*rig, func() *Report) {
	t.Helper()
	r, pass := quietReady(t)
	r.clock.Advance(time.Minute)
	r.gh.ResetLog()
	rep := pass()
	if !strings.Contains(noteOf(rep), "(unchanged since ") {
		t.Fatalf("want the ready mark to hold: %s", noteOf(rep))
	}
	wantIdleCost(t, r, rep, 1)
	return r, pass
}
