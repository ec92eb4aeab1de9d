package audit

import (
	"os"
	"strings"
	"testing"
)

// FuzzVerify feeds the verifier two-commit histories of one ledger under
// arbitrary messages: it never panics, and whatever it says names a section
// (docs/security.md, "every parser has a fuzz target"). The histories are
// the testdata ledgers with an arbitrary splice each (at an offset, replace
// some bytes with others), so that every input stays a few bytes long: the
// fuzzer minimizes each input that finds new coverage, and minimizing three
// whole ledgers took it past a 30 s run (issue 33: 8 inputs in 30 s).
func FuzzVerify(f *testing.F) {
	stopped, _ := os.ReadFile("testdata/stopped.md")
	running, _ := os.ReadFile("testdata/running.md")
	bases := [][]byte{nil, running, stopped, []byte(strings.Replace(string(stopped), "allowance: 2", "allowance: 40", 1)), []byte("# Ledger - loop engine\n")}
	for _, s := range []struct {
		a, b, c uint8
		msg     string
	}{
		{1, 2, 2, "loop: stop allowance\n\nGallivant-Spec: specs/checkout.md\n"},
		{0, 1, 2, "loop: seed ledger\n"},
		{2, 3, 0, "Edit\n"},
		{1, 1, 1, "loop: record home row 2\n\nGallivant-Head: x\n"},
		{2, 2, 2, "loop: retry row 2\n\nGallivant-Request: retry 2 | x\n"},
		{1, 4, 1, "loop: open pr a/b#1\n"},
	} {
		f.Add(s.a, s.b, s.c, uint16(0), uint8(0), []byte(nil), s.msg)
	}
	f.Add(uint8(1), uint8(2), uint8(2), uint16(40), uint8(3), []byte("| 9 |"), "loop: stop allowance\n")
	f.Fuzz(func(t *testing.T, a, b, c uint8, off uint16, cut uint8, with []byte, msg string) {
		pick := func(i uint8) []byte { return bases[int(i)%len(bases)] }
		la, lb, lc := pick(a), splice(pick(b), int(off), int(cut), with), pick(c)
		v := NewVerifier()
		for i, pair := range [][2][]byte{{la, lb}, {lb, lc}} {
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

// splice returns a copy of b with cut bytes at off (both clamped to b)
// replaced by with.
func splice(b []byte, off, cut int, with []byte) []byte {
	off = min(off, len(b))
	cut = min(cut, len(b)-off)
	out := make([]byte, 0, len(b)-cut+len(with))
	out = append(out, b[:off]...)
	out = append(out, with...)
	return append(out, b[off+cut:]...)
}
