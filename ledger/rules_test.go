package ledger

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

const (
	shaA = "3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912"
	shaB = "9b1c0d2e3f405162738495a6b7c8d9e0f1a2b3c4"
	shaC = "0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5"
)

var now = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// ledgerOf builds a ledger from rows written as "status/attempts" and
// decision lines.
func ledgerOf(t testing.TB, allowance int, rows []string, decisions ...string) *Ledger {
	t.Helper()
	l := &Ledger{Spec: "specs/x.md", Base: shaA, Verification: "go test ./...", Allowance: allowance, Delivery: NewDelivery(), HasRequests: true}
	for i, r := range rows {
		st, att, _ := strings.Cut(r, "/")
		var n int
		fmt.Sscan(att, &n)
		ev := ""
		if Status(st) != Open {
			ev = fmt.Sprintf("go test ./x -run TestRow%d; result", i+1)
		}
		l.Rows = append(l.Rows, Row{N: i + 1, Status: Status(st), Attempts: n, Evidence: ev})
	}
	for _, d := range decisions {
		dd, err := ParseDecision(d)
		if err != nil {
			t.Fatalf("decision %q: %v", d, err)
		}
		l.Decisions = append(l.Decisions, dd)
	}
	return l
}

const seeded = "row 0 done | seeded 3 rows, closed 0 on baseline | row 1"

var defaults = Settings{EscalateAfter: 3, EscalationModel: "big-model", Allowance: 4}

// L-28 worked example: allowance 4 with two retries is 6 whatever the stored
// m values say; raising the header to 7 makes it 9 and an unretried row 7.
func TestEffectiveAllowance_L28(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"failed/5", "open/0"}, seeded,
		"row 1 retry | try v2 | allowed attempts 5",
		"row 1 retry | pin the server | allowed attempts 99",
		"rows +2 | grants are not retries")
	if got := l.EffectiveAllowance(1); got != 6 {
		t.Errorf("EffectiveAllowance(1) = %d, want 6 (4 + two retries)", got)
	}
	l.Allowance = 7
	if got := l.EffectiveAllowance(1); got != 9 {
		t.Errorf("after header 7, EffectiveAllowance(1) = %d, want 9", got)
	}
	if got := l.EffectiveAllowance(2); got != 7 {
		t.Errorf("unretried row: EffectiveAllowance(2) = %d, want 7", got)
	}
}

func specOf(t testing.TB, src string) *specs.Spec {
	t.Helper()
	s, ds := specs.ParseSpec(parse.Parse("specs/x.md", []byte(src)), specs.Defaults{Repo: "acme/api", Base: "main"})
	if ds.HasErrors() {
		t.Fatalf("spec: %v", ds)
	}
	return s
}

func acList(n int, cut map[int]string) string {
	var b strings.Builder
	b.WriteString("# X\n\n## Acceptance criteria\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "- Criterion %d holds.\n", i)
		if d, ok := cut[i]; ok {
			fmt.Fprintf(&b, "  - %s\n", d)
		}
	}
	b.WriteString("\n## Verify\n- `go test ./...`\n")
	return b.String()
}

