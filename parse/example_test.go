package parse_test

import (
	"fmt"

	"github.com/gallivant/gallivant/parse"
)

// Parse keeps every block's position, so that a rule reading the document
// can report file:line:col; the frontmatter is kept apart from the body.
func ExampleParse() {
	doc := parse.Parse("specs/x.md", []byte("---\nrepo: acme/api\n---\n# Title\n\n## Acceptance criteria\n1. It works.\n"))
	for _, h := range doc.Headings(2) {
		fmt.Println(doc.Path, h.Pos.Line, h.Text)
	}
	fmt.Println(doc.Front != nil, len(doc.Diagnostics))
	// Output:
	// specs/x.md 6 Acceptance criteria
	// true 0
}
