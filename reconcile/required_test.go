package reconcile

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// baseReads counts, in the stand-in's log, the reads of a base branch's
// repository rules and of its classic protection, and how many of the
// latter were charged.
func baseReads(r *rig) (rules, protection, charged int) {
	for _, q := range r.gh.Requests() {
		switch {
		case strings.Contains(q.Path, "/rules/branches/"):
			rules++
		case strings.HasSuffix(q.Path, "/protection"):
			protection++
			if q.Counted {
				charged++
			}
		}
	}
	return rules, protection, charged
}

// Issue 33: two pull requests waiting for CI on one unprotected base have
// their checks read every pass, in the repository's GraphQL query
// (rollup.go), which does not read what the base requires: a pass that
// reads them in full (the first, the 30-minute refresh) reads the base's
// rules once, however many pull requests target it, and an idle pass
// none. The branch protection's 404, which costs rate limit every time
// it is asked, is asked once over an hour of daemon passes, and again
// only when gallivant.yaml changes or the base moves.
func TestBaseRequirementsOncePerBase(t *testing.T) {
	t.Parallel()
	config := strings.Replace(rigConfig, "  none: [acme/api]\n", "  wait: 3h\n", 1)
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "specs/other.md": specWith(1, ""), "gallivant.yaml": config})
	pass := daemonPasses(t, r.reconciler())
	if opened := countSubjects(pass(), "loop: open pr"); opened != 2 {
		t.Fatalf("first pass opened %d pull requests, want 2", opened)
	}
	type reads struct{ rules, protection, charged int }
	step := func() reads {
		t.Helper()
		r.clock.Advance(5 * time.Minute)
		r.gh.ResetLog()
		rep := pass()
		if strings.Contains(noteOf(rep), "checks-silent") {
			t.Fatalf("checks.wait fired: %s", noteOf(rep))
		}
		ru, pr, ch := baseReads(r)
		return reads{ru, pr, ch}
	}
	var got, want []reads
	// The pass that opened them read the protection; an hour of passes
	// reads only the rules, in the first full read of both and in the
	// refresh 30 minutes later.
	for i := range 12 {
		got = append(got, step())
		if i%6 == 0 {
			want = append(want, reads{1, 0, 0})
		} else {
			want = append(want, reads{})
		}
	}
	r.edit("gallivant.yaml", func(s string) string { return s + "# a comment\n" })
	got = append(got, step(), step())
	want = append(want, reads{1, 1, 1}, reads{})
	r.personPush("main", "base.txt")
	got = append(got, step(), step())
	want = append(want, reads{1, 1, 1}, reads{})
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(reads{})); diff != "" {
		t.Errorf("base reads per pass (-want +got):\n%s", diff)
	}
}
