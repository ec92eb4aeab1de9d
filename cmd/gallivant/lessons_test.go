package main

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

func TestLessonsListing(t *testing.T) {
	t.Parallel()
	b1, b2, b3 := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40)
	files := []specs.File{
		{Path: "lessons/acme/web.md", ID: b3, Data: []byte("## Broken\n\nno sources\n")},
		{Path: "lessons/acme/api.md", ID: b2, Data: []byte("## Cents\nscope: billing/**\nsources: acme/api#1\n\nRound to cents.\n")},
		{Path: "lessons/README.md", ID: b1, Data: []byte("# About lessons\n")},
	}
	msg := func(v string) string {
		return (ledger.Commit{Subject: "loop: dispatch row 1", Sentence: "s.", Trailers: []ledger.Trailer{{Key: ledger.TrailerLessons, Value: v}}}).Message()
	}
	messages := []string{msg("lessons/acme/api.md@" + b1), msg("lessons/acme/api.md@" + b2), msg("lessons/acme/api.md@" + b2),
		msg("lessons/acme/gone.md@" + b1), msg("not a trailer value"), "loop: seed ledger\n\nGallivant-Spec: specs/a.md\n"}
	got := lessonsListing(files, messages, "")
	want := []lessonsRepoJSON{
		{Repo: "acme/api", Path: "lessons/acme/api.md", Blob: b2, Lessons: []lessonJSON{{Title: "Cents", Scope: []string{"billing/**"}, Sources: []string{"acme/api#1"}}},
			Carried: []carriedVersion{{Blob: b2, Dispatches: 2, Current: true}, {Blob: b1, Dispatches: 1}}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}},
		{Repo: "acme/gone", Path: "lessons/acme/gone.md", Lessons: []lessonJSON{}, Carried: []carriedVersion{{Blob: b1, Dispatches: 1}}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}},
		{Repo: "acme/web", Path: "lessons/acme/web.md", Blob: b3, Errors: true, Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lessonsListing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:1], lessonsListing(files, messages, "acme/api")); diff != "" {
		t.Errorf("lessonsListing for acme/api (-want +got):\n%s", diff)
	}
	var text strings.Builder
	writeLessonsText(&text, got)
	for _, line := range []string{"acme/gone\tlessons/acme/gone.md\tgone from the control branch\n", "acme/web\tlessons/acme/web.md@3333333\t0 lessons, not carried: the file has errors (gallivant check lessons/acme/web.md)\n  carried: never\n",
		"  carried: 2222222 (this version) by 2 dispatches\n  carried: 1111111 by 1 dispatch\n"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the listing lacks %q:\n%s", line, text.String())
		}
	}
}