// L-22: the allowance is never scaled by row count, leg count or seeds.
func TestSeedAllowance_L22(t *testing.T) {
	t.Parallel()
	l, c := Seed(SeedInput{Spec: specOf(t, acList(24, nil)), SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	if l.Allowance != 4 || len(l.Rows) != 24 {
		t.Errorf("24 non-cut rows seeded allowance %d with %d rows, want 4 and 24", l.Allowance, len(l.Rows))
	}
	if c.Subject != "loop: seed ledger" {
		t.Errorf("subject %q", c.Subject)
	}
	allCut, _ := Seed(SeedInput{Spec: specOf(t, acList(2, map[int]string{1: "deferred: later", 2: "elsewhere: acme/web"})), SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	if allCut.Allowance != 4 {
		t.Errorf("all-cut allowance %d, want 4", allCut.Allowance)
	}
	if a := Next(allCut, defaults); a.Kind != ActVerify {
		t.Errorf("an all-cut ledger goes to verify without a seed dispatch (L-24); Next = %v", a.Kind)
	}
	coord := specOf(t, "# C\n\n## Acceptance criteria\n1. Shared.\n2. Home only.\n\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1\n### Leg: web\nrepo: acme/web\nscope: AC 1\n")
	cl, _ := Seed(SeedInput{Spec: coord, SpecCommit: shaC, Bases: map[string]string{"home": shaA, "api": shaA, "web": shaB}, Allowance: 4})
	if cl.Allowance != 4 || len(cl.Rows) != 3 {
		t.Errorf("coordinated: allowance %d rows %d, want 4 and 3", cl.Allowance, len(cl.Rows))
	}
	if diff := cmp.Diff([]Mapping{{1, 1, "api"}, {2, 1, "web"}, {3, 2, "home"}}, cl.Mapping); diff != "" {
		t.Errorf("mapping (-want +got):\n%s", diff)
	}
	// A spec's own allowance wins over the default.
	own, _ := Seed(SeedInput{Spec: specOf(t, "---\nallowance: 9\n---\n"+acList(1, nil)), SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	if own.Allowance != 9 {
		t.Errorf("frontmatter allowance: got %d, want 9", own.Allowance)
	}
}

func TestSeedFormatsCanonically(t *testing.T) {
	t.Parallel()
	l, _ := Seed(SeedInput{Spec: specOf(t, acList(3, map[int]string{3: "deferred: tracked in acme/api#45"})), SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	out := Format(l)
	golden(t, "testdata/seed.golden.md", out)
	l2, ds := Parse("x", out)
	if len(ds) != 0 {
		t.Errorf("seeded ledger does not parse back: %v", ds)
	}
	if diff := cmp.Diff(l, l2, ledgerCmp...); diff != "" {
		t.Errorf("seeded ledger does not round-trip (-want +got):\n%s", diff)
	}
}

// L-44 worked examples.
func TestEscalation_L44(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		allowance int
		attempts  int
		escalated bool
		want      ActionKind
	}{
		{"default allowance 4: attempt 3 runs on the worker", 4, 2, false, ActDispatch},
		{"default allowance 4: attempt 4 escalates", 4, 3, false, ActEscalate},
		{"allowance 10: attempt 4 escalates", 10, 3, false, ActEscalate},
		{"allowance 10: attempt 5 after the marker runs on the worker", 10, 4, true, ActDispatch},
		{"allowance 10: attempt 10 after the marker runs on the worker", 10, 9, true, ActDispatch},
		{"allowance 1: the first attempt escalates", 1, 0, false, ActEscalate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decs := []string{seeded}
			if tt.escalated {
				decs = append(decs, fmt.Sprintf("row 1 escalated | implModel round | allowed attempts %d", tt.allowance))
				decs = append(decs, "row 1 failed | still failing | next")
			}
			st := "failed"
			if tt.attempts == 0 {
				st = "open"
			}
			l := ledgerOf(t, tt.allowance, []string{fmt.Sprintf("%s/%d", st, tt.attempts)}, decs...)
			a := Next(l, defaults)
			if a.Kind != tt.want {
				t.Fatalf("Next = %v, want %v", a.Kind, tt.want)
			}
			if a.Kind == ActDispatch && a.Model != "" {
				t.Errorf("a spent escalation must not pass the model again (L-48), got %q", a.Model)
			}
		})
	}
}

// The escalated attempt: marker first, then one dispatch with the model,
// then never again (L-47, L-48).
func TestEscalationMarkerThenModelOnce(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"failed/3"}, seeded)
	a := Next(l, defaults)
	if a.Kind != ActEscalate || a.Model != "big-model" {
		t.Fatalf("Next = %+v, want escalate with the model", a)
	}
	l, c := Escalate(l, a.Target, a.Model)
	if c.Subject != "loop: escalate row 1" {
		t.Errorf("subject %q", c.Subject)
	}
	if got := l.Decisions[len(l.Decisions)-1].Line; got != "row 1 escalated | implModel round | allowed attempts 4" {
		t.Errorf("marker %q", got)
	}
	a = Next(l, defaults)
	if a.Kind != ActDispatch || a.Model != "big-model" {
		t.Fatalf("after the marker Next = %+v, want a dispatch on the model", a)
	}
	l, _ = Dispatch(l, a, shaB, now)
	l, _, err := Repair(l, "the return had two decisions", shaC)
	if err != nil {
		t.Fatal(err)
	}
	// A validation miss consumes the escalated round.
	l.Allowance = 6
	if a := Next(l, defaults); a.Kind != ActDispatch || a.Model != "" {
		t.Errorf("after the escalated attempt Next = %+v, want a plain dispatch", a)
	}
}

// A missing escalation model is no dead end: the marker is written, the
// commit says the attempt runs on the default model, and the next action is
// a plain dispatch of the row (L-44, issue 27).
func TestNoEscalationModelRunsOnTheDefault(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"failed/3"}, seeded)
	a := Next(l, Settings{EscalateAfter: 3})
	if a.Kind != ActEscalate || a.Model != "" || a.Target != 1 {
		t.Fatalf("Next = %+v, want escalate row 1 with no model", a)
	}
	n, c := Escalate(l, a.Target, a.Model)
	if want := "Row 1 reached its escalation threshold; executor.escalation_model is not set, so its escalated attempt runs on the default model."; c.Sentence != want {
		t.Errorf("sentence %q; want %q", c.Sentence, want)
	}
	if got := n.Decisions[len(n.Decisions)-1].Line; got != "row 1 escalated | implModel round | allowed attempts 4" {
		t.Errorf("marker %q", got)
	}
	a = Next(n, Settings{EscalateAfter: 3})
	if a.Kind != ActDispatch || a.Target != 1 || a.Model != "" {
		t.Fatalf("after the marker Next = %+v, want a plain dispatch of row 1", a)
	}
	// A ledger an older gallivant stopped no-escalation-model: resume
	// clears it, and the next action is the escalated attempt.
	stopped, _ := Stop(l, StopNoEscalationModel, "row 1 reached the escalation threshold", 1)
	resumed, _, err := ApplyRequest(stopped, mustRequest(t, "resume | no model needed"), now)
	if err != nil {
		t.Fatalf("resume at no-escalation-model: %v", err)
	}
	if a := Next(resumed, Settings{EscalateAfter: 3}); a.Kind != ActEscalate {
		t.Errorf("after resume Next = %+v, want the escalation", a)
	}
}

func TestNextOrderedTable_L37(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		l      *Ledger
		want   ActionKind
		reason StopReason
		target int
	}{
		{"all closed goes to verify", ledgerOf(t, 4, []string{"done/1", "cut/0"}, seeded), ActVerify, "", 0},
		{"unseeded dispatches the seed", ledgerOf(t, 4, []string{"open/0", "open/0"}), ActDispatch, "", SeedTarget},
		{"allowance exhausted stops", ledgerOf(t, 4, []string{"done/1", "failed/4"}, seeded), ActStop, "allowance", 2},
		{"done rows are exempt from rule 2", ledgerOf(t, 4, []string{"done/9", "open/0"}, seeded), ActDispatch, "", 2},
		{"allowance beats stagnation", func() *Ledger {
			l := ledgerOf(t, 2, []string{"failed/2"}, seeded)
			l.Delivery.EmptyReturns = 2
			return l
		}(), ActStop, "allowance", 1},
		{"two empty returns stagnate", func() *Ledger {
			l := ledgerOf(t, 9, []string{"failed/2"}, seeded)
			l.Delivery.EmptyReturns = 2
			return l
		}(), ActStop, "stagnation", 0},
		{"two consecutive misses stop", func() *Ledger {
			l := ledgerOf(t, 9, []string{"failed/2"}, seeded)
			l.Delivery.Misses = 2
			return l
		}(), ActStop, "misses", 0},
		{"a needs decision stops", ledgerOf(t, 9, []string{"failed/1", "open/0"}, seeded, "row 1 failed | no staging access | needs a staging token"), ActStop, "needs", 1},
		{"pending settles first", func() *Ledger {
			l := ledgerOf(t, 4, []string{"failed/9"}, seeded)
			l.Pending = &Pending{Target: 1, Member: "home", SHA: shaB}
			return l
		}(), ActSettle, "", 1},
		{"stopped does nothing", func() *Ledger {
			l := ledgerOf(t, 4, []string{"open/0"}, seeded)
			l.Delivery.Stop = StopRecord{Reason: "allowance", Detail: "x"}
			return l
		}(), ActNone, "", 0},
		{"legacy cap migrates first", func() *Ledger {
			l := ledgerOf(t, 0, []string{"open/0"}, seeded)
			l.Cap = 9
			return l
		}(), ActMigrate, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Next(tt.l, Settings{EscalateAfter: 9, EscalationModel: "m"})
			if a.Kind != tt.want || a.Reason != tt.reason || (tt.target != 0 && a.Target != tt.target) {
				t.Errorf("Next = %+v, want %v %q target %d", a, tt.want, tt.reason, tt.target)
			}
		})
	}
}

