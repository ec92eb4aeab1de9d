package reconcile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkReplayPassThreeRowsOneCommand is a whole pass of a 3-row spec
// whose rows share one evidence command, from the seed to the opened pull
// request, against the stand-in: what evidence replay adds to it is one
// command run for the three rows, read from the verification's log (the
// executor writes one line a replayed command). It reports replay-runs/pass,
// commands/row and replay-ms/pass (the run's recorded duration) beside the
// pass's time; BenchmarkReplayThreeRowsOneCommand
// (gatekeep) is the planning alone. Run it with -benchtime=1x on a busy
// machine: each iteration builds its own control and target repositories.
func BenchmarkReplayPassThreeRowsOneCommand(b *testing.B) {
	spec := "# Feature\n\n## Acceptance criteria\n1. Criterion 1 holds.\n2. Criterion 2 holds.\n3. Criterion 3 holds.\n\n## Verify\n- `ls rows`\n"
	runs, replayMS := 0, 0.0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := newRig(b, map[string]string{"specs/feature.md": spec})
		r.script = func(string, int, string) Behavior { return Shared }
		b.StartTimer()
		got := strings.Join(subjectsOf(r.pass()), "\n")
		b.StopTimer()
		if !strings.Contains(got, "loop: verify\nloop: open pr acme/api#1") {
			b.Fatalf("got %s, want the evidence replayed and the pull request opened", got)
		}
		log, err := os.ReadFile(filepath.Join(r.work, "logs", "feature-verify.log"))
		if err != nil {
			b.Fatal(err)
		}
		runs = strings.Count(string(log), "# gallivant: replay evidence of ")
		if p, ok := r.ledgerOf("specs/feature.md").ProofOf(3); !ok || !p.Proved() || p.Command != "test -d rows" {
			b.Fatalf("proof of row 3 = %+v (%v), want the shared command proved", p, ok)
		} else {
			replayMS += float64(p.Duration.Milliseconds())
		}
		b.StartTimer()
	}
	if runs != 1 {
		b.Fatalf("%d replay runs for three rows sharing one command, want 1", runs)
	}
	b.ReportMetric(float64(runs), "replay-runs/pass")
	b.ReportMetric(float64(runs)/3, "commands/row")
	b.ReportMetric(replayMS/float64(b.N), "replay-ms/pass")
}
