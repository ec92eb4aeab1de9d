package main

import (
	"strings"
	"testing"

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
			Carried: []carriedVersion{{Blob: b2, Dispatches: 2, Current: true}, {Blob: b1, Dispatches: 1}}},
		{Repo: "acme/gone", Path: "lessons/acme/gone.md", Lessons: []lessonJSON{}, Carried: []carriedVersion{{Blob: b1, Dispatches: 1}}},
		{Repo: "acme/web", Path: "lessons/acme/web.md", Blob: b3, Errors: true, Lessons: []lessonJSON{}, Carried: []carriedVersion{}},
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