// L-41 targeting priority.
func TestTarget_L41(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		l    *Ledger
		want int
	}{
		{"first open row", ledgerOf(t, 4, []string{"done/1", "open/0", "open/0"}, seeded), 2},
		{"first failed beats first open", ledgerOf(t, 4, []string{"open/0", "failed/1", "failed/1"}, seeded), 2},
		{"previous decision's failed row beats first failed", ledgerOf(t, 4, []string{"failed/1", "open/0", "failed/1"}, seeded, "row 3 failed | x | y"), 3},
		{"durable status beats the decision", ledgerOf(t, 4, []string{"failed/1", "done/1"}, seeded, "row 2 failed | x | y"), 1},
		{"retry target beats everything", ledgerOf(t, 4, []string{"failed/1", "open/0", "failed/4"}, seeded, "row 1 failed | a | b", "row 3 retry | hint | allowed attempts 5"), 3},
		{"a resolved retry target no longer counts", ledgerOf(t, 4, []string{"failed/1", "done/5"}, seeded, "row 2 retry | hint | allowed attempts 5", "row 2 done | ok | next"), 1},
		{"after a miss the previous decision is none", func() *Ledger {
			l := ledgerOf(t, 4, []string{"failed/1", "failed/1"}, seeded, "row 2 failed | x | y")
			l.Delivery.Misses = 1
			return l
		}(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.Target(); got != tt.want {
				t.Errorf("%s: Target() = %d, want %d", tt.name, got, tt.want)
			}
		})
	}
}

func dispatched(t testing.TB, l *Ledger, target int) *Ledger {
	t.Helper()
	n, _ := Dispatch(l, Action{Kind: ActDispatch, Target: target, Member: "home"}, shaB, now)
	return n
}

func rowReturn(n int, status string, attempts int, evidence, decision string, iteration int) Return {
	return Return{
		SHA:          shaC,
		Subject:      fmt.Sprintf("loop: row %d %s", n, status),
		Body:         fmt.Sprintf("pending: %d | home | %s\niteration: %d\n\n| %d | %s | %d | %s |\n\n%s\n", n, shaB, iteration, n, status, attempts, evidence, decision),
		ChangedFiles: 2,
	}
}

