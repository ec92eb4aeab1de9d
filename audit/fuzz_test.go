package audit

import (
	"os"
	"strings"
	"testing"
)

// FuzzVerify feeds the verifier arbitrary two-commit histories of one
// ledger under arbitrary messages: it never panics, and whatever it says
// names a section (docs/security.md, "every parser has a fuzz target").
func FuzzVerify(f *testing.F) {
	stopped, _ := os.ReadFile("testdata/stopped.md")
	running, _ := os.ReadFile("testdata/running.md")
	for _, s := range []struct {
		a, b, c []byte
		msg     string
	}{
		{running, stopped, stopped, "loop: stop allowance\n\nGallivant-Spec: specs/checkout.md\n"},
		{nil, running, stopped, "loop: seed ledger\n"},
		{stopped, []byte(strings.Replace(string(stopped), "allowance: 2", "allowance: 40", 1)), nil, "Edit\n"},
		{running, running, running, "loop: record home row 2\n\nGallivant-Head: x\n"},
		{stopped, stopped, stopped, "loop: retry row 2\n\nGallivant-Request: retry 2 | x\n"},
		{running, []byte("# Ledger - loop engine\n"), running, "loop: open pr a/b#1\n"},
	} {
		f.Add(s.a, s.b, s.c, s.msg)
	}
	f.Fuzz(func(t *testing.T, a, b, c []byte, msg string) {
		v := NewVerifier()
		for i, pair := range [][2][]byte{{a, b}, {b, c}} {
			for _, r := range v.Add(Commit{SHA: "x", Message: msg, Ledgers: []Change{{Path: "plans/x-ledger.md", Before: pair[0], After: pair[1]}}}) {
				for _, x := range r.Violations {
					if x.Section == "" || x.Message == "" {
						t.Fatalf("commit %d: violation without a section or message: %+v", i, x)
					}
				}
			}
		}
		_ = v.Report().Summary()
	})
}
