package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var pr12 = PullRef{Repo: "acme/api", Number: 12}

// subjectCases is one canonical subject of every form, spelled as the
// transitions wrote it before the vocabulary existed.
var subjectCases = []struct {
	want string
	sub  Subject
}{
	{"loop: seed ledger", Subject{Kind: KindSeedLedger}},
	{"loop: adopt acme/api#12", Subject{Kind: KindAdopt, PR: pr12}},
	{"loop: dispatch seed", Subject{Kind: KindDispatch, Row: SeedTarget}},
	{"loop: dispatch row 3", Subject{Kind: KindDispatch, Row: 3}},
	{"loop: record api seed", Subject{Kind: KindRecord, Member: "api", Row: SeedTarget}},
	{"loop: record web row 12", Subject{Kind: KindRecord, Member: "web", Row: 12}},
	{"loop: repair row 2", Subject{Kind: KindRepair, Row: 2}},
	{"loop: retry row 4", Subject{Kind: KindRetry, Row: 4}},
	{"loop: raise allowance", Subject{Kind: KindRaiseAllowance}},
	{"loop: reopen row 1", Subject{Kind: KindReopenRow, Row: 1}},
	{"loop: resume", Subject{Kind: KindResume}},
	{"loop: escalate row 7", Subject{Kind: KindEscalate, Row: 7}},
	{"loop: stop checks-red", Subject{Kind: KindStop, Reason: StopChecksRed}},
	{"loop: migrate allowance", Subject{Kind: KindMigrateAllowance}},
	{"loop: amend", Subject{Kind: KindAmend}},
	{"loop: cut row 5", Subject{Kind: KindCutRow, Row: 5}},
	{"loop: rerun seed", Subject{Kind: KindRerun, Row: SeedTarget}},
	{"loop: rerun row 2", Subject{Kind: KindRerun, Row: 2}},
	{"loop: withdraw seed", Subject{Kind: KindWithdraw, Row: SeedTarget}},
	{"loop: withdraw row 2", Subject{Kind: KindWithdraw, Row: 2}},
	{"loop: verify", Subject{Kind: KindVerify}},
	{"loop: repair verification", Subject{Kind: KindRepairVerification}},
	{"loop: open pr acme/api#12", Subject{Kind: KindOpenPR, PR: pr12}},
	{"loop: done acme/api#12", Subject{Kind: KindDone, PR: pr12}},
	{"loop: done", Subject{Kind: KindDone}},
	{"loop: follow acme/api#12", Subject{Kind: KindFollow, PR: pr12}},
	{"loop: ready for review acme/api#12", Subject{Kind: KindReadyForReview, PR: pr12}},
	{"loop: merge base acme/api#12", Subject{Kind: KindMergeBase, PR: pr12}},
	{"loop: unready acme/api#12", Subject{Kind: KindUnready, PR: pr12}},
	{"loop: ready acme/api#12", Subject{Kind: KindReady, PR: pr12}},
	{"loop: announced round 2 acme/api#12", Subject{Kind: KindAnnounced, Write: WriteNameRoundComment, Round: 2, PR: pr12}},
	{"loop: announced ready acme/api#12", Subject{Kind: KindAnnounced, Write: WriteNameReadyComment, PR: pr12}},
	{"loop: announced nudge acme/api#12", Subject{Kind: KindAnnounced, Write: "nudge", PR: pr12}},
	{"loop: ignore acme/api#12", Subject{Kind: KindIgnore, PR: pr12}},
	{"loop: round 1 acme/api#12", Subject{Kind: KindRound, Round: 1, PR: pr12}},
	{"loop: pushed round 3 acme/api#12", Subject{Kind: KindPushedRound, Round: 3, PR: pr12}},
	{"loop: empty round 3 acme/api#12", Subject{Kind: KindEmptyRound, Round: 3, PR: pr12}},
	{"loop: nudge acme/api#12", Subject{Kind: KindNudge, PR: pr12}},
	{"loop: reopen acme/api#12", Subject{Kind: KindReopenPR, PR: pr12}},
	{"loop: replace pr acme/api#12", Subject{Kind: KindReplacePR, PR: pr12}},
	{"loop: write failed ready-label", Subject{Kind: KindWriteFailed, Write: "ready-label"}},
	{"loop: write landed update-branch", Subject{Kind: KindWriteLanded, Write: "update-branch"}},
	{"loop: accept", Subject{Kind: KindAccept}},
	{"loop: raise budget", Subject{Kind: KindRaiseBudget}},
	{"loop: notify", Subject{Kind: KindNotify}},
	{"loop: row 3 done", Subject{Kind: KindRowResult, Row: 3, Status: Done}},
	{"loop: row 3 failed", Subject{Kind: KindRowResult, Row: 3, Status: Failed}},
	{"loop: seed evidence", Subject{Kind: KindSeedEvidence}},
	{"loop: request retry from acme/api#12 by @bob", Subject{Kind: KindRequest, Word: "retry", PR: pr12, By: "bob"}},
	{"loop: dispatch task T002", Subject{Kind: KindDispatchTask, Task: "T002"}},
	{"loop: dispatch task 2.1", Subject{Kind: KindDispatchTask, Task: "2.1"}},
	{"loop: record task 3 done", Subject{Kind: KindRecordTask, Task: "3", Status: Done}},
	{"loop: record task T002 failed", Subject{Kind: KindRecordTask, Task: "T002", Status: Failed}},
	{"loop: withdraw task T002", Subject{Kind: KindWithdrawTask, Task: "T002"}},
	{"loop: withdraw task 1.2", Subject{Kind: KindWithdrawTask, Task: "1.2"}},
	{"loop: task T002 done", Subject{Kind: KindTaskResult, Task: "T002", Status: Done}},
	{"loop: task 2.1 failed", Subject{Kind: KindTaskResult, Task: "2.1", Status: Failed}},
	{"loop: close rows by replay", Subject{Kind: KindCloseRows}},
	{"loop: learn acme/api#1", Subject{Kind: KindLearn, PR: PullRef{Repo: "acme/api", Number: 1}}},
	{"loop: propose lessons acme/control#3", Subject{Kind: KindProposeLessons, PR: PullRef{Repo: "acme/control", Number: 3}}},
	{"loop: no lessons acme/api#1", Subject{Kind: KindNoLessons, PR: PullRef{Repo: "acme/api", Number: 1}}},
	{"loop: refuse lessons acme/api#1", Subject{Kind: KindRefuseLessons, PR: PullRef{Repo: "acme/api", Number: 1}}},
	{"loop: lessons merged acme/control#3", Subject{Kind: KindLessonsMerged, PR: PullRef{Repo: "acme/control", Number: 3}}},
	{"loop: lessons declined acme/control#3", Subject{Kind: KindLessonsDeclined, PR: PullRef{Repo: "acme/control", Number: 3}}},
	// A leg's transition that names no pull request names its leg.
	{"loop: done leg web", Subject{Kind: KindDone, Leg: "web"}},
	{"loop: write failed ready-label leg api", Subject{Kind: KindWriteFailed, Write: "ready-label", Leg: "api"}},
	{"loop: verify leg api", Subject{Kind: KindVerify, Leg: "api"}},
	{"loop: repair verification leg leg", Subject{Kind: KindRepairVerification, Leg: "leg"}},
}