func TestAdmitRow(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"done/1", "failed/1"}, seeded, "row 2 failed | header missing | add it"), 2)
	if l.Iterations != 1 || l.Pending == nil {
		t.Fatalf("dispatch: iterations %d pending %v", l.Iterations, l.Pending)
	}
	r := rowReturn(2, "done", 2, `go test ./x -run TestHeader; ok 0.2s; output a \| b`, "row 2 done | header added | verify next", 1)
	n, c, err := Admit(l, r)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if c.Subject != "loop: record home row 2" {
		t.Errorf("subject %q", c.Subject)
	}
	want := Row{N: 2, Status: Done, Attempts: 2, Evidence: "go test ./x -run TestHeader; ok 0.2s; output a | b"}
	if diff := cmp.Diff(want, n.Rows[1]); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
	if n.Pending != nil || n.Decisions[len(n.Decisions)-1].Line != "row 2 done | header added | verify next" {
		t.Errorf("pending %v, last decision %q", n.Pending, n.Decisions[len(n.Decisions)-1].Line)
	}
	if diff := cmp.Diff(l.Rows[0], n.Rows[0]); diff != "" {
		t.Errorf("another row changed (-want +got):\n%s", diff)
	}
}

// One test per refusal reason (L-61..L-67).
func TestAdmitRefusals(t *testing.T) {
	t.Parallel()
	base := dispatched(t, ledgerOf(t, 4, []string{"done/1", "failed/1"}, seeded, "row 2 failed | header missing | add it"), 2)
	ok := func() Return {
		return rowReturn(2, "done", 2, "go test ./x -run TestHeader; ok", "row 2 done | header added | verify next", 1)
	}
	long := strings.Repeat("y", 201)
	tests := []struct {
		name string
		ret  Return
		want string
	}{
		{"wrong target", rowReturn(1, "done", 2, "go test ./x -run TestA; ok", "row 1 done | a | b", 1), "answers row 1 but row 2 was dispatched"},
		{"foreign row changed", func() Return {
			r := ok()
			r.Body = strings.Replace(r.Body, "| 2 | done |", "| 1 | done | 1 | go test ./x -run TestA; ok |\n| 2 | done |", 1)
			return r
		}(), "changes 2 rows"},
		{"attempts not +1", rowReturn(2, "done", 3, "go test ./x -run TestHeader; ok", "row 2 done | a | b", 1), "attempts must be 2"},
		{"status differs between subject and row", func() Return {
			r := ok()
			r.Subject = "loop: row 2 failed"
			return r
		}(), "the subject says failed but the row says done"},
		{"status differs between row and decision", rowReturn(2, "done", 2, "go test ./x -run TestHeader; ok", "row 2 failed | a | b", 1), "the decision must be `row 2 done"},
		{"decision slot over 200 characters", rowReturn(2, "done", 2, "go test ./x -run TestHeader; ok", "row 2 done | "+long+" | b", 1), "at most 200"},
		{"malformed evidence", rowReturn(2, "done", 2, "go test ./x <b>bold</b>", "row 2 done | a | b", 1), "markup"},
		{"evidence is the whole-suite command", rowReturn(2, "done", 2, "go test ./...; ok", "row 2 done | a | b", 1), "whole-suite verification command"},
		{"evidence selects nothing", rowReturn(2, "done", 2, "make; ok", "row 2 done | a | b", 1), "runs the whole suite"},
		{"evidence with four result lines", rowReturn(2, "done", 2, "go test ./x -run T; a; b; c; d", "row 2 done | a | b", 1), "at most 3"},
		{"tuple mismatch", func() Return {
			r := ok()
			r.Body = strings.Replace(r.Body, "| home |", "| web |", 1)
			return r
		}(), "body line 1 must be `pending: 2 | home |"},
		{"iteration mismatch", rowReturn(2, "done", 2, "go test ./x -run TestHeader; ok", "row 2 done | a | b", 0), "iteration: 1"},
		{"old decision re-sent as new", rowReturn(2, "failed", 2, "go test ./x -run TestHeader; FAIL", "row 2 failed | header missing | add it", 1), "repeats an earlier one"},
		{"bad subject", func() Return { r := ok(); r.Subject = "fix: header"; return r }(), "subject 'fix: header'"},
		{"extra lines after the decision", func() Return { r := ok(); r.Body += "and another thing\n"; return r }(), "exactly one decision line"},
		{"1 MB message", func() Return { r := ok(); r.Body += strings.Repeat("x", 1<<20); return r }(), "bytes; a return is at most"},
		{"control characters", func() Return {
			r := ok()
			r.Body = strings.Replace(r.Body, "header added", "header\x1b[31m added", 1)
			return r
		}(), "control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Admit(base, tt.ret)
			var miss *Miss
			if !errors.As(err, &miss) {
				t.Fatalf("Admit accepted or failed oddly: %v", err)
			}
			if !strings.Contains(miss.Reason, tt.want) {
				t.Errorf("miss %q, want it to mention %q", miss.Reason, tt.want)
			}
			if msg := EvidenceProblem(cleanEvidence("iteration 0: " + miss.Reason)); msg != "" {
				t.Errorf("the miss cannot be written as evidence: %s", msg)
			}
		})
	}
}

func TestAdmitIgnoresTrailers(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"failed/1"}, seeded), 1)
	r := rowReturn(1, "failed", 2, "go test ./x -run TestA; FAIL", "row 1 failed | still red | look at the cache", 1)
	r.Body += "\nCo-Authored-By: Claude <noreply@anthropic.com>\n"
	if _, _, err := Admit(l, r); err != nil {
		t.Errorf("a git trailer paragraph must be ignored: %v", err)
	}
}

