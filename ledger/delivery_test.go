package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// deliveryCorpus is every canonical ledger the repository keeps: the round
// trip testdata, the audit histories, the documented example, and every
// ledger version the two demo scenarios commit (testdata/delivery/demo,
// taken from `gallivant demo --keep` and `gallivant demo --coordinated
// --keep`).
func deliveryCorpus(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, glob := range []string{"testdata/roundtrip/*.md", "testdata/delivery/demo/*.md", "../audit/testdata/*.md", "../docs/examples/control/plans/*-ledger.md"} {
		files, err := filepath.Glob(glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("no ledgers at %s (%v)", glob, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[f] = b
		}
	}
	return out
}

// sharedCorpusLedgers seeds a ledger from every spec of ../shared/corpora
// that reads, and gives each the richest delivery state a pull request
// reaches, so the external corpus is round-tripped too. The corpus is
// optional outside this workspace.
func sharedCorpusLedgers(t testing.TB) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob("../../shared/corpora/*/*.md")
	out := map[string][]byte{}
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sp, ds := specs.ParseSpec(parse.Parse("specs/x.md", src), specs.Defaults{Repo: "acme/api", Base: "main"})
		if ds.HasErrors() || sp == nil || len(sp.ACs) == 0 {
			continue
		}
		l, _ := Seed(SeedInput{Spec: sp, SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 3, Chain: ChainRef{Name: "corpus", K: 1 + i%3, N: 3}})
		fillDelivery(l.Delivery, i)
		out[f] = Format(l)
	}
	return out
}

// fillDelivery sets every key, varied by i.
func fillDelivery(d *Delivery, i int) {
	at := time.Date(2026, 11, 29, 10, i%60, 0, 0, time.UTC)
	d.Reruns, d.Misses, d.EmptyReturns, d.Model = i%3, 1+i%2, i%4, "opus"
	d.Stop = StopRecord{Reason: StopStuck, Detail: "the ready-label write failed 5 times in a row"}
	d.Spent, d.BudgetGranted = specs.Amount{Tokens: int64(1000 + i), Micros: 250000}, specs.Amount{Tokens: 5000}
	d.Notify = []Owed{{Target: "ops", Event: EventStuck, At: at, Tries: i % 3}, {Target: "pager", Event: EventStop, At: at}}
	d.NotifyFailed = NotifyFailure{Key: "slack/stop/20261129T100000Z", Err: "502 bad gateway after 5 tries"}
	d.PullState = PullState{Phase: PhaseReview, DispatchedAt: at, Verified: VerifyResult{Head: shaB, Command: "go test ./..."}, VerifyRepair: shaB,
		PR: PullRef{Repo: "acme/api", Number: 1 + i}, Round: 1 + i%4, Head: shaA, HeadAt: at, ChecksHead: shaB,
		Since: Cursor{At: at, IDs: []int64{int64(100 + i), 7}}, RoundSince: Cursor{At: at.Add(time.Minute)}, Ignored: "comment 9 by @stranger | not the reviewer",
		Receipt: "3fa85f6457c2", ReviewerAsked: at, Nudged: shaA, Owed: OwedWrite{Write: "round-comment", Arg: "2"},
		Retry: WriteRetry{Write: "ready-label", Count: 2, Err: "403 forbidden"}}
}

// Every ledger reads and formats back byte for byte: the typed state loses
// nothing the map of strings kept.
func TestDeliveryRoundTripCorpus(t *testing.T) {
	t.Parallel()
	corpus := deliveryCorpus(t)
	for f, b := range sharedCorpusLedgers(t) {
		corpus[f] = b
	}
	demo := 0
	for f, src := range corpus {
		if strings.Contains(f, "delivery/demo") {
			demo++
		}
		l, ds := Parse(filepath.Base(f), src)
		if Fatal(ds) {
			t.Errorf("%s: %v", f, ds)
			continue
		}
		if got := Format(l); !bytes.Equal(got, src) {
			t.Errorf("%s: Format(Parse(x)) mismatch (-want +got):\n%s", f, cmp.Diff(string(src), string(got)))
		}
	}
	if demo < 10 {
		t.Errorf("%d demo ledgers; want the demo's histories (testdata/delivery/demo)", demo)
	}
}

