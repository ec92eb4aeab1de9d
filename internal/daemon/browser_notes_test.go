package daemon

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
)

// browserCtx starts headless Chromium for one test and returns its
// context, ended with the test; it skips as TestDashboardInBrowser does.
func browserCtx(t *testing.T) context.Context {
	t.Helper()
	if os.Getenv("GALLIVANT_NO_BROWSER") == "1" {
		t.Skip("GALLIVANT_NO_BROWSER=1")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Fatalf("%s is missing (apt-get install -y chromium; .ci/run does it); set GALLIVANT_NO_BROWSER=1 to skip this test", chromium)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	bctx, cancel = context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(cancel)
	return bctx
}

// Issue 31: what the last pass noted (waits, problems), the filters and
// a running agent's live tail, as a person sees them in a browser at a
// phone's width and at a desktop's: visible, inside the viewport, and
// the filter links filtering.
func TestDashboardNotesInBrowser(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: controlWithPhases(t)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Capture(ctx, st, "https://github.com/", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	const (
		wait     = "acme/api#12 waits for an approval by @alice"
		problem  = "GitHub refused to add the label ready-for-human to acme/api#9: 403 Resource not accessible by integration"
		cfgIssue = "the executor change was refused; the last good configuration stays"
	)
	v.AttachNotes([]reconcile.Note{
		{Spec: "specs/webhooks.md", Message: wait},
		{Spec: "specs/rate-limiter.md", Message: problem, Problem: true},
		{Spec: "gallivant.yaml", Message: cfgIssue, Problem: true},
	})
	reviews := 0
	for _, e := range v.Entries {
		if e.Phase == "review" {
			reviews++
		}
	}
	if reviews == 0 || reviews == len(v.Entries) {
		t.Fatalf("the fixture has %d of %d entries in review; the filter would prove nothing", reviews, len(v.Entries))
	}
	state := &State{}
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: time.Now().Add(-40 * time.Second), Took: 3 * time.Second, Result: ResultProblems})
	live := NewLiveRuns()
	run := agent.Run{Spec: "specs/audit-log.md", Task: "seed", Started: time.Now().Add(-95 * time.Second)}
	live.Started(run)
	for i := 1; i <= 25; i++ {
		live.Output(run, fmt.Sprintf("tail line %02d of the agent's output, long enough to wrap on a phone: %s", i, strings.Repeat("x", 60)))
	}
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Live: live, Refresh: time.Hour}))
	defer ts.Close()
	bctx := browserCtx(t)

	for _, width := range []struct {
		name string
		set  chromedp.Action[chromedp.Void]
		w    float64
	}{
		{"phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile), 390},
		{"desktop", chromedp.EmulateViewport(1280, 900), 1280},
	} {
		t.Run(width.name, func(t *testing.T) {
			run := func(steps ...chromedp.Action[chromedp.Void]) {
				t.Helper()
				if err := chromedp.Do(bctx, steps...); err != nil {
					t.Fatal(err)
				}
			}
			text := func(sel string) string {
				t.Helper()
				return must[string](t)(chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel))))
			}
			num := func(js string) float64 {
				t.Helper()
				return must[float64](t)(chromedp.Run(bctx, chromedp.Evaluate[float64](js)))
			}
			// shown fails unless sel's first element is laid out with a
			// size and lies within the viewport's width.
			shown := func(sel string) {
				t.Helper()
				js := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) return -1;
					const r = el.getBoundingClientRect(); if (r.width === 0 || r.height === 0) return -2;
					return r.left >= 0 && r.right <= document.documentElement.clientWidth ? 1 : -3; })()`, sel)
				switch num(js) {
				case -1:
					t.Errorf("%s: no %s on the page", width.name, sel)
				case -2:
					t.Errorf("%s: %s is not laid out (no size)", width.name, sel)
				case -3:
					t.Errorf("%s: %s sticks out of the %vpx viewport", width.name, sel, width.w)
				}
			}
			noSideways := func(page string) {
				t.Helper()
				if sw, cw := num(`document.documentElement.scrollWidth`), num(`document.documentElement.clientWidth`); sw > cw {
					t.Errorf("%s: %s scrolls sideways: content %vpx wide in a %vpx viewport", width.name, page, sw, cw)
				}
			}

			run(width.set, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".card")))
			if got := num(`document.documentElement.clientWidth`); got != width.w {
				t.Fatalf("viewport %vpx wide, want %v", got, width.w)
			}
			if got, want := text(`article[id="specs/webhooks.md"] .wait`), "waiting: "+wait; got != want {
				t.Errorf("%s: the webhooks card's wait = %q; want %q", width.name, got, want)
			}
			if got, want := text(`article[id="specs/rate-limiter.md"] .problem`), "last pass: "+problem; got != want {
				t.Errorf("%s: the rate-limiter card's problem = %q; want %q", width.name, got, want)
			}
			if got, want := text(`main > p.problem`), "gallivant.yaml: "+cfgIssue; got != want {
				t.Errorf("%s: the problem above the cards = %q; want %q", width.name, got, want)
			}
			if got := text(`article[id="specs/audit-log.md"] .dispatch`); !strings.Contains(got, "running") || !strings.Contains(got, "the seed of web") {
				t.Errorf("%s: the audit-log card's dispatch = %q; want it running the seed of web", width.name, got)
			}
			for _, sel := range []string{`article[id="specs/webhooks.md"] .wait`, `article[id="specs/rate-limiter.md"] .problem`, `main > p.problem`, `nav.filters`, `article[id="specs/audit-log.md"] .dispatch`} {
				shown(sel)
			}
			noSideways("the list")
			if got := int(num(`document.querySelectorAll(".card").length`)); got != len(v.Entries) {
				t.Errorf("%s: %d cards unfiltered, want %d", width.name, got, len(v.Entries))
			}

			run(chromedp.Click(chromedp.Search(`//p[@class="filter"][span[text()="phase"]]/a[text()="review"]`), chromedp.NodeVisible),
				chromedp.WaitVisible(chromedp.Search(`//p[@class="filter"][span[text()="phase"]]/a[@aria-current="true"][text()="review"]`)))
			if got := must[string](t)(chromedp.Run(bctx, chromedp.Evaluate[string](`location.search`))); got != "?phase=review" {
				t.Errorf("%s: the review link led to %q, want ?phase=review", width.name, got)
			}
			if got := int(num(`document.querySelectorAll(".card").length`)); got != reviews {
				t.Errorf("%s: %d cards under ?phase=review, want %d", width.name, got, reviews)
			}
			if got := int(num(`[...document.querySelectorAll(".card .phase")].filter(p => p.textContent !== "review").length`)); got != 0 {
				t.Errorf("%s: %d cards under ?phase=review are in another phase", width.name, got)
			}
			if got := text(`nav.filters a[aria-current="true"]`); got != "all" && got != "review" {
				t.Errorf("%s: the active filter link is %q", width.name, got)
			}
			if got := int(num(`[...document.querySelectorAll('nav.filters a[aria-current="true"]')].filter(a => a.textContent === "review").length`)); got != 1 {
				t.Errorf("%s: %d active review links, want 1", width.name, got)
			}
			if !strings.Contains(text("main"), wait) {
				t.Errorf("%s: the filtered list lost the webhooks card's wait", width.name)
			}
			noSideways("the filtered list")

			run(chromedp.Navigate(ts.URL+"/entry/specs/audit-log.md"), chromedp.WaitVisible(chromedp.CSS("section.live")))
			if got := text(`section.live h2`); !strings.HasPrefix(got, "Running now: seed, started 1m ago") {
				t.Errorf("%s: the live view's heading = %q", width.name, got)
			}
			tail := text(`section.live pre.tail`)
			if !strings.Contains(tail, "tail line 25 ") || !strings.Contains(tail, "tail line 06 ") || strings.Contains(tail, "tail line 05 ") {
				t.Errorf("%s: the live tail is not the last 20 lines:\n%s", width.name, tail)
			}
			shown(`section.live pre.tail`)
			if over := num(`(() => { const p = document.querySelector("section.live pre.tail"); return p.scrollWidth - p.clientWidth; })()`); over > 0 {
				t.Errorf("%s: the live tail's lines do not wrap: %vpx wider than its box", width.name, over)
			}
			noSideways("the entry page")
		})
	}
}