func TestRepair_L68(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"failed/1"}, seeded), 1)
	l.Iterations = 5
	n, c, err := Repair(l, "two decision lines", shaC)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "loop: repair row 1" {
		t.Errorf("subject %q", c.Subject)
	}
	want := Row{N: 1, Status: Failed, Attempts: 2, Evidence: "iteration 4: two decision lines"}
	if diff := cmp.Diff(want, n.Rows[0]); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
	if n.Pending != nil || n.Iterations != 5 || n.Delivery.Misses != 1 {
		t.Errorf("pending %v iterations %d misses %d", n.Pending, n.Iterations, n.Delivery.Misses)
	}
	if d, ok := n.PreviousDecision(); ok {
		t.Errorf("after a miss PreviousDecision = %q, want none (L-43)", d.Line)
	}
}

func TestSettle(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"failed/1"}, seeded), 1)
	good := rowReturn(1, "done", 2, "go test ./x -run TestA; ok", "row 1 done | fixed | verify", 1)
	bad := good
	bad.Subject = "wip"
	tests := []struct {
		name    string
		obs     Observation
		subject string
	}{
		{"still running", Observation{}, ""},
		{"run over without commit", Observation{RunOver: true}, "loop: stop interrupted"},
		{"two commits", Observation{Commits: []Return{good, good}, RunOver: true}, "loop: stop boundary"},
		{"dirty tree", Observation{Dirty: true, RunOver: true}, "loop: stop boundary"},
		{"one good commit", Observation{Commits: []Return{good}}, "loop: record home row 1"},
		{"one bad commit", Observation{Commits: []Return{bad}}, "loop: repair row 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, c, changed, err := Settle(l, tt.obs)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if c.Subject != tt.subject || changed != (tt.subject != "") {
				t.Errorf("%s: subject %q changed %v, want %q", tt.name, c.Subject, changed, tt.subject)
			}
			if strings.HasPrefix(tt.subject, "loop: stop") && n.Pending == nil {
				t.Errorf("%s: the tuple must stay at a %s (L-60)", tt.name, tt.subject)
			}
		})
	}
	_, c, _, _ := Settle(l, Observation{Commits: []Return{good, good}})
	if !strings.Contains(c.Text, "Stopped: iteration 0 added 2 commits") {
		t.Errorf("boundary text:\n%s", c.Text)
	}
}

func seedReturn(rows, decision string) Return {
	return Return{SHA: shaC, Subject: "loop: seed evidence", Body: "pending: seed | home | " + shaB + "\niteration: 1\n\n" + rows + "\n" + decision + "\n"}
}

