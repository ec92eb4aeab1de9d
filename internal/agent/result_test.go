package agent

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

func TestParseResult(t *testing.T) {
	tests := []struct {
		name, file string
		want       Result
		err        string // a substring of the error; "" for none
	}{
		{"a row", "status: done\nevidence: go test ./x -run TestY; ok\ndecision: works | next row\n",
			Result{Status: "done", Evidence: "go test ./x -run TestY; ok", Decision: "works | next row"}, ""},
		{"any order, CRLF and blank lines", "decision: a | b\r\n\r\nevidence: e\r\nstatus: failed\r\n",
			Result{Status: "failed", Evidence: "e", Decision: "a | b"}, ""},
		{"a seed", "row 1: open | test -f a; FAIL\nrow 2: done | test -f b; ok\ndecision: seeded 2 rows, closed 1 on baseline | row 1\n",
			Result{Rows: []ResultRow{{1, "open", "test -f a; FAIL"}, {2, "done", "test -f b; ok"}}, Decision: "seeded 2 rows, closed 1 on baseline | row 1"}, ""},
		{"empty", "", Result{}, "needs status: and evidence:"},
		// Evidence is plain text in one cell, command first; tabs, runs of
		// spaces and markdown around it are form, not substance.
		{"tabs, runs of spaces and markdown are form", "- **status:** done\n`evidence: go test ./calc;\tok  \texample.com/calc\t0.004s`\ndecision:\tadded Add  |  next row \n",
			Result{Status: "done", Evidence: "go test ./calc; ok example.com/calc 0.004s", Decision: "added Add | next row"}, ""},
		{"backticks around the value", "status: Done.\nevidence: `go test ./x; ok`\ndecision: a | b\n",
			Result{Status: "done", Evidence: "go test ./x; ok", Decision: "a | b"}, ""},
		{"a fenced block", "```text\nstatus: done\nevidence: e\ndecision: a | b\n```\n", Result{Status: "done", Evidence: "e", Decision: "a | b"}, ""},
		{"a seed with a natural decision", "row 1: open | test -f a; FAIL\ndecision: I looked at both rows and one already works.\nrow 2: done | test -f b; ok\n",
			Result{Rows: []ResultRow{{1, "open", "test -f a; FAIL"}, {2, "done", "test -f b; ok"}}, Decision: "I looked at both rows and one already works."}, ""},
		{"a seed without a decision", "row 1: open | test -f a; FAIL\n", Result{Rows: []ResultRow{{1, "open", "test -f a; FAIL"}}}, ""},
		{"a row without a decision", "status: done\nevidence: e\n", Result{}, "no decision: line"},
		{"bad status", "status: maybe\nevidence: e\ndecision: a | b\n", Result{}, `status is done or failed, got "maybe"`},
		{"unknown key", "status: done\nevidence: e\nnotes: hi\ndecision: a | b\n", Result{}, `unknown key "notes"`},
		{"twice", "status: done\nstatus: done\nevidence: e\ndecision: a | b\n", Result{}, "status is given twice"},
		{"no evidence", "status: done\ndecision: a | b\n", Result{}, "needs status: and evidence:"},
		{"one slot", "status: done\nevidence: e\ndecision: it works\n", Result{}, "decision is `<what happened> | <next step or blocker>`"},
		{"not key value", "done, all good\n", Result{}, "is not `key: value`"},
		{"bad seed row", "row 0: open | e\ndecision: a | b\n", Result{}, "is not `row <n>: open|done | <evidence>`"},
		{"seed and row mixed", "row 1: open | e\nstatus: done\nevidence: e\ndecision: a | b\n", Result{}, "mixes"},
		{"control character", "status: done\nevidence: e\x1b[31m\ndecision: a | b\n", Result{}, "result line 2: character 12 is U+001B (ESC, the start of a terminal colour or cursor code), a control character; a result line is plain text, for example"},
		{"tabs, trailing space and markdown are form", "status: done \t\nevidence: `go test ./calc -run TestAdd`; ok  \texample.com/calc\t0.004s\n\tdecision: adds | next row\n",
			Result{Status: "done", Evidence: "go test ./calc -run TestAdd; ok example.com/calc 0.004s", Decision: "adds | next row"}, ""},
		{"a seed row with tabs", "row 1: done | go test ./x -run TestA;\tok\t0.01s\ndecision: seeded one row, it passes | none\n",
			Result{Rows: []ResultRow{{1, "done", "go test ./x -run TestA; ok 0.01s"}}, Decision: "seeded one row, it passes | none"}, ""},
		{"too large", strings.Repeat("x", MaxResult+1), Result{}, "at most"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseResult([]byte(tc.file))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultMessage(t *testing.T) {
	row := Task{Pending: ledger.Pending{Target: 3, Member: "home", SHA: "abc"}, Iteration: 6}
	seed := Task{Pending: ledger.Pending{Target: ledger.SeedTarget, Member: "home", SHA: "abc"}, Iteration: 0}
	tests := []struct {
		name   string
		r      Result
		t      Task
		trails []string
		want   string
	}{
		{"row with a pipe in evidence", Result{Status: "failed", Evidence: `grep -c a|b f; 0 \| 1`, Decision: "no luck | needs a person"}, row, []string{"tokens: 5"},
			"loop: row 3 failed\n\npending: 3 | home | abc\niteration: 7\n\n| 3 | failed | 2 | grep -c a\\|b f; 0 \\| 1 |\n\nrow 3 failed | no luck | needs a person\n\ntokens: 5\n"},
		{"seed", Result{Rows: []ResultRow{{1, "open", "test -f a; FAIL"}}, Decision: "seeded 1 rows, closed 0 on baseline | row 1"}, seed, nil,
			"loop: seed evidence\n\npending: seed | home | abc\niteration: 1\n\n| 1 | open | 0 | test -f a; FAIL |\n\nrow 0 done | seeded 1 rows, closed 0 on baseline | take row 1\n"},
		// The preset builds the canonical seed decision from the rows,
		// whatever the agent wrote.
		{"seed with a natural decision", Result{Rows: []ResultRow{{1, "done", "test -f a; ok"}, {2, "open", "test -f b; FAIL"}}, Decision: "Row 1 already passed on baseline."}, seed, nil,
			"loop: seed evidence\n\npending: seed | home | abc\niteration: 1\n\n| 1 | done | 0 | test -f a; ok |\n| 2 | open | 0 | test -f b; FAIL |\n\nrow 0 done | seeded 2 rows, closed 1 on baseline | take row 2\n"},
		{"seed all done", Result{Rows: []ResultRow{{1, "done", "test -f a; ok"}}}, seed, nil,
			"loop: seed evidence\n\npending: seed | home | abc\niteration: 1\n\n| 1 | done | 0 | test -f a; ok |\n\nrow 0 done | seeded 1 rows, closed 1 on baseline | every row is done on baseline\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.r.Message(tc.t, 1, tc.trails)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := (Result{Status: "done", Evidence: "e", Decision: "a | b"}).Message(seed, 0, nil); err == nil {
		t.Errorf("a row's result was accepted for a seed dispatch")
	}
}

func FuzzParseResult(f *testing.F) {
	f.Add([]byte("status: done\nevidence: go test ./x; ok\ndecision: a | b\n"))
	f.Add([]byte("row 1: open | test -f a; FAIL\ndecision: seeded | row 1\n"))
	f.Add([]byte("status: done\r\nstatus: done\n"))
	f.Add([]byte("- **status:** done\n`evidence: go test ./calc;\tok`\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Extraction only picks and normalises lines: it never invents
		// one, and what it returns is stable under a second extraction.
		if got := ExtractResult(string(data)); got != nil {
			if again := ExtractResult(string(got)); string(again) != string(got) {
				t.Errorf("ExtractResult is not stable:\n%q\n%q", got, again)
			}
			_, _ = ParseResult(got)
		}
		r, err := ParseResult(data)
		if err != nil {
			return
		}
		if r.Decision == "" && len(r.Rows) == 0 {
			t.Errorf("a row's result without a decision was accepted")
		}
		task := Task{Pending: ledger.Pending{Target: 1, Member: "home", SHA: "abc"}}
		if len(r.Rows) > 0 {
			task.Pending.Target = ledger.SeedTarget
		}
		if _, err := r.Message(task, 0, nil); err != nil {
			t.Errorf("an accepted result builds no message: %v", err)
		}
	})
}

func TestExtractResult(t *testing.T) {
	tests := []struct {
		name, final string
		want        string
	}{
		{"prose around the lines", "I added the function and ran the test.\n\n**status:** done\nevidence: `go test ./calc`; ok\texample.com/calc\t0.004s\ndecision: added Add | next row\n\nLet me know!",
			"status: done\nevidence: go test ./calc; ok example.com/calc 0.004s\ndecision: added Add | next row\n"},
		{"the template restated, then the answer", "You asked for:\nstatus: done or failed\n\nHere it is:\n```\nstatus: failed\nevidence: go test ./x; FAIL\ndecision: broke | retry\n```",
			"status: failed\nevidence: go test ./x; FAIL\ndecision: broke | retry\n"},
		{"seed rows", "Row 1 is missing.\n- row 1: open | test -f a; FAIL\n- row 2: done | test -f b; ok\nI seeded both rows; the second already works.",
			"row 1: open | test -f a; FAIL\nrow 2: done | test -f b; ok\n"},
		{"nothing", "All done, thanks.", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := string(ExtractResult(tc.final))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got != "" {
				if _, err := ParseResult([]byte(got)); err != nil {
					t.Errorf("ParseResult(ExtractResult(…)): %v", err)
				}
			}
		})
	}
}

const taskBriefTail = "```text\nloop: task T002 <done or failed>\n\ntask: T002 | attempt 2 | 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n\n<one summary line, at most 200 characters>\n```\n"

// A plan task's result is a status and a decision; the preset makes of it
// the one task return admission parses (ledger.ParseTaskReturn), and
// refuses what is not one.
func TestTaskResult(t *testing.T) {
	t.Parallel()
	task := Task{PlanTask: "T002", Brief: "# Task\n\n" + taskBriefTail}
	tests := []struct {
		name, data string
		want       string // the built message, or the error's words
		wantErr    bool
	}{
		{"done", "status: done\ndecision: wrote the window counter | next task\n",
			"loop: task T002 done\n\ntask: T002 | attempt 2 | 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n\nwrote the window counter\n", false},
		{"failed, with evidence and form around it", "- **status:** failed\nevidence: go test ./ratelimit; FAIL\ndecision: the\tcounter   races | needs a lock\n",
			"loop: task T002 failed\n\ntask: T002 | attempt 2 | 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n\nthe counter races\n", false},
		{"a long summary is cut", "status: done\ndecision: " + strings.Repeat("x", 300) + " | next\n",
			"loop: task T002 done\n\ntask: T002 | attempt 2 | 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\n\n" + strings.Repeat("x", 199) + "…\n", false},
		{"no status", "decision: a | b\n", "needs a status: line", true},
		{"no decision", "status: done\n", "no decision: line", true},
		{"seed rows", "row 1: open | test -f a; FAIL\n", "not row <n>: lines", true},
		{"a decision without its two parts", "status: done\ndecision: wrote it\n", "<what happened> | <next step or blocker>", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseTaskResult([]byte(tc.data))
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("ParseTaskResult = %v; want an error saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			msg, err := r.TaskMessage(task, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			subject, body, _ := strings.Cut(msg, "\n\n")
			if _, err := ledger.ParseTaskReturn(subject, body); err != nil {
				t.Errorf("admission refuses the built return: %v", err)
			}
		})
	}
	r, _ := ParseTaskResult([]byte("status: done\ndecision: a | b\n"))
	if _, err := r.TaskMessage(Task{PlanTask: "T003", Brief: taskBriefTail}, nil); err == nil || !strings.Contains(err.Error(), "answers task T002, not task T003") {
		t.Errorf("a brief of another task: %v", err)
	}
	if _, err := r.TaskMessage(Task{PlanTask: "T002", Brief: "no contract"}, nil); err == nil {
		t.Error("a brief without a task: line built a message")
	}
}

func FuzzParseTaskResult(f *testing.F) {
	f.Add([]byte("status: done\ndecision: a | b\n"))
	f.Add([]byte("status: failed\nevidence: x; FAIL\ndecision: " + strings.Repeat("é", 250) + " | b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseTaskResult(data)
		if err != nil {
			return
		}
		msg, err := r.TaskMessage(Task{PlanTask: "T002", Brief: taskBriefTail}, []string{"tokens: 12"})
		if err != nil {
			t.Fatalf("an accepted task result builds no message: %v", err)
		}
		subject, body, _ := strings.Cut(msg, "\n\n")
		if _, err := ledger.ParseTaskReturn(subject, body); err != nil {
			t.Errorf("admission refuses the return built from %q: %v\n%s", data, err, msg)
		}
	})
}
