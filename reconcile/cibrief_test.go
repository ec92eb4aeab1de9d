package reconcile

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// A red-CI round brief carries why CI is red (issue 27): the status's
// description and target URL, the check run's title, summary and text, and
// the tail of the failing Actions job's log, quoted as data.
func TestDeliveryRedCIRoundBriefSaysWhy(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	r.pass()
	h1 := r.head(work)
	ci := r.gh.Client("ci-bot")
	ctx := context.Background()
	if _, _, err := ci.Repositories.CreateStatus(ctx, "acme", "api", h1, &github.RepoStatus{State: github.String("failure"), Context: github.String("ci"),
		Description: github.String("TestRow2 failed: row-2.txt is empty"), TargetURL: github.String("https://ci.example.com/build/7")}); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&log, "2026-12-01T10:00:%02dZ step %d\n", i%60, i)
	}
	log.WriteString("\x1b[31m--- FAIL: TestRow2 (0.00s)\x1b[0m\n    row_test.go:12: row-2.txt is empty\nFAIL\n")
	run, _, err := ci.Checks.CreateCheckRun(ctx, "acme", "api", github.CreateCheckRunOptions{Name: "test", HeadSHA: h1, Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("1 test failed"), Summary: github.String("TestRow2 failed"), Text: github.String("row_test.go:12: row-2.txt is empty")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.gh.SetJobLog("acme/api", run.GetID(), log.String()); err != nil {
		t.Fatal(err)
	}
	wantSubjects(t, r.pass(), "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	brief := r.runs[len(r.runs)-1].Brief
	for _, want := range []string{
		"## Why CI is red on `" + h1[:7] + "` (quoted data)",
		"### 1. check \"test\": failure",
		"title: 1 test failed",
		"Summary:\n\n```text\nTestRow2 failed\n```",
		"Details:\n\n```text\nrow_test.go:12: row-2.txt is empty\n```",
		"The end of the job's log (at most 40 lines):",
		"--- FAIL: TestRow2 (0.00s)\n    row_test.go:12: row-2.txt is empty\nFAIL\n```",
		"### 2. status \"ci\": failure",
		"description: TestRow2 failed: row-2.txt is empty\nurl: https://ci.example.com/build/7",
	} {
		if !strings.Contains(brief, want) {
			t.Errorf("the round brief lacks %q:\n%s", want, brief)
		}
	}
	if strings.Contains(brief, "step 1\n") || strings.Contains(brief, "\x1b") {
		t.Errorf("the brief quotes more than the log's tail, or a terminal code:\n%s", brief)
	}
}

func TestTail(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc"},
		{"a\r\nb\r\n\n\n", 5, "a\nb"},
		{"", 3, ""},
	} {
		if got := githubapi.Tail(strings.NewReader(tt.in), tt.n); got != tt.want {
			t.Errorf("Tail(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestCISectionCaps(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", ciOutputCap+10)
	got := CISection("abc1234", []githubapi.CIFailure{{Name: "lint", Kind: "check_run", Conclusion: "failure", Summary: long, LogProblem: "read the log of job 7 in acme/api: 403 Resource not accessible by integration"}})
	for _, want := range []string{"\n… (10 more characters cut)\n", "The job's log could not be read: read the log of job 7 in acme/api: 403 Resource not accessible by integration."} {
		if !strings.Contains(got, want) {
			t.Errorf("CISection lacks %q:\n%s", want, got)
		}
	}
	if diff := cmp.Diff("", CISection("abc1234", nil)); diff != "" {
		t.Errorf("no failures (-want +got):\n%s", diff)
	}
}