// The typed fields hold what the lines say; the strings the map used to
// hand out are the fields' renderings.
func TestDeliveryTypedFields(t *testing.T) {
	t.Parallel()
	d, err := ParseDeliveryLines(
		"chain: launch 2/3",
		"phase: review",
		"dispatched-at: 2026-11-29T10:00:00Z",
		"pr: acme/api#12",
		"round: 2",
		"since: 2026-11-29T09:00:00Z 5 7",
		"owed: round-comment 2",
		"retry: ready-label 3 | 403 forbidden",
		"stop: stuck | the ready-label write failed",
		"spent: 1200 tokens, $0.40",
		"notify: ops/stop/20261129T100000Z/1",
		"pr web: acme/web#3",
		"phase web: ready",
	)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	want := &Delivery{
		Chain:  ChainRef{Name: "launch", K: 2, N: 3},
		Stop:   StopRecord{Reason: StopStuck, Detail: "the ready-label write failed"},
		Spent:  specs.Amount{Tokens: 1200, Micros: 400000},
		Notify: []Owed{{Target: "ops", Event: EventStop, At: at, Tries: 1}},
		PullState: PullState{Phase: PhaseReview, DispatchedAt: at, PR: PullRef{Repo: "acme/api", Number: 12}, Round: 2,
			Since: Cursor{At: at.Add(-time.Hour), IDs: []int64{5, 7}}, Owed: OwedWrite{Write: "round-comment", Arg: "2"},
			Retry: WriteRetry{Write: "ready-label", Count: 3, Err: "403 forbidden"}},
		PerMember: map[string]*PullState{"web": {Phase: PhaseReady, PR: PullRef{Repo: "acme/web", Number: 3}}},
	}
	if diff := cmp.Diff(want, d, cmp.AllowUnexported(Delivery{})); diff != "" {
		t.Errorf("ParseDeliveryLines mismatch (-want +got):\n%s", diff)
	}
	if got := d.Legs(); !slices.Equal(got, []string{"web"}) {
		t.Errorf("Legs() = %v; want [web]", got)
	}
}

