package githubapi

import (
	"encoding/json"
	"testing"
)

// Marks are the caller's: kept per pull request, dropped by nil or per
// repository (case-insensitively, as GitHub names repositories), and an
// unchanged mark is not a change the state file must be rewritten for.
func TestMarks(t *testing.T) {
	g, err := New(Options{APIURL: "https://ghe.example/api/v3/", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	g.SetMark("acme/api", 1, json.RawMessage(`{"a":1}`))
	g.SetMark("acme/api", 2, json.RawMessage(`{"a":2}`))
	g.SetMark("acme/web", 1, json.RawMessage(`{"w":1}`))
	if m, ok := g.Mark("acme/api", 1); !ok || string(m) != `{"a":1}` {
		t.Errorf("Mark(acme/api, 1) = %s, %v", m, ok)
	}
	changes := g.quietChanges
	g.SetMark("acme/api", 1, json.RawMessage(`{"a":1}`))
	if g.quietChanges != changes {
		t.Errorf("an unchanged mark counted as a change")
	}
	g.SetMark("acme/api", 2, nil)
	if _, ok := g.Mark("acme/api", 2); ok {
		t.Errorf("a nil mark did not drop it")
	}
	g.ForgetMarks("ACME/Api")
	if _, ok := g.Mark("acme/api", 1); ok {
		t.Errorf("ForgetMarks kept a mark of its repository")
	}
	if _, ok := g.Mark("acme/web", 1); !ok {
		t.Errorf("ForgetMarks dropped another repository's mark")
	}
}
