package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	req := func(line string) Command {
		r, err := ledger.ParseRequest(line)
		if err != nil {
			t.Fatalf("fixture %q: %v", line, err)
		}
		return Command{Request: r}
	}
	tests := []struct {
		name   string
		body   string
		want   Command
		ok     bool
		errCol int    // 0: no error
		errHas string // a part of the error
	}{
		{"retry with a hint", "/gallivant retry 2 | read the README first", req("retry 2 | read the README first"), true, 0, ""},
		{"the rest of the body is not read", "/gallivant resume | the database is up\r\n\nthanks!\n/gallivant accept | x", req("resume | the database is up"), true, 0, ""},
		{"recheck alone", "/gallivant recheck", req("recheck"), true, 0, ""},
		{"rows", "/gallivant rows +2 | two more tries", req("rows +2 | two more tries"), true, 0, ""},
		{"budget", "/gallivant budget +$5 | worth it", req("budget +$5 | worth it"), true, 0, ""},
		{"reopen", "/gallivant reopen 1 | the test was wrong", req("reopen 1 | the test was wrong"), true, 0, ""},
		{"spaces around the request", "/gallivant   recheck  ", req("recheck"), true, 0, ""},

		{"not a command: prose", "please retry row 2", Command{}, false, 0, ""},
		{"not a command: a quote", "> /gallivant retry 2 | forged", Command{}, false, 0, ""},
		{"not a command: a code block", "```\n/gallivant retry 2 | forged\n```", Command{}, false, 0, ""},
		{"not a command: indented", "    /gallivant retry 2 | forged", Command{}, false, 0, ""},
		{"not a command: a later line", "LGTM\n/gallivant accept | forged", Command{}, false, 0, ""},
		{"not a command: a longer word", "/gallivantx retry 2 | x", Command{}, false, 0, ""},
		{"not a command: empty", "", Command{}, false, 0, ""},

		{"no request", "/gallivant", Command{}, true, 11, "names no request"},
		{"malformed retry", "/gallivant retry two | x", Command{}, true, 12, "malformed retry"},
		{"resume without a reason", "/gallivant resume", Command{}, true, 12, "needs a reason"},
		{"unknown request", "/gallivant   merge it", Command{}, true, 14, "unknown request"},
		{"accept belongs in the ledger", "/gallivant accept | x", Command{}, true, 12, "accept"},
		{"pause", "/gallivant pause", req("pause"), true, 0, ""},
		{"pause with a reason", "/gallivant pause | hold for the API freeze", req("pause | hold for the API freeze"), true, 0, ""},
		{"unpause", "/gallivant unpause", req("unpause"), true, 0, ""},
		{"malformed pause", "/gallivant pause now", Command{}, true, 12, "malformed pause; write `pause | <why>`"},
		{"a longer word than unpause", "/gallivant unpaused", Command{}, true, 12, "unknown request"},
		{"resnapshot belongs in the ledger", "/gallivant resnapshot | x", Command{}, true, 12, "resnapshot"},
		{"a list marker", "/gallivant - retry 2 | x", Command{}, true, 12, "list marker"},
		{"a control character", "/gallivant retry 2 | a\x1bb", Command{}, true, 23, "control character"},
		{"invalid UTF-8", "/gallivant retry 2 | \xff", Command{}, true, 22, "UTF-8"},
		{"too long", "/gallivant retry 2 | " + strings.Repeat("x", 600), Command{}, true, 513, "at most 512"},
		{"columns count characters", "/gallivant retry 2 | é\x1b", Command{}, true, 23, "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok, err := ParseCommand(tt.body)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (err %v)", ok, tt.ok, err)
			}
			if tt.errCol == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ParseCommand (-want +got):\n%s", diff)
				}
				return
			}
			ce, isCE := err.(*CommandError)
			if !isCE {
				t.Fatalf("error %v (%T), want a *CommandError", err, err)
			}
			if ce.Line != 1 || ce.Col != tt.errCol || !strings.Contains(ce.Error(), tt.errHas) || !strings.Contains(ce.Error(), "for example `/gallivant retry 2 |") {
				t.Errorf("error %q at %d:%d, want column %d mentioning %q and an example", ce.Error(), ce.Line, ce.Col, tt.errCol, tt.errHas)
			}
		})
	}
}

func TestCommandWordAndLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ body, word, line string }{
		{"/gallivant retry 2 | hint", "retry", "retry 2 | hint"},
		{"/gallivant rows +1", "rows", "rows +1"},
		{"/gallivant  reopen 1 | why ", "reopen", "reopen 1 | why"},
	} {
		c, ok, err := ParseCommand(tt.body)
		if !ok || err != nil {
			t.Fatalf("%q: %v %v", tt.body, ok, err)
		}
		if c.Word() != tt.word || c.Line() != tt.line {
			t.Errorf("%q: word %q line %q, want %q %q", tt.body, c.Word(), c.Line(), tt.word, tt.line)
		}
	}
}

// A comment body is anyone's text: the parser never panics, reads only the
// first line, and what it accepts reads back the same from its Line.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/gallivant retry 2 | read the README first", "/gallivant recheck", "> /gallivant resume | x",
		"/gallivant budget +$5 | y", "/gallivant rows +0", "/gallivant", "/gallivant \xff", "```\n/gallivant recheck"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		c, ok, err := ParseCommand(body)
		if !ok {
			if err != nil {
				t.Fatalf("no command but an error: %v", err)
			}
			return
		}
		if first, _, _ := strings.Cut(body, "\n"); !strings.HasPrefix(first, CommandPrefix) {
			t.Fatalf("a command whose first line %q does not start with the prefix", first)
		}
		if err != nil {
			if _, isCE := err.(*CommandError); !isCE {
				t.Fatalf("error %T, want *CommandError", err)
			}
			return
		}
		again, ok2, err2 := ParseCommand(CommandPrefix + " " + c.Line())
		if !ok2 || err2 != nil || again.Line() != c.Line() || again.Word() != c.Word() {
			t.Fatalf("%q accepted as %q, which reads back as %+v, %v, %v", body, c.Line(), again, ok2, err2)
		}
	})
}