// A malformed value is a positioned diagnostic naming what is expected and
// an accepted example, never a silent zero.
func TestDeliveryDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want string // the diagnostic after `plans/x-ledger.md:<line>:<col>: error: ledger/delivery: `
	}{
		{"round: two", "round must be a whole number of at least 0; for example round: 2"},
		{"round: 0", ""},
		{"misses: 01", "misses must be a whole number of at least 0; for example misses: 2"},
		{"head: abc", "head must be a full 40-character lowercase commit SHA; for example head: 2f1c0a3e9b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d"},
		{"dispatched-at: yesterday", "dispatched-at must be an RFC 3339 time such as 2026-11-29T10:00:00Z; for example dispatched-at: 2026-11-29T10:00:00Z"},
		{"dispatched-at: 2026-11-29T10:00:00.5Z", `dispatched-at "2026-11-29T10:00:00.5Z" is not in its canonical spelling: write dispatched-at: 2026-11-29T10:00:00Z`},
		{"since: 2026-11-29T10:00:00Z  7", `since "2026-11-29T10:00:00Z  7" is not in its canonical spelling: write since: 2026-11-29T10:00:00Z 7`},
		{"since: 2026-11-29T10:00:00Z x", `since id "x" is not a positive number; for example since: 2026-11-29T10:00:00Z 4711`},
		{"retry: ready-label | boom", "retry must be <write> <count> | <last error>, like ready-label 2 | 403 forbidden; for example retry: ready-label 2 | 403 forbidden"},
		{"spent: 0 tokens", `spent "0 tokens" is the same as no line: leave the key out`},
		{"spent: $1.5", `spent "$1.5" is not in its canonical spelling: write spent: $1.50`},
		{"pr: acme#1", "pr must be owner/name#number; for example pr: acme/api#12"},
		{"verified: " + shaA + " passed later", "verified must be <sha> passed, or <sha> failed | <command>; for example verified: 2f1c0a3e9b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d failed | go test ./..."},
		{"stop: tired | of it", `stop reason "tired" is not a stop reason; for example stop: stuck | the ready-label write failed 5 times`},
		{"spent api: 10 tokens", ""}, // an entry key per member: unknown, see below
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			t.Parallel()
			src := []byte(Discriminant + "\nspec: specs/x.md\n\n| # | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | |\n\n## Decisions\n\n## Delivery\n" + tt.line + "\n")
			_, ds := Parse("plans/x-ledger.md", src)
			var got []string
			for _, d := range ds {
				if d.Rule == RuleDelivery {
					got = append(got, d.String())
				}
			}
			key, _, _ := strings.Cut(tt.line, ": ")
			var want []string
			switch {
			case tt.want != "":
				want = []string{"plans/x-ledger.md:11:" + strconv.Itoa(len(key)+3) + ": error: ledger/delivery: " + tt.want}
			case strings.Contains(key, " "):
				want = []string{"plans/x-ledger.md:11:1: error: ledger/delivery: unknown delivery key \"" + key + "\"; see docs/ledger.md for the keys"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// Whatever reads formats to lines that read to the same state: parse,
// format, parse is stable, and nothing panics.
func FuzzDeliveryLines(f *testing.F) {
	for _, src := range deliveryCorpus(f) {
		_, sec, ok := bytes.Cut(src, []byte("## Delivery\n"))
		if ok {
			sec, _, _ = bytes.Cut(sec, []byte("\n## "))
			f.Add(string(sec))
		}
	}
	f.Add("round: 0\nspent: $1.5\nsince: 2026-11-29T10:00:00+01:00 3\n")
	f.Fuzz(func(t *testing.T, sec string) {
		d := NewDelivery()
		for _, ln := range strings.Split(sec, "\n") {
			if k, v, ok := strings.Cut(ln, ": "); ok {
				_ = parseDeliveryLine(d, k, v) // a bad line is refused, the others read
			}
		}
		lines := d.Lines()
		again, err := ParseDeliveryLines(lines...)
		if err != nil {
			t.Fatalf("formatted lines do not read back: %v\n%s", err, strings.Join(lines, "\n"))
		}
		if diff := cmp.Diff(lines, again.Lines()); diff != "" {
			t.Fatalf("parse→format→parse is not stable (-first +second):\n%s", diff)
		}
	})
}

// deliverySections is n delivery sections as a large control repository
// holds them: single-member entries in every phase and coordinated ones.
func deliverySections(n int) [][]string {
	out := make([][]string, n)
	for i := range out {
		d := NewDelivery()
		d.SpecCommit, d.Contract, d.Branch = shaC, "5e1f0a9b3c2d", "gallivant/spec-"+strconv.Itoa(i)
		fillDelivery(d, i)
		if i%5 == 0 {
			for _, m := range []string{"api", "web"} {
				*d.Member(m) = d.PullState.clone()
			}
		}
		out[i] = d.Lines()
	}
	return out
}

// BenchmarkDeliveryParseFormat reads and writes the delivery sections of a
// 500-spec corpus with the typed state and with the map of strings it
// replaced, and reports the typed cost as a ratio of the map's.
func BenchmarkDeliveryParseFormat(b *testing.B) {
	secs := deliverySections(500)
	var typed, legacy time.Duration
	for b.Loop() {
		start := time.Now()
		for _, s := range secs {
			d, err := ParseDeliveryLines(s...)
			if err != nil {
				b.Fatal(err)
			}
			_ = d.Lines()
		}
		mid := time.Now()
		for _, s := range secs {
			d, bad := legacyParse(s)
			if bad != 0 {
				b.Fatal("the baseline refused a line")
			}
			_ = d.lines()
		}
		typed, legacy = typed+mid.Sub(start), legacy+time.Since(mid)
	}
	b.ReportMetric(float64(typed)/float64(legacy), "typed/map")
}
