package githubapi

import (
	"fmt"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// TestAdapterUnderRandomFaults drives the adapter through the stand-in's
// seeded fault mix (what `gallivant sandbox --faults` serves): reads are
// retried through 5xx, timeouts and short secondary limits, and writes
// whose responses were lost are read back, never made twice. Each call is
// repeated as the next pass would repeat it, until it succeeds. Rate
// limits are left out of the mix: go-github then refuses further requests
// locally until the reset, in real time (TestAdapterFaults covers them).
func TestAdapterUnderRandomFaults(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			s := testserver.Start(t, "acme/api")
			g, fs := adapter(t, s, ghstandin.DefaultLogin, nil)
			ctx := t.Context()
			testserver.PushBranch(t, s, "acme/api", "f", "f.txt")
			pr, err := g.CreatePullRequest(ctx, "acme/api", "f", "main", "Feature", "")
			if err != nil {
				t.Fatal(err)
			}
			s.SetFaultRates(ghstandin.FaultRates{Seed: seed, Hold: time.Millisecond, Rates: map[ghstandin.RateKind]float64{
				ghstandin.Rate5xx: 0.2, ghstandin.RateTimeout: 0.05,
				ghstandin.RateMalformed: 0.05, ghstandin.RateLost: 0.3,
			}})
			const rounds = 12
			failed := 0
			for i := 0; i < rounds; i++ {
				marker := Marker(fmt.Sprintf("round %d", i))
				for try := 0; ; try++ {
					if try == 40 {
						t.Fatalf("round %d: no success in 40 tries", i)
					}
					if _, err := g.EnsureComment(ctx, "acme/api", pr.Number, marker, fmt.Sprintf("round %d done %s", i, marker)); err == nil {
						break
					}
					failed++
				}
				for try := 0; ; try++ {
					if try == 40 {
						t.Fatalf("label %d: no success in 40 tries: %v", i, g.AddLabel(ctx, "acme/api", pr.Number, fmt.Sprintf("l%d", i%3)))
					}
					if err := g.AddLabel(ctx, "acme/api", pr.Number, fmt.Sprintf("l%d", i%3)); err == nil {
						break
					}
					failed++
				}
			}
			injected := s.FaultsInjected()
			if injected[ghstandin.RateLost] == 0 || injected[ghstandin.Rate5xx] == 0 || failed == 0 {
				t.Fatalf("the mix injected %v and failed %d calls; the test proves nothing", injected, failed)
			}
			if len(fs.waits) == 0 {
				t.Errorf("no GET was retried under %v", injected)
			}
			s.SetFaultRates(ghstandin.FaultRates{})
			cs, err := g.IssueComments(ctx, "acme/api", pr.Number, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			perMarker := map[string]int{}
			for _, c := range cs {
				perMarker[c.Body]++
			}
			want := map[string]int{}
			for i := 0; i < rounds; i++ {
				want[fmt.Sprintf("round %d done %s", i, Marker(fmt.Sprintf("round %d", i)))] = 1
			}
			if diff := cmp.Diff(want, perMarker); diff != "" {
				t.Errorf("comments after %v injected faults (-want +got):\n%s", injected, diff)
			}
			labels, err := g.Labels(ctx, "acme/api", pr.Number)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"l0", "l1", "l2"}, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}
