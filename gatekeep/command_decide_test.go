package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

func TestDecideCommand(t *testing.T) {
	t.Parallel()
	review := reviewLedger(t)
	stopped, _ := ledger.Stop(review, ledger.StopChecksRed, "acme/api#1: checks still red", 0)
	from := ledger.CommandOrigin{PR: ledger.PullRef{Repo: "acme/api", Number: 1}, Login: "bob", CommentID: 77, URL: "https://github.com/acme/api/pull/1#issuecomment-77"}
	facts := func(body string, change func(*CommandFacts)) CommandFacts {
		f := CommandFacts{Body: body, Author: "bob", Self: "gallivant-bot", MaySteer: true, Ledger: stopped, Origin: from, Now: now1}
		if change != nil {
			change(&f)
		}
		return f
	}
	stranger := func(f *CommandFacts) { f.MaySteer = false }
	tests := []struct {
		name      string
		f         CommandFacts
		step      CommandStep
		replyHas  string
		subject   string
		stopAfter string
	}{
		{"a writer's resume at a stop is performed", facts("/gallivant resume | I fixed the flaky test", nil), CommandApply,
			"Done: `loop: request resume from acme/api#1 by @bob`", "loop: request resume from acme/api#1 by @bob", ""},
		{"not a command", facts("please resume", nil), CommandNone, "", "", ""},
		{"a quoted command is no command", facts("> /gallivant resume | forged", nil), CommandNone, "", "", ""},
		{"a command in a code block is no command", facts("```\n/gallivant resume | forged\n```", nil), CommandNone, "", "", ""},
		{"gallivant's own comment", facts("/gallivant resume | x", func(f *CommandFacts) { f.Author = "Gallivant-Bot" }), CommandNone, "", "", ""},
		{"answered already: an edit is ignored", facts("/gallivant resume | edited", func(f *CommandFacts) { f.Answered = true }), CommandNone, "", "", ""},
		{"performed, unanswered: the answer is owed", facts("/gallivant resume | x", func(f *CommandFacts) { f.Acted = "loop: request resume from acme/api#1 by @bob" }),
			CommandAnswer, "Done: `loop: request resume from acme/api#1 by @bob` is on the control branch.", "", ""},
		{"someone who may not steer: ignored, no answer", facts("/gallivant resume | x", stranger), CommandIgnore, "", "", ""},
		{"someone who may not steer, malformed: still ignored", facts("/gallivant nonsense", stranger), CommandIgnore, "", "", ""},
		{"malformed: refused with the position", facts("/gallivant retry two | x", nil), CommandRefuse, "Malformed: line 1, column 12: malformed retry", "", ""},
		{"not accepted in this state", facts("/gallivant budget +$5 | more", nil), CommandRefuse, "Not accepted now: a checks-red stop is cleared by", "", ""},
		{"not stopped", facts("/gallivant resume | x", func(f *CommandFacts) { f.Ledger = review }), CommandRefuse, "Not accepted now: the entry is not stopped", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := DecideCommand(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if a.Step != tt.step {
				t.Fatalf("step %q, want %q (reply %q)", a.Step, tt.step, a.Reply)
			}
			if !strings.Contains(a.Reply, tt.replyHas) || (tt.replyHas == "" && a.Reply != "") {
				t.Errorf("reply %q, want it to contain %q", a.Reply, tt.replyHas)
			}
			if a.Commit.Subject != tt.subject {
				t.Errorf("subject %q, want %q", a.Commit.Subject, tt.subject)
			}
			if tt.step == CommandApply {
				if _, _, stopped := a.Next.Stop(); stopped {
					t.Errorf("the resume left the stop in place")
				}
				if diff := cmp.Diff([]string(nil), a.Next.Requests); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCommandAnswered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body string
		id   int64
		ok   bool
	}{
		{"Done.\n\n" + CommandAnswerMarker(4242), 4242, true},
		{"<!-- gallivant:command-12x -->", 0, false},
		{"<!-- gallivant:command- -->", 0, false},
		{"<!-- gallivant:command-99999999999999999999 -->", 0, false},
		{"no marker", 0, false},
	} {
		id, ok := CommandAnswered(tt.body)
		if id != tt.id || ok != tt.ok {
			t.Errorf("CommandAnswered(%q) = %d, %v; want %d, %v", tt.body, id, ok, tt.id, tt.ok)
		}
	}
}

// A command is a request to gallivant, not feedback a round answers.
func TestCommandsAreNotFeedback(t *testing.T) {
	t.Parallel()
	d := Digest{Comments: []Comment{
		{ID: 1, User: "bob", Body: "/gallivant recheck", UpdatedAt: now1},
		{ID: 2, User: "bob", Body: "/gallivant nonsense", UpdatedAt: now1},
		{ID: 3, User: "bob", Body: "> /gallivant recheck\nplease rename the helper", UpdatedAt: now1},
	}}
	var ids []int64
	for _, f := range Feedback(d, Since{}, "gallivant-bot") {
		ids = append(ids, f.ID)
	}
	if diff := cmp.Diff([]int64{3}, ids); diff != "" {
		t.Errorf("feedback ids (-want +got):\n%s", diff)
	}
}
