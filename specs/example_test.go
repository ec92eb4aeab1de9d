package specs_test

import (
	"fmt"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// A spec is parsed from its markdown: the frontmatter names the target,
// the numbered acceptance criteria become rows and `## Verify` the
// whole-suite check. Defaults fill what the frontmatter leaves out.
func ExampleParseSpec() {
	src := []byte(`---
repo: acme/api
---
# Rate limiter

## Acceptance criteria
1. Requests over 100 per minute per token get 429 with Retry-After.
2. Limits are configurable per plan.

## Verify
- ` + "`go test ./internal/ratelimit/...`" + `
`)
	sp, diags := specs.ParseSpec(parse.Parse("specs/rate-limiter.md", src), specs.Defaults{Base: "main"})
	fmt.Println(sp.Title, sp.Repo, sp.Base, len(sp.ACs), sp.Verify, len(diags))
	// Output: Rate limiter acme/api main 2 [go test ./internal/ratelimit/...] 0
}

// Every problem is a diagnostic with a position, a rule and a message that
// says what was expected; the spec still holds what could be read.
func ExampleParseSpec_diagnostics() {
	src := []byte("# No criteria\n\nJust prose.\n")
	_, diags := specs.ParseSpec(parse.Parse("specs/empty.md", src), specs.Defaults{Repo: "acme/api", Base: "main"})
	for _, d := range diags {
		fmt.Println(d.File, d.Line, d.Severity, d.Rule)
	}
	// Output: specs/empty.md 1 error spec/acceptance-criteria
}