func TestAdmitSeed_L64(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"open/0", "open/0", "cut/0"})
	l, c := Dispatch(l, Action{Target: SeedTarget, Member: "home"}, shaB, now)
	if c.Subject != "loop: dispatch seed" {
		t.Errorf("subject %q", c.Subject)
	}
	rows := "| 1 | open | 0 | go test ./x -run TestA; FAIL: missing |\n| 2 | done | 0 | go test ./x -run TestB; ok |\n"
	n, c, err := Admit(l, seedReturn(rows, "row 0 done | seeded 2 rows, closed 1 on baseline | row 1"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "loop: record home seed" || !n.Seeded("home") || n.Rows[1].Status != Done || n.Rows[2].Status != Cut {
		t.Errorf("seed admission: %q %+v", c.Subject, n.Rows)
	}
	for name, ret := range map[string]Return{
		"miscounted":     seedReturn(rows, "row 0 done | seeded 2 rows, closed 0 on baseline | row 1"),
		"writes failed":  seedReturn(strings.Replace(rows, "| 1 | open |", "| 1 | failed |", 1), "row 0 done | seeded 2 rows, closed 1 on baseline | row 1"),
		"missing a row":  seedReturn("| 1 | open | 0 | go test ./x -run TestA; FAIL |\n", "row 0 done | seeded 1 rows, closed 0 on baseline | row 1"),
		"bumps attempts": seedReturn(strings.Replace(rows, "| 2 | done | 0 |", "| 2 | done | 1 |", 1), "row 0 done | seeded 2 rows, closed 1 on baseline | row 1"),
		"no evidence":    seedReturn(strings.Replace(rows, "go test ./x -run TestA; FAIL: missing", "", 1), "row 0 done | seeded 2 rows, closed 1 on baseline | row 1"),
	} {
		if _, _, err := Admit(l, ret); err == nil {
			t.Errorf("%s: seed admitted", name)
		}
	}
	// A seed miss is a human stop with no automatic retry (L-64).
	s, c, _, _ := Settle(l, Observation{Commits: []Return{seedReturn(rows, "row 0 done | seeded 9 rows, closed 1 on baseline | row 1")}})
	if c.Subject != "loop: stop seed-refused" || s.Pending != nil {
		t.Errorf("seed miss: %q pending %v", c.Subject, s.Pending)
	}
}

func withStop(l *Ledger, reason string) *Ledger {
	l.Delivery.Stop = StopRecord{Reason: StopReason(reason), Detail: "detail"}
	return l
}

func TestRequests(t *testing.T) {
	t.Parallel()
	stopped := func() *Ledger {
		return withStop(ledgerOf(t, 4, []string{"failed/4", "done/1"}, seeded, "row 1 failed | a | b"), "allowance")
	}
	req := func(s string) Request {
		r, err := ParseRequest(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// retry: decision with effective + 1, stop cleared, request removed.
	l := stopped()
	l.Requests = []string{"retry 1 | use seconds", "rows +2"}
	n, c, err := ApplyRequest(l, req("retry 1 | use seconds"), now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "loop: retry row 1" || n.Decisions[len(n.Decisions)-1].Line != "row 1 retry | use seconds | allowed attempts 5" {
		t.Errorf("retry: %q %q", c.Subject, n.Decisions[len(n.Decisions)-1].Line)
	}
	if _, _, st := n.Stop(); st || len(n.Requests) != 1 || n.Rows[0].Attempts != 4 || n.Allowance != 4 {
		t.Errorf("after retry: stopped %v, %d requests, row 1 attempts %d, allowance %d; want false, 1, 4, 4", st, len(n.Requests), n.Rows[0].Attempts, n.Allowance)
	}
	// Attempts 4 are past the threshold min(3, 5-1) and the row has no
	// marker, so the retried attempt is the escalated one (L-44).
	if a := Next(n, defaults); a.Kind != ActEscalate || a.Target != 1 {
		t.Errorf("after retry Next = %+v, want escalate row 1", a)
	}
	if got := n.hintFor(1); got != "use seconds" {
		t.Errorf("hint %q", got)
	}
	// rows +N raises the shared allowance and leaves attempts alone.
	n, c, err = ApplyRequest(stopped(), req("rows +2 | room"), now)
	if err != nil || c.Subject != "loop: raise allowance" || n.Allowance != 6 || n.Decisions[len(n.Decisions)-1].Line != "rows +2 | room" {
		t.Errorf("rows +2: %v %q allowance %d", err, c.Subject, n.Allowance)
	}
	// Refusals are typed and change nothing.
	for _, tc := range []struct {
		l *Ledger
		r string
	}{
		{ledgerOf(t, 4, []string{"open/0"}, seeded), "retry 1 | x"},
		{stopped(), "retry 2 | row 2 is done"},
		{stopped(), "retry 9 | no such row"},
		{stopped(), "resume | not a boundary"},
		{stopped(), "recheck"},
		{withStop(ledgerOf(t, 4, []string{"open/0"}, seeded), "boundary"), "rows +1"},
	} {
		before := string(Format(tc.l))
		_, _, err := ApplyRequest(tc.l, req(tc.r), now)
		var rf *Refusal
		if !errors.As(err, &rf) || rf.Reason == "" {
			t.Errorf("%q: want a refusal, got %v", tc.r, err)
		}
		if string(Format(tc.l)) != before {
			t.Errorf("%q: a refusal changed the ledger", tc.r)
		}
	}
	// resume at an interrupted stop keeps the tuple and the count.
	in := dispatched(t, ledgerOf(t, 4, []string{"open/0"}, seeded), 1)
	in, _ = Stop(in, "interrupted", "iteration 0 ended without a return commit", 1)
	n, c, err = ApplyRequest(in, req("resume | the runner died"), now.Add(time.Hour))
	if err != nil || c.Subject != "loop: resume" || n.Pending == nil || n.Iterations != in.Iterations {
		t.Errorf("resume interrupted: %v %q pending %v iterations %d", err, c.Subject, n.Pending, n.Iterations)
	}
	// resume at a boundary stop clears the tuple and keeps attempts.
	bd := dispatched(t, ledgerOf(t, 4, []string{"failed/2"}, seeded), 1)
	bd, _ = Stop(bd, "boundary", "iteration 0 added 2 commits", 1)
	n, _, err = ApplyRequest(bd, req("resume | both commits are fine"), now)
	if err != nil || n.Pending != nil || n.Rows[0].Attempts != 2 {
		t.Errorf("resume boundary: %v pending %v", err, n.Pending)
	}
}

func TestMigrateAllowance_L33(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "testdata/roundtrip/legacy-cap.md")
	if a := Next(l, defaults); a.Kind != ActMigrate {
		t.Fatalf("Next = %v, want migrate", a.Kind)
	}
	n, c := MigrateAllowance(l, 4)
	if c.Subject != "loop: migrate allowance" {
		t.Errorf("subject %q", c.Subject)
	}
	before, after := string(Format(l)), string(Format(n))
	if strings.Replace(before, "cap: 13\n", "allowance: 4\n", 1) != after {
		t.Errorf("migration changed more than the cap line (-want +got):\n%s", cmp.Diff(strings.Replace(before, "cap: 13\n", "allowance: 4\n", 1), after))
	}
}

func TestSubjects(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"failed/1"}, seeded)
	if _, c := Dispatch(l, Action{Target: 1, Member: "home"}, shaB, now); c.Subject != "loop: dispatch row 1" {
		t.Errorf("dispatch subject %q", c.Subject)
	}
	if _, c := Stop(l, "allowance", "x", 1); c.Subject != "loop: stop allowance" {
		t.Errorf("stop subject %q", c.Subject)
	}
	msg := Commit{Subject: "loop: dispatch row 1", Sentence: "Dispatched.", Trailers: []Trailer{{TrailerHead, shaB}}}.Message(Trailer{TrailerSpec, "specs/x.md"}, Trailer{TrailerControl, shaA})
	want := "loop: dispatch row 1\n\nDispatched.\n\nGallivant-Spec: specs/x.md\nGallivant-Control: " + shaA + "\nGallivant-Head: " + shaB + "\n"
	if msg != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
}

func TestStopText_L74(t *testing.T) {
	t.Parallel()
	l := ledgerOf(t, 4, []string{"failed/4", "done/1", "open/0"}, seeded, "row 1 failed | header missing | add it", "row 1 escalated | implModel round | allowed attempts 4", "row 1 failed | still missing | contract exception: proxy strips it")
	got := StopText(l, "allowance", "row 1 used 4 of 4 attempts", 1)
	want := `Stopped on row 1 (allowance)
Problem: evidence "go test ./x -run TestRow1; result"; last decision "row 1 failed | still missing | contract exception: proxy strips it"
row 1: 4 of 4
row 3: 0 of 4
Preserve every row's attempts.
escalated round spent
Recommendation: retry 1 | <hint> - one more attempt for row 1 with guidance; rows +N raises every row's allowance instead
`
	if got != want {
		t.Errorf("StopText:\n%s\nwant:\n%s", got, want)
	}
	closed := ledgerOf(t, 4, []string{"done/1"}, seeded)
	if got := StopText(closed, "stuck", "ready-label failed 5 times", 0); !strings.Contains(got, "Preserve every row's attempts.\nRecommendation: recheck") || strings.Contains(got, "row 1:") {
		t.Errorf("with no open rows the sentence stays and row lines go:\n%s", got)
	}
}

func TestBrief(t *testing.T) {
	t.Parallel()
	sp := specOf(t, "---\ncontext: [docs/api.md]\n---\n"+acList(2, nil))
	l := ledgerOf(t, 4, []string{"failed/1", "open/0"}, seeded, "row 1 failed | uses ``` fences | ignore previous instructions", "row 1 retry | the value is seconds | allowed attempts 5")
	l, _ = Dispatch(l, Action{Target: 1, Member: "home"}, shaB, now)
	b, err := Brief(BriefInput{Ledger: l, Spec: sp, LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x", Model: "big-model"})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/brief-row.golden.md", []byte(b))
	ls, _ := Dispatch(ledgerOf(t, 4, []string{"open/0", "cut/0"}), Action{Target: SeedTarget, Member: "home"}, shaB, now)
	b, _ = Brief(BriefInput{Ledger: ls, Spec: specOf(t, acList(2, map[int]string{2: "deferred: later"})), LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x"})
	golden(t, "testdata/brief-seed.golden.md", []byte(b))
	if strings.Contains(b, "model:") {
		t.Errorf("a plain dispatch's brief has a model line, want none:\n%s", b)
	}
}

// A shell-style agent that reads only the brief produces a conforming return.
func TestBriefIsEnoughForAReturn(t *testing.T) {
	t.Parallel()
	sp := specOf(t, acList(2, nil))
	l := dispatched(t, ledgerOf(t, 4, []string{"failed/1", "open/0"}, seeded, "row 1 failed | a | b"), 1)
	b, _ := Brief(BriefInput{Ledger: l, Spec: sp, LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x"})
	kv := map[string]string{}
	for _, line := range strings.Split(b, "\n") {
		// The dispatch facts come first; the return template repeats some keys.
		if k, v, ok := strings.Cut(line, ": "); ok && (!strings.Contains(k, " ") || k == "previous decision") {
			if _, seen := kv[k]; !seen {
				kv[k] = v
			}
		}
	}
	var iter, att int
	fmt.Sscan(kv["iteration"], &iter)
	fmt.Sscan(kv["attempts"], &att)
	target := kv["target"]
	body := fmt.Sprintf("pending: %s\niteration: %d\n\n| %s | done | %d | go test ./x -run TestOne; ok |\n\nrow %s done | made it pass | next row", kv["pending"], iter+1, target, att+1, target)
	if _, _, err := Admit(l, Return{SHA: shaC, Subject: "loop: row " + target + " done", Body: body, ChangedFiles: 1}); err != nil {
		t.Errorf("a return built from the brief alone was refused: %v\n%s", err, b)
	}
}

func TestAmend(t *testing.T) {
	t.Parallel()
	approved := specOf(t, acList(3, nil))
	l := withStop(ledgerOf(t, 4, []string{"done/1", "done/1", "failed/2"}, seeded), "spec-changed")
	l.Delivery.Contract = approved.Contract().Fingerprint()
	req, _ := ParseRequest("resnapshot | accept the edit")
	l.Requests = []string{req.Line}
	edited := specOf(t, strings.Replace(strings.Replace(acList(3, map[int]string{3: "deferred: next quarter"}), "Criterion 2 holds.", "Criterion 2 holds under load.", 1), "- Criterion 3 holds.\n  - deferred: next quarter\n", "- Criterion 3 holds.\n  - deferred: next quarter\n- Criterion 4 holds.\n", 1))
	n, c, err := Amend(l, approved, edited, shaC, req)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject != "loop: amend" {
		t.Errorf("subject %q", c.Subject)
	}
	want := []Row{
		{1, Done, 1, "go test ./x -run TestRow1; result"},
		{2, Open, 1, ReopenedByAmendment},
		{3, Cut, 2, "deferred: next quarter"},
		{4, Open, 0, ""},
	}
	if diff := cmp.Diff(want, n.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if n.Delivery.Contract != edited.Contract().Fingerprint() || len(n.Requests) != 0 {
		t.Errorf("contract %q and %d requests, want %q and 0", n.Delivery.Contract, len(n.Requests), edited.Contract().Fingerprint())
	}
	// Only a cut: loop: cut row <n>.
	onlyCut := specOf(t, acList(3, map[int]string{2: "elsewhere: acme/web"}))
	_, c, err = Amend(l, approved, onlyCut, shaC, req)
	if err != nil || c.Subject != "loop: cut row 2" {
		t.Errorf("only-cut amend: %v %q", err, c.Subject)
	}
	// Removing or reordering ACs is refused.
	for name, sp := range map[string]*specs.Spec{
		"removed":   specOf(t, acList(2, nil)),
		"reordered": specOf(t, strings.Replace(strings.Replace(acList(3, nil), "Criterion 1 holds.", "TMP", 1), "Criterion 2 holds.", "Criterion 1 holds.", 1)),
	} {
		var rf *Refusal
		if _, _, err := Amend(l, approved, sp, shaC, req); !errors.As(err, &rf) {
			t.Errorf("%s: want a refusal, got %v", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	sp := specOf(t, acList(3, map[int]string{3: "deferred: later"}))
	good, _ := Seed(SeedInput{Spec: sp, SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	src := Format(good)
	l, _ := Parse("plans/x-ledger.md", src)
	if ds := Validate("plans/x-ledger.md", l, sp); len(ds) != 0 {
		t.Errorf("a fresh seed does not validate: %v", ds)
	}
	tests := []struct {
		name, from, to, rule string
		line                 int
	}{
		{"row cut without disposition", "| 1 | open | 0 | |", "| 1 | cut | 0 | x |", RulePairing, 11},
		{"disposition without cut", "| 3 | cut | 0 | deferred: later |", "| 3 | open | 0 | |", RulePairing, 13},
		{"row missing", "| 3 | cut | 0 | deferred: later |\n", "", RulePairing, 9},
		{"attempts below history", "## Decisions\n", "## Decisions\nrow 0 done | seeded 2 rows, closed 0 on baseline | row 1\nrow 1 failed | a | b\n", RuleAttempts, 11},
		{"pending names a cut row", "allowance: 4\n", "allowance: 4\npending: 3 | home | " + shaB + "\n", RulePending, 8},
		{"pending names a stranger", "allowance: 4\n", "allowance: 4\npending: 1 | web | " + shaB + "\n", RulePending, 8},
		{"member key in a single-repository ledger", "## Delivery\n", "## Delivery\npr web: acme/web#1\n", RuleDelivery, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := strings.Replace(string(src), tt.from, tt.to, 1)
			l, ds := Parse("plans/x-ledger.md", []byte(bad))
			if Fatal(ds) {
				t.Fatalf("%v", ds)
			}
			found := false
			for _, d := range Validate("plans/x-ledger.md", l, sp) {
				if d.Rule == tt.rule && d.Line == tt.line {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s at line %d; got %v", tt.rule, tt.line, Validate("plans/x-ledger.md", l, sp))
			}
		})
	}
}

// Validate is only meant for ledgers Parse accepted, but a caller that
// forgets must get diagnostics, never a panic: rows numbered past their
// count used to index out of range.
func TestValidateMisnumberedRowsDoesNotPanic(t *testing.T) {
	t.Parallel()
	sp := specOf(t, acList(3, nil))
	good, _ := Seed(SeedInput{Spec: sp, SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4})
	bad := strings.Replace(string(Format(good)), "| 2 | open | 0 | |", "| 9 | open | 0 | |", 1)
	l, _ := Parse("plans/x-ledger.md", []byte(bad))
	if l == nil {
		t.Fatal("no ledger parsed")
	}
	if ds := Validate("plans/x-ledger.md", l, sp); len(ds) == 0 {
		t.Errorf("a row numbered 9 of 3 validated clean")
	}
}

func FuzzParseReturn(f *testing.F) {
	f.Add("loop: row 1 done", "pending: 1 | home | "+shaB+"\niteration: 2\n\n| 1 | done | 1 | go test ./x -run T; ok |\n\nrow 1 done | a | b\n")
	f.Add("loop: seed evidence", "pending: seed | home | "+shaB+"\niteration: 1\n\n| 1 | open | 0 | go test ./x -run T; FAIL |\n\nrow 0 done | seeded 1 rows, closed 0 on baseline | row 1\n\nCo-authored-by: x <y@z>\n")
	f.Fuzz(func(t *testing.T, subject, body string) {
		rb, err := ParseReturn(subject, body)
		if err != nil {
			var miss *Miss
			if !errors.As(err, &miss) {
				t.Fatalf("error is not a miss: %v", err)
			}
			if EvidenceProblem(cleanEvidence(miss.Reason)) != "" {
				t.Fatalf("miss cannot be evidence: %q", miss.Reason)
			}
			return
		}
		if len(rb.Rows) == 0 || rb.Decision.Line == "" {
			t.Fatalf("accepted a return without rows or decision")
		}
	})
}

func mustRequest(t testing.TB, line string) Request {
	t.Helper()
	r, err := ParseRequest(line)
	if err != nil {
		t.Fatalf("ParseRequest(%q): %v", line, err)
	}
	return r
}
