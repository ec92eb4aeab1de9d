package lessons_test

import (
	"fmt"

	"github.com/gallivant/gallivant/lessons"
)

// A lessons file is parsed with positioned diagnostics; Match picks the
// lessons whose scope covers the files in play.
func ExampleParse() {
	src := []byte(`# Lessons for acme/api

## Migrations are reversible
scope: db/migrations/**
sources: acme/api#31

Every migration has a down step that the CI job runs.

## Errors name the request
sources: acme/api#40

An error returned to a client carries the request id.
`)
	f, diags := lessons.Parse("lessons/acme/api.md", src)
	fmt.Println(f.Repo, len(f.Lessons), len(diags))
	for _, l := range f.Match([]string{"internal/limits.go"}) {
		fmt.Println(l.Title)
	}
	for _, l := range f.Match([]string{"db/migrations/0007_limits.sql"}) {
		fmt.Println(l.Title)
	}
	// Output:
	// acme/api 2 0
	// Errors name the request
	// Migrations are reversible
	// Errors name the request
}
