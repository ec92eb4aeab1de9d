package daemon

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
)

// The dashboard shows the pass's own decision: an entry the last pass
// decided on carries that decision, its explanation says it (not the
// recorded state alone), and its card prints it with its step and look.
// Without a pass's decisions the explanation says it is the last
// recorded state.
func TestDashboardShowsThePassDecision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: controlWithPhases(t), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const spec = "specs/webhooks.md"
	d := reconcile.Decision{Spec: spec, PR: "acme/api#12", Look: gatekeep.LookJudged, Step: gatekeep.StepWait,
		Words: "acme/api#12 waits for an approval by @alice of 0123456"}
	v, err := CaptureDecided(ctx, st, "https://github.com/", time.Now(), []reconcile.Decision{
		{Spec: spec, PR: "acme/api#12", Look: gatekeep.LookLive, Step: gatekeep.StepFollow, Words: "an earlier decision of the same pass"}, d})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := v.Entry(spec)
	if !ok {
		t.Fatalf("no entry %s", spec)
	}
	if e.Decision == nil || *e.Decision != d {
		t.Fatalf("entry decision = %+v; want the pass's last one %+v", e.Decision, d)
	}
	want := "decision: acme/api#12 waits for an approval by @alice of 0123456 (step wait, judged look, the last pass)"
	if !slices.Contains(e.Why, want) {
		t.Errorf("why lacks %q:\n%s", want, strings.Join(e.Why, "\n"))
	}
	for _, line := range e.Why {
		if strings.Contains(line, "last recorded state") {
			t.Errorf("why says the recorded state beside the pass's decision: %q", line)
		}
	}
	state := &State{}
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultOK})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()
	_, body := get(t, ts.URL+"/")
	if !strings.Contains(body, `<p class="decision">decision: acme/api#12 waits for an approval by @alice of 0123456 <span class="when">(step wait, judged look)</span></p>`) {
		t.Errorf("the card lacks the decision:\n%s", body)
	}

	plain, err := Capture(ctx, st, "https://github.com/", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	pe, _ := plain.Entry(spec)
	if pe.Decision != nil || !slices.ContainsFunc(pe.Why, func(s string) bool { return strings.HasPrefix(s, "decision: the last recorded state") }) {
		t.Errorf("without decisions: decision %+v, why:\n%s", pe.Decision, strings.Join(pe.Why, "\n"))
	}
}