// The feedback of delivered work that no lesson cites yet is listed under
// its repository, once; a lesson citing the comment's anchor uses it up,
// a lesson citing only the whole pull request does not, and a trailer on
// anything but that pull request's loop: done commit is not feedback.
func TestLessonsListingFeedback(t *testing.T) {
	t.Parallel()
	b2 := strings.Repeat("2", 40)
	files := []specs.File{{Path: "lessons/acme/api.md", ID: b2, Data: []byte("## Cents\nsources: acme/api#1, https://github.com/acme/api/pull/1#pullrequestreview-4\n\nRound to cents.\n")}}
	fb := func(url, who string) ledger.Trailer {
		return ledger.Trailer{Key: gatekeep.TrailerFeedback, Value: url + " by @" + who + " round 1 1f430b0..358e461"}
	}
	done := func(subject string, ts ...ledger.Trailer) string {
		return (ledger.Commit{Subject: subject, Sentence: "s.", Trailers: ts}).Message()
	}
	api1 := "https://github.com/acme/api/pull/1"
	commits := []doneFeedback{
		{SHA: strings.Repeat("a", 40), Message: done("loop: done acme/api#1", fb(api1+"#pullrequestreview-4", "alice"), fb(api1+"#issuecomment-8", "bob"))},
		{SHA: strings.Repeat("b", 40), Message: done("loop: done acme/api#1", fb(api1+"#issuecomment-8", "bob"))},
		{SHA: strings.Repeat("c", 40), Message: done("loop: done acme/web#3", fb("https://github.com/acme/web/pull/3#discussion_r9", "carol"), fb(api1+"#issuecomment-10", "mallory"))},
		{SHA: strings.Repeat("d", 40), Message: done("loop: round 1 acme/api#1", fb(api1+"#issuecomment-11", "mallory"))},
		{SHA: strings.Repeat("e", 40), Message: done("a person's commit", fb(api1+"#issuecomment-12", "mallory"))},
	}
	got := withFeedback(lessonsListing(files, nil, ""), commits, "")
	want := []lessonsRepoJSON{
		{Repo: "acme/api", Path: "lessons/acme/api.md", Blob: b2, Lessons: []lessonJSON{{Title: "Cents", Scope: []string{}, Sources: []string{"acme/api#1", api1 + "#pullrequestreview-4"}}},
			Carried: []carriedVersion{}, Feedback: []feedbackJSON{{URL: api1 + "#issuecomment-8", Author: "bob", Round: 1, Range: "1f430b0..358e461", Done: strings.Repeat("a", 40)}}, Proposals: []proposalJSON{}},
		{Repo: "acme/web", Path: "lessons/acme/web.md", Lessons: []lessonJSON{}, Carried: []carriedVersion{},
			Feedback: []feedbackJSON{{URL: "https://github.com/acme/web/pull/3#discussion_r9", Author: "carol", Round: 1, Range: "1f430b0..358e461", Done: strings.Repeat("c", 40)}}, Proposals: []proposalJSON{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withFeedback (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], withFeedback(lessonsListing(files, nil, "acme/web"), commits, "acme/web")); diff != "" {
		t.Errorf("withFeedback for acme/web (-want +got):\n%s", diff)
	}
	var text strings.Builder
	writeLessonsText(&text, got)
	for _, line := range []string{
		"  feedback no lesson cites: https://github.com/acme/api/pull/1#issuecomment-8 by @bob (round 1, answered by 1f430b0..358e461; loop: done aaaaaaa)\n",
		"acme/web\tlessons/acme/web.md\tno lessons file yet\n  carried: never\n  feedback no lesson cites: https://github.com/acme/web/pull/3#discussion_r9 by @carol",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the listing lacks %q:\n%s", line, text.String())
		}
	}
}

// The lessons proposals of the control history are listed under the
// target repository they learned from: an open one with its candidates, a
// declined one as declined, a merged one not at all (its lessons are in
// the file); a commit of any other kind proposes nothing.
func TestLessonsListingProposals(t *testing.T) {
	t.Parallel()
	msg := func(subject, text, delivered string) string {
		return (ledger.Commit{Subject: subject, Sentence: "s.", Text: text, Trailers: []ledger.Trailer{{Key: ledger.TrailerSpec, Value: "specs/a.md"}, {Key: ledger.TrailerPR, Value: delivered}}}).Message()
	}
	sha := func(c string) string { return strings.Repeat(c, 40) }
	learned := []doneFeedback{
		{SHA: sha("a"), Message: msg("loop: propose lessons acme/control#1", "- candidate 3fa85f6457c2: Round to whole cents\n- candidate 0a1b2c3d4e5f: Never log bodies", "acme/api#1")},
		{SHA: sha("b"), Message: msg("loop: propose lessons acme/control#2", "- candidate 111111111111: Escape output", "acme/web#4")},
		{SHA: sha("c"), Message: msg("loop: lessons declined acme/control#2", "", "acme/web#4")},
		{SHA: sha("d"), Message: msg("loop: propose lessons acme/control#3", "- candidate 222222222222: Merged one", "acme/api#2")},
		{SHA: sha("e"), Message: msg("loop: lessons merged acme/control#3", "", "acme/api#2")},
		{SHA: sha("f"), Message: msg("loop: lessons declined acme/control#9", "", "acme/api#2")},
	}
	for _, c := range learned {
		if !learnRecord(c.Message) {
			t.Errorf("learnRecord(%q) = false", c.Message)
		}
	}
	if learnRecord(msg("loop: learn acme/api#1", "", "acme/api#1")) || learnRecord("a person's commit\n") {
		t.Error("learnRecord takes a commit that records no proposal")
	}
	got := withProposals(nil, learned, "")
	want := []lessonsRepoJSON{
		{Repo: "acme/api", Path: "lessons/acme/api.md", Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{
			{PR: "acme/control#1", State: "open", Spec: "specs/a.md", Delivered: "acme/api#1", Proposed: sha("a"),
				Candidates: []candidateJSON{{Fingerprint: "3fa85f6457c2", Title: "Round to whole cents"}, {Fingerprint: "0a1b2c3d4e5f", Title: "Never log bodies"}}}}},
		{Repo: "acme/web", Path: "lessons/acme/web.md", Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{
			{PR: "acme/control#2", State: "declined", Spec: "specs/a.md", Delivered: "acme/web#4", Proposed: sha("b"), Candidates: []candidateJSON{{Fingerprint: "111111111111", Title: "Escape output"}}}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withProposals (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], withProposals(nil, learned, "acme/web")); diff != "" {
		t.Errorf("withProposals for acme/web (-want +got):\n%s", diff)
	}
	var text strings.Builder
	writeLessonsText(&text, got)
	for _, line := range []string{
		"  proposal acme/control#1 open, waiting for a person to merge or close it (from acme/api#1, specs/a.md; loop: propose lessons aaaaaaa)\n    candidate 3fa85f6457c2: Round to whole cents\n",
		"  proposal acme/control#2 declined: never proposed again (from acme/web#4, specs/a.md; loop: propose lessons bbbbbbb)\n",
	} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the listing lacks %q:\n%s", line, text.String())
		}
	}
	if strings.Contains(text.String(), "Merged one") {
		t.Errorf("a merged proposal is listed:\n%s", text.String())
	}
}
