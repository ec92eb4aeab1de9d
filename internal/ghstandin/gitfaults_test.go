package ghstandin_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// remoteHead is a branch's head in the stand-in's own repository, "" when
// it has none.
func remoteHead(t *testing.T, s *ghstandin.Server, repo, branch string) string {
	t.Helper()
	out, ok := gitTry(t, s.RepoDir(repo), "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if !ok {
		return ""
	}
	return strings.TrimSpace(out)
}

// Issue 33: each git kind of --faults, at rate 1, fails git's smart HTTP
// as the network or GitHub's git front end does, with the real git
// binary as the client: a fetch fails, and a push fails having landed
// (git-lost) or not (the others fail it at its info/refs). API requests are never failed by them.
func TestGitFaultRatesFailGit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind       ghstandin.RateKind
		fetchFails bool   // git-lost fails pushes only
		fetchSays  string // in git's output, "" for anything
		pushLands  bool
	}{
		{kind: ghstandin.RateGit5xx, fetchFails: true, fetchSays: "returned error: 50"},
		{kind: ghstandin.RateGitTimeout, fetchFails: true, fetchSays: "returned error: 504"},
		{kind: ghstandin.RateGitLost, pushLands: true},
		{kind: ghstandin.RateGitReset, fetchFails: true, fetchSays: "Connection reset by peer"}, // the push's info/refs is cut
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, "acme/api")
			w := clone(t, s, "acme/api")
			git(t, w, "checkout", "--quiet", "-b", "work")
			git(t, w, "commit", "--quiet", "--allow-empty", "-m", "work")
			want := git(t, w, "rev-parse", "HEAD")
			s.SetFaultRates(ghstandin.FaultRates{Rates: map[ghstandin.RateKind]float64{tt.kind: 1}, Seed: 7, Hold: time.Millisecond})

			out, ok := gitTry(t, w, "fetch", "--quiet", "origin")
			if ok == tt.fetchFails || !strings.Contains(out, tt.fetchSays) {
				t.Errorf("fetch under %s: ok=%v %q, want ok=%v saying %q", tt.kind, ok, out, !tt.fetchFails, tt.fetchSays)
			}
			out, ok = gitTry(t, w, "push", "--quiet", "origin", "work")
			if ok {
				t.Errorf("push under %s succeeded: %q", tt.kind, out)
			}
			if got := remoteHead(t, s, "acme/api", "work"); (got == want) != tt.pushLands {
				t.Errorf("under %s the remote's work branch is %q after the failed push, want landed=%v (%s)", tt.kind, got, tt.pushLands, want)
			}
			if n := s.FaultsInjected()[tt.kind]; n == 0 {
				t.Errorf("FaultsInjected()[%s] = 0 after failed git requests", tt.kind)
			}
			// The API is untouched by git kinds.
			if status, _, body := send(t, s, "GET", "/repos/acme/api", ""); status != 200 {
				t.Errorf("API under %s: %d %s", tt.kind, status, body)
			}

			s.SetFaultRates(ghstandin.FaultRates{})
			if out, ok := gitTry(t, w, "push", "--quiet", "origin", "work"); !ok {
				t.Errorf("push with the faults off: %s", out)
			}
			if got := remoteHead(t, s, "acme/api", "work"); got != want {
				t.Errorf("work branch with the faults off is %q, want %s", got, want)
			}
		})
	}
}

// The API kinds never fail git, so a soak can fail one and not the other.
func TestAPIFaultRatesSpareGit(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	s.SetFaultRates(ghstandin.FaultRates{Rates: map[ghstandin.RateKind]float64{ghstandin.Rate5xx: 0.5, ghstandin.RateLost: 0.5}, Seed: 7})
	w := clone(t, s, "acme/api")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "work")
	git(t, w, "push", "--quiet", "origin", "HEAD:refs/heads/work")
	if diff := cmp.Diff(map[ghstandin.RateKind]int{}, s.FaultsInjected()); diff != "" {
		t.Errorf("git requests met API faults (-want +got):\n%s", diff)
	}
}

// InjectFault with Git fails the git requests its path matches, Count
// times: here one lost control push, then the same push answered.
func TestInjectGitFault(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api", "acme/control")
	s.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `^/acme/control\.git/git-receive-pack$`, Kind: ghstandin.FaultLostResponse, Count: 1})
	if diff := cmp.Diff([]ghstandin.Fault{{Git: true, Method: "POST", Path: `^/acme/control\.git/git-receive-pack$`, Kind: ghstandin.FaultLostResponse, Count: 1}}, s.Faults()); diff != "" {
		t.Errorf("Faults (-want +got):\n%s", diff)
	}
	api, control := clone(t, s, "acme/api"), clone(t, s, "acme/control")
	for _, w := range []string{api, control} {
		git(t, w, "commit", "--quiet", "--allow-empty", "-m", "work")
	}
	// Another repository's push is not matched.
	git(t, api, "push", "--quiet", "origin", "HEAD:refs/heads/work")
	want := git(t, control, "rev-parse", "HEAD")
	out, ok := gitTry(t, control, "push", "--quiet", "origin", "HEAD:refs/heads/main")
	if ok || !strings.Contains(out, "502") {
		t.Errorf("the matched push: ok=%v %q, want a 502", ok, out)
	}
	if got := remoteHead(t, s, "acme/control", "main"); got != want {
		t.Errorf("the lost push did not land: main is %q, want %s", got, want)
	}
	// Count 1: the fault is gone, and the push is up to date.
	if left := s.Faults(); len(left) != 0 {
		t.Errorf("faults still on after their one request: %+v", left)
	}
	if out, ok := gitTry(t, control, "push", "--quiet", "origin", "HEAD:refs/heads/main"); !ok {
		t.Errorf("the second push: %s", out)
	}
}

// A reset mid-body cuts git's answer after half of it: a clone fails and
// a push fails having landed, as a lost answer does; a retry succeeds.
func TestInjectGitResetMidBody(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	git(t, w, "commit", "--quiet", "--allow-empty", "-m", "work")
	want := git(t, w, "rev-parse", "HEAD")

	s.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `/git-receive-pack$`, Kind: ghstandin.FaultReset, Count: 1})
	if out, ok := gitTry(t, w, "push", "--quiet", "origin", "HEAD:refs/heads/work"); ok {
		t.Errorf("a push whose answer was cut succeeded: %q", out)
	}
	if got := remoteHead(t, s, "acme/api", "work"); got != want {
		t.Errorf("the push whose answer was cut did not land: work is %q, want %s", got, want)
	}
	git(t, w, "push", "--quiet", "origin", "HEAD:refs/heads/work")

	s.InjectFault(ghstandin.Fault{Git: true, Method: "POST", Path: `/git-upload-pack$`, Kind: ghstandin.FaultReset, Count: 1})
	dir := t.TempDir()
	if out, ok := gitTry(t, dir, "clone", "--quiet", s.GitURLWithToken("acme/api", s.MainToken()), "cut"); ok {
		t.Errorf("a clone whose pack was cut succeeded: %q", out)
	}
	again := clone(t, s, "acme/api")
	if got := git(t, again, "rev-parse", "origin/work"); got != want {
		t.Errorf("the retried clone has work at %s, want %s", got, want)
	}
}