func TestSubjectRoundTrip(t *testing.T) {
	t.Parallel()
	covered := map[Kind]bool{}
	for _, tc := range subjectCases {
		covered[tc.sub.Kind] = true
		if got := tc.sub.String(); got != tc.want {
			t.Errorf("%+v.String() = %q; want %q", tc.sub, got, tc.want)
		}
		got, err := ParseSubject(tc.want)
		if err != nil {
			t.Errorf("ParseSubject(%q): %v", tc.want, err)
			continue
		}
		if diff := cmp.Diff(tc.sub, got); diff != "" {
			t.Errorf("ParseSubject(%q) (-want +got):\n%s", tc.want, diff)
		}
	}
	for _, k := range Kinds() {
		if !covered[k] {
			t.Errorf("kind %q has no round-trip case", k)
		}
		if !k.Known() {
			t.Errorf("Kinds() lists %q but it is not Known", k)
		}
	}
	if Kind("open").Known() {
		t.Error(`Kind("open").Known() = true; want false`)
	}
}

// A stop or a resume is the entry's own: it never carries a leg, and a
// pull-request subject names its leg by the pull request.
func TestSubjectLegOnlyWithoutPR(t *testing.T) {
	t.Parallel()
	for _, s := range []Subject{
		{Kind: KindStop, Reason: StopStuck, Leg: "api"},
		{Kind: KindResume, Leg: "api"},
		{Kind: KindReady, PR: pr12, Leg: "api"},
	} {
		got := s.String()
		if strings.Contains(got, " leg ") {
			t.Errorf("%+v.String() = %q; want no leg suffix", s, got)
		}
	}
}

