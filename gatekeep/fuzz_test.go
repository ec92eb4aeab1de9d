package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// The body regions, the cursor and PR references are read from text that
// people and remote systems control: they must never panic, and what they
// accept must render back to what they read.

func FuzzParseIdentity(f *testing.F) {
	f.Add(`<!-- gallivant:identity {"control":"acme/control","spec":"specs/x.md","ledger":"plans/x-ledger.md","member":"home","contract":"5e1f0a9b3c2d"} -->`)
	f.Add("<!-- gallivant:identity {} -->\n")
	f.Add("no block")
	f.Fuzz(func(t *testing.T, body string) {
		id, err := ParseIdentity(body)
		if err != nil {
			return
		}
		again, err := ParseIdentity(id.Block())
		if err != nil || *again != *id {
			t.Fatalf("accepted %q but its rendering %q reads back as %v, %v", body, id.Block(), again, err)
		}
	})
}

func FuzzParseReceipt(f *testing.F) {
	f.Add(receiptOpen + "\n| AC | status | evidence |\n|---|---|---|\n| 1 | done | go test ./x; ok |\n| 2 | cut | deferred: later \\| maybe |\n" + receiptClose)
	f.Add(receiptOpen + receiptClose)
	f.Fuzz(func(t *testing.T, body string) {
		lines, err := ParseReceipt(body)
		if err != nil {
			return
		}
		// ACs rise strictly from 1 or more: a coordinated spec's leg
		// lists only its own (1, 3).
		prev := 0
		for i, l := range lines {
			if l.AC <= prev {
				t.Fatalf("line %d names AC %d after AC %d", i+1, l.AC, prev)
			}
			prev = l.AC
		}
		if strings.Contains(body, "\r") {
			return
		}
		again, err := ParseReceipt(RenderReceipt(lines))
		if err != nil || ReceiptHash(again) != ReceiptHash(lines) {
			t.Fatalf("rendering of %q does not read back: %v", body, err)
		}
	})
}

func FuzzParseSince(f *testing.F) {
	f.Add("2026-11-29T10:00:00Z 3 17")
	f.Add("")
	f.Add("2026-11-29T10:00:00+02:00 1")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseSince(s)
		if err != nil {
			return
		}
		again, err := ParseSince(c.String())
		if err != nil || again.String() != c.String() {
			t.Fatalf("%q renders as %q, which reads back as %q, %v", s, c.String(), again.String(), err)
		}
	})
}

func FuzzParsePR(f *testing.F) {
	f.Add("acme/api#3")
	f.Add("#12")
	f.Add("https://github.com/acme/api/pull/3/files")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePR(s, "acme/api")
		if err != nil {
			return
		}
		again, err := ParsePR(p.String(), "")
		if err != nil || again != p {
			t.Fatalf("%q reads as %v; its rendering reads back as %v, %v", s, p, again, err)
		}
	})
}

// A prove result is written by a workflow in the member repository: its
// admission never panics, and what it admits holds only runs on the head
// of done rows' own evidence commands.
func FuzzAdmitProveResult(f *testing.F) {
	f.Add(ProveExample)
	f.Add(ProveHeader + "\nhead " + strings.Repeat("1", 40) + "\nverify | exit 0 | go test ./...\nrow 1 | " + strings.Repeat("1", 40) + " | exit 0 | 1+ tests | 3ms | go test ./limiter -run TestLimit\n")
	f.Add(ProveHeader + "\nhead x\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, data string) {
		l, _ := proofFixture(t)
		h := strings.Repeat("1", 40)
		res, err := AdmitProveResult(l, h, []string{"go test ./..."}, []byte(data))
		if err != nil {
			return
		}
		for _, p := range res.Proofs {
			r, ok := l.Row(p.Row)
			if !ok || r.Status != ledger.Done || p.Head != h || p.CarriedFrom != "" {
				t.Fatalf("admitted %q with the proof %v", data, p)
			}
		}
		if len(res.Verify) != 1 {
			t.Fatalf("admitted %q with Verify runs %v", data, res.Verify)
		}
	})
}
