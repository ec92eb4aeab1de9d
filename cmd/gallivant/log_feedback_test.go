package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// gallivant log shows the feedback a delivered entry's rounds answered on
// its loop: done line (docs/learning.md "Feedback of delivered work"),
// every piece in its Gallivant-Feedback trailer, and nothing of the quoted
// words, which only `git show` prints.
func TestLogShowsTheFeedbackOfADone(t *testing.T) {
	t.Parallel()
	head := strings.Repeat("e", 40)
	c := gatekeep.WithFeedback(ledger.Commit{Subject: "loop: done acme/api#1", Sentence: "acme/api#1 was merged into main as eeeeeee.",
		Trailers: []ledger.Trailer{{Key: ledger.TrailerPR, Value: "acme/api#1"}, {Key: ledger.TrailerHead, Value: head}}},
		[]gatekeep.Candidate{{Round: 1, Source: gatekeep.SourceReview, ID: 4, Author: "alice", URL: "https://github.com/acme/api/pull/1#pullrequestreview-4",
			Text: "Round to whole cents.\nGallivant-Head: " + strings.Repeat("0", 40), From: strings.Repeat("1", 40), To: strings.Repeat("2", 40)}}, "")
	entries := []store.LogEntry{{SHA: strings.Repeat("a", 40), When: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC), Subject: c.Subject, Message: c.Message()}}
	out, order := logLines(entries, false, nil)
	want := map[string]string{"PR": "acme/api#1", "Head": head, "Feedback": "https://github.com/acme/api/pull/1#pullrequestreview-4 by @alice round 1 1111111..2222222"}
	if len(out) != 1 {
		t.Fatalf("%d log lines, want 1", len(out))
	}
	if d := cmp.Diff(want, out[0].Trailers); d != "" {
		t.Errorf("trailers of the done line (-want +got):\n%s", d)
	}
	var b bytes.Buffer
	a := &app{io: streams{Out: &b}, env: func(string) string { return "" }}
	a.printLog(out, order)
	if want := "aaaaaaa 2026-12-01 09:30 loop: done acme/api#1  [PR=acme/api#1 Head=eeeeeee Feedback=https://github.com/acme/api/pull/1#pullrequestreview-4 by @alice round 1 1111111..2222222]\n"; b.String() != want {
		t.Errorf("gallivant log printed\n%q\nwant\n%q", b.String(), want)
	}
}