func TestParseSubjectRefuses(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"",
		"loop:",
		"loop: ",
		"Loop: resume",
		"loop: resume now",
		"loop:  resume",
		"loop: resume ",
		"loop: dispatch row 0",
		"loop: dispatch row 03",
		"loop: dispatch row -1",
		"loop: dispatch row 1234567890",
		"loop: dispatch",
		"loop: round 1",
		"loop: round x acme/api#12",
		"loop: ready acme/api",
		"loop: ready acme/api#0",
		"loop: ready #12",
		"loop: announced round-comment acme/api#12",
		"loop: row 3 open",
		"loop: stop",
		"loop: stop leg api",
		"loop: resume leg api",
		"loop: ready acme/api#12 leg api",
		"loop: seed\tledger",
		"loop: " + strings.Repeat("x", maxSubject),
	} {
		got, err := ParseSubject(s)
		var se *SubjectError
		if !errors.As(err, &se) {
			t.Errorf("ParseSubject(%q) = %+v, %v; want a *SubjectError", s, got, err)
		}
	}
}

// docSubjectRE finds a concrete subject in a code span of the docs (no
// placeholder such as <n>).
var docSubjectRE = regexp.MustCompile("`(loop: [^`<>…|]+)`")

// Every concrete subject the docs and the ledger's golden files show
// parses, and renders back byte for byte; a span that names a kind by its
// fixed words (`loop: open pr`) names a known kind.
func TestSubjectsOfDocsParse(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, _ := filepath.Glob("testdata/*.golden.md")
	n := 0
	for _, f := range append(files, golden...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docSubjectRE.FindAllStringSubmatch(string(b), -1) {
			s := strings.TrimSpace(m[1])
			if strings.Contains(s, "...") || strings.ContainsAny(s, "\n") {
				continue
			}
			n++
			if k := Kind(strings.TrimPrefix(s, SubjectPrefix)); k.Known() {
				// The docs name a kind by its fixed words.
				continue
			}
			sub, err := ParseSubject(s)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if got := sub.String(); got != s {
				t.Errorf("%s: ParseSubject(%q).String() = %q", f, s, got)
			}
		}
	}
	if n < 20 {
		t.Errorf("found %d subjects in the docs; want at least 20 (is the pattern still right?)", n)
	}
}

func FuzzParseSubject(f *testing.F) {
	for _, tc := range subjectCases {
		f.Add(tc.want)
	}
	f.Add("loop: announced round acme/api#1")
	f.Add("loop: record leg row 1 leg x")
	f.Fuzz(func(t *testing.T, s string) {
		sub, err := ParseSubject(s)
		if err != nil {
			var se *SubjectError
			if !errors.As(err, &se) {
				t.Fatalf("ParseSubject(%q) error %T, want *SubjectError", s, err)
			}
			return
		}
		if !sub.Kind.Known() {
			t.Fatalf("ParseSubject(%q) kind %q is not known", s, sub.Kind)
		}
		if got := sub.String(); got != s {
			t.Fatalf("ParseSubject(%q).String() = %q", s, got)
		}
		again, err := ParseSubject(sub.String())
		if err != nil || again != sub {
			t.Fatalf("ParseSubject(String()) = %+v, %v; want %+v", again, err, sub)
		}
	})
}
