package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/lessons"
)

// The round and verification-repair briefs quote the lessons they are
// given before saying what to do, and none when given none.
func TestBriefsCarryLessons(t *testing.T) {
	t.Parallel()
	f, ds := lessons.Parse("lessons/acme/api.md", []byte("## Keep tests beside the code\nsources: acme/api#3\n\nTests go in _test.go files beside the code.\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	bl := &ledger.BriefLessons{Path: f.Path, Repo: f.Repo, Commit: strings.Repeat("c", 40), Blob: strings.Repeat("b", 40), InPlay: "the files", Applying: f.Lessons, Total: 1}
	tests := []struct {
		name  string
		brief func(*ledger.BriefLessons) string
		next  string
	}{
		{"round", func(bl *ledger.BriefLessons) string {
			return FixBrief(FixBriefInput{PR: PR{Repo: "acme/api", Number: 1}, Title: "T", Round: 1, MaxRounds: 3, Branch: "gallivant/t", Lessons: bl})
		}, "\n## What to do\n"},
		{"verification repair", func(bl *ledger.BriefLessons) string {
			return VerifyBrief(VerifyBriefInput{Title: "T", Repo: "acme/api", Branch: "gallivant/t", Command: "go test ./...", Tail: "FAIL", Lessons: bl})
		}, "\nMake the command pass on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.brief(bl)
			at := strings.Index(got, "## Lessons for acme/api (quoted data)")
			if at < 0 || !strings.Contains(got, "### Keep tests beside the code\n\n```text\nscope: everywhere (no scope)\nsources: acme/api#3\n\nTests go in _test.go files beside the code.\n```\n") {
				t.Fatalf("the brief does not quote the lesson:\n%s", got)
			}
			if next := strings.Index(got, tt.next); next < at {
				t.Errorf("the lessons are not before %q:\n%s", tt.next, got)
			}
			if none := tt.brief(nil); strings.Contains(none, "## Lessons") {
				t.Errorf("a brief without lessons has a lessons section:\n%s", none)
			}
		})
	}
}
