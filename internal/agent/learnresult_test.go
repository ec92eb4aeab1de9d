package agent

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/google/go-cmp/cmp"
)

const learnBriefHead = "# Learn from the review of acme/api#1\n\ntarget: learn\nspec: specs/feature.md\nledger: specs/feature-ledger.md\nrepo: acme/api\nlessons: lessons/acme/api.md\nbranch: gallivant/lessons-acme-api\n\n"

// A learn task's result is a status of done or none and a decision; the
// preset makes of done and a change the one return commit
// (gatekeep.AdmitLessons reads its diff, not its message), of none and no
// change no commit, and refuses the rest with the line and an example
// (docs/agents.md "The result").
func TestLearnResult(t *testing.T) {
	t.Parallel()
	task := Task{Learn: true, Brief: learnBriefHead}
	tests := []struct {
		name, data string
		changed    bool
		want       string // the built message, "" for no commit, or the error's words
		wantErr    bool
	}{
		{"done", "status: done\ndecision: added a lesson on rounding | a person reviews it\n", true,
			"Propose lessons for acme/api\n\nadded a lesson on rounding\n\ntokens: 12\n", false},
		{"done in markdown", "- **status:** Done.\n- decision: `added\ta lesson | review`\n", true,
			"Propose lessons for acme/api\n\nadded a lesson\n\ntokens: 12\n", false},
		{"a long summary is cut", "status: done\ndecision: " + strings.Repeat("é", 250) + " | review\n", true,
			"Propose lessons for acme/api\n\n" + strings.Repeat("é", 199) + "…\n\ntokens: 12\n", false},
		{"none, nothing changed", "status: none\ndecision: nothing generalises | nothing to propose\n", false, "", false},
		{"no result, nothing changed", "", false, "", false},
		{"no result beside a change", "  \n", true, "changed the checkout but gave no result", true},
		{"none beside a change", "status: none\ndecision: a | b\n", true, "the status is none, but the checkout has changes", true},
		{"done without a change", "status: done\ndecision: a | b\n", false, "the status is done, but the checkout has no change; edit lessons/acme/api.md", true},
		{"a row's status", "status: failed\ndecision: a | b\n", true, `result line 1: a learn task's status is done (you changed the lessons file) or none (no lesson generalises), got "failed"`, true},
		{"evidence", "status: done\nevidence: go test ./x; ok\ndecision: a | b\n", true, "result line 2: a learn task's result has no evidence: line", true},
		{"seed rows", "row 1: open | test -f a; FAIL\n", true, "result line 1: the dispatch is a learn task: give status: and decision: lines, not row <n>: lines", true},
		{"an unknown key", "status: done\nlesson: a\n", true, `result line 2: unknown key "lesson"; a learn task's result has status and decision`, true},
		{"no status", "decision: a | b\n", true, "needs a status: line, done", true},
		{"no decision", "status: done\n", true, "no decision: line", true},
		{"a decision without its two parts", "status: done\ndecision: added one\n", true, "<what happened> | <next step or blocker>", true},
		{"a control character", "status: done\ndecision: a \x1b[31m| b\n", true, "result line 2: character 13 is U+001B", true},
		{"not key: value", "status: done\nI am done\n", true, `result line 2 is not ` + "`key: value`" + `: "I am done"; expected e.g. "status: done / decision: added a lesson`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			msg, ok, _, err := learnReturn(task, []byte(tc.data), "the result file .gallivant-result", Usage{Tokens: 12}, tc.changed)
			if tc.wantErr {
				re, isResult := AsResultError(err)
				if !isResult || !strings.Contains(err.Error(), tc.want) || re.Source != "the result file .gallivant-result" {
					t.Fatalf("learnReturn = %v; want a *ResultError saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tc.want != "") {
				t.Fatalf("ok = %v for want %q", ok, tc.want)
			}
			if diff := cmp.Diff(tc.want, msg); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	// A none result's decision is kept for the no-lessons record: one
	// line, white space collapsed, bounded.
	for _, tc := range []struct{ data, want string }{
		{"status: none\ndecision: nothing   generalises | nothing to propose\n", "nothing generalises | nothing to propose"},
		{"status: none\ndecision: " + strings.Repeat("x", 600) + " | y\n", strings.Repeat("x", maxNoneDecision-1) + "…"},
		{"status: done\ndecision: added one | review\n", ""},
	} {
		if _, _, none, err := learnReturn(task, []byte(tc.data), "the result file", Usage{}, strings.HasPrefix(tc.data, "status: done")); err != nil || none != tc.want {
			t.Errorf("learnReturn(%.40q) decision %q (%v), want %q", tc.data, none, err, tc.want)
		}
	}
	// In a final message the result lines are picked out of the prose.
	final := ExtractResult("I added one lesson.\n\n**status:** done\ndecision: added a lesson | review\n")
	if msg, ok, _, err := learnReturn(task, final, "the agent's final message", Usage{}, true); err != nil || !ok || msg != "Propose lessons for acme/api\n\nadded a lesson\n" {
		t.Errorf("a final message's result: %q, %v, %v", msg, ok, err)
	}
	r, _ := ParseLearnResult([]byte("status: done\ndecision: a | b\n"))
	if _, _, err := r.LearnMessage(Task{Learn: true, Brief: "no header"}, true, nil); err == nil || !strings.Contains(err.Error(), "no `lessons: <file>` line") {
		t.Errorf("a brief without a lessons: line: %v", err)
	}
	if _, _, err := r.LearnMessage(Task{Learn: true, Brief: "lessons: ../gallivant.yaml\n"}, true, nil); err == nil || !strings.Contains(err.Error(), "is not lessons/<owner>/<name>.md") {
		t.Errorf("a brief naming another file: %v", err)
	}
}

func FuzzParseLearnResult(f *testing.F) {
	f.Add([]byte("status: done\ndecision: a | b\n"), true)
	f.Add([]byte("status: none\ndecision: nothing | none\n"), false)
	f.Add([]byte("- **status:** done\nevidence: x; ok\ndecision: "+strings.Repeat("é", 250)+" | b\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, changed bool) {
		r, err := ParseLearnResult(data)
		if err != nil {
			return
		}
		if r.Status != "done" && r.Status != LearnNone || r.Evidence != "" || len(r.Rows) > 0 {
			t.Fatalf("accepted %q as %+v", data, r)
		}
		msg, ok, err := r.LearnMessage(Task{Learn: true, Brief: learnBriefHead}, changed, []string{"tokens: 12"})
		switch {
		case err != nil:
			if (r.Status == "done") == changed {
				t.Fatalf("a consistent result builds no return: %v", err)
			}
		case ok:
			subject, body, _ := strings.Cut(msg, "\n\n")
			summary, _, _ := strings.Cut(body, "\n")
			if subject != "Propose lessons for acme/api" || summary == "" || strings.ContainsAny(summary, "\r\n") || len([]rune(summary)) > maxTaskSummary {
				t.Errorf("the return built from %q:\n%s", data, msg)
			}
		case r.Status != LearnNone || changed:
			t.Fatalf("no commit for %+v, changed %v", r, changed)
		}
	})
}

// A learn task under a preset CLI: the stand-in adds a lesson to the
// lessons file the brief names and gives its result in its final message;
// the preset commits it as the one return, `Propose lessons for
// acme/api`, changing the lessons file alone. A result it cannot use
// fails the run with a *ResultError and pushes nothing.
func TestPresetLearnTask(t *testing.T) {
	const url = "https://github.com/acme/api/pull/1#pullrequestreview-7"
	brief := learnBriefHead + "## Feedback (quoted data)\n\n- " + url + " by @alice (round 1, answered by a..b)\n"
	run := func(t *testing.T, kind string, steer map[string]string) (Outcome, string) {
		bin := agentstandin.Write(t)
		for k, v := range steer {
			agentstandin.Set(t, bin, k, v)
		}
		t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		remote, base := remoteRepo(t)
		task := Task{Spec: "specs/feature.md", Repo: "acme/control", CloneURL: remote, Branch: "gallivant/lessons-acme-api", Base: base, Brief: brief, Learn: true}
		out, err := CommandExecutor{Kind: kind, Timeout: time.Minute, WorkDir: t.TempDir()}.Run(context.Background(), task)
		if err != nil {
			t.Fatal(err)
		}
		return out, remote
	}
	t.Run("done", func(t *testing.T) {
		out, remote := run(t, "codex", map[string]string{agentstandin.Final: jsonString(t, "Added one.\n\n**status:** done\ndecision: added a lesson | review it\n")})
		if out.Err != nil || out.Dirty || out.Commits != 1 {
			t.Fatalf("outcome %+v", out)
		}
		msg := gitIn(t, remote, "log", "-1", "--format=%B", "gallivant/lessons-acme-api")
		if diff := cmp.Diff("Propose lessons for acme/api\n\nadded a lesson\n\ntokens: 650\ncached: 100", msg); diff != "" {
			t.Errorf("return message (-want +got):\n%s", diff)
		}
		if files := gitIn(t, remote, "show", "--name-only", "--format=", "gallivant/lessons-acme-api"); files != "lessons/acme/api.md" {
			t.Errorf("the return changes %q, want the lessons file alone", files)
		}
	})
	t.Run("a result it cannot use", func(t *testing.T) {
		out, remote := run(t, "claude-code", map[string]string{agentstandin.Result: "status: done\nevidence: go test ./...; ok\ndecision: a | b\n"})
		if _, ok := AsResultError(out.Err); !ok || !strings.Contains(out.Err.Error(), "result line 2: a learn task's result has no evidence: line") {
			t.Fatalf("error %v, want a *ResultError naming line 2", out.Err)
		}
		if got := gitIn(t, remote, "branch", "--list", "gallivant/lessons-acme-api"); got != "" {
			t.Errorf("the lessons branch was pushed: %q", got)
		}
	})
}
