package daemon

import (
	"context"
	"flag"
	"io/fs"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gallivant/gallivant/internal/store"
)

var update = flag.Bool("update", false, "rewrite docs/img/dashboard*.png from the browser test")

// chromium is the browser the dashboard test drives; .ci/run installs it.
const chromium = "/usr/bin/chromium"

// controlWithPhases is the example control repository of docs/ with its
// entries moved into several phases, committed in two steps so that the
// ledgers have a history.
func controlWithPhases(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "docs", "examples", "control")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=gallivant", "GIT_AUTHOR_EMAIL=g@x",
			"GIT_COMMITTER_NAME=gallivant", "GIT_COMMITTER_EMAIL=g@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "--quiet", "--initial-branch=main")
	git("add", "-A")
	git("commit", "--quiet", "-m", "Approve the acme platform specs")
	edit := func(rel string, pairs ...string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				t.Fatalf("%s lacks %q", rel, pairs[i])
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("plans/webhooks-ledger.md",
		"| 1 | open | 0 | |", "| 1 | done | 1 | go test ./internal/webhooks -run TestSignedDelivery; ok |",
		"| 2 | open | 0 | |", "| 2 | done | 2 | go test ./internal/webhooks -run TestRetryBackoff; ok |",
		"iterations: 0", "iterations: 3",
		"## Decisions\n", "## Decisions\nrow 0 done | seeded 2 rows, closed 0 on baseline | row 1\nrow 1 done | deliveries are signed with HMAC-SHA256 | row 2 next\nrow 2 done | retries back off exponentially up to an hour | open the pull request\n",
		"phase: implement", "phase: review\npr: acme/api#12\nround: 1")
	git("commit", "--quiet", "-am", "loop: open pull request\n\nThe rows are done; acme/api#12 is open for review.")
	edit("plans/rate-limiter-ledger.md",
		"pending: 1 | home | 9b1c0d2e3f405162738495a6b7c8d9e0f1a2b3c4\n", "",
		"| 1 | failed | 1 | go test ./internal/ratelimit -run TestOverLimit; FAIL: 429 sent without Retry-After |", "| 1 | done | 2 | go test ./internal/ratelimit -run TestOverLimit; ok |",
		"phase: implement\ndispatched-at: 2026-11-29T09:40:00Z", "phase: ready\npr: acme/api#9")
	git("commit", "--quiet", "-am", "loop: ready acme/api#9\n\nChecks are green and the reviewer approved.")
	return dir
}

// The dashboard as a person sees it in a real browser: every entry, the
// stop with the request that clears it, the pull request links, the phone
// layout without sideways scrolling, a stylesheet the CSP lets through,
// and an entry page reached by its link. It saves the screenshots that
// docs/operations.md shows when run with -update.
func TestDashboardInBrowser(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Control: controlWithPhases(t)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Capture(ctx, st, "https://github.com/", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	state := &State{}
	state.SetView(v)
	state.RecordPass(PassRecord{Ended: time.Now().Add(-40 * time.Second), Took: 3 * time.Second, Result: ResultOK})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state}))
	defer ts.Close()

	bctx := browserCtx(t)

	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		return must[string](t)(chromedp.Run(bctx, chromedp.Text(chromedp.CSS(sel))))
	}
	eval := func(js string) float64 {
		t.Helper()
		return must[float64](t)(chromedp.Run(bctx, chromedp.Evaluate[float64](js)))
	}
	shot := func() []byte {
		t.Helper()
		return must[[]byte](t)(chromedp.Run(bctx, chromedp.FullScreenshot(100)))
	}

	do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(".card")))
	body := text("body")
	stopText := text(`article[id="specs/usage-dashboard.md"] .stop`)
	prHref := must[chromedp.AttributeResult](t)(chromedp.Run(bctx, chromedp.AttributeValue(chromedp.CSS(`article[id="specs/webhooks.md"] a.pr`), "href"))).Value
	cards := int(eval(`document.querySelectorAll(".card").length`))
	scrollW, clientW := eval(`document.documentElement.scrollWidth`), eval(`document.documentElement.clientWidth`)
	topBg := must[string](t)(chromedp.Run(bctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".top")).backgroundColor`)))
	phone := shot()

	if cards != len(v.Entries) || cards < 7 {
		t.Errorf("%d cards on the page, want one per entry (%d)", cards, len(v.Entries))
	}
	for _, want := range []string{"specs/webhooks.md", "specs/rate-limiter.md", "specs/usage-dashboard.md", "specs/usage-export.md",
		"review", "ready", "not seeded", "acme/api#12", "acme/api#9", "last pass ok"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page does not show %q:\n%s", want, body)
		}
	}
	for _, want := range []string{"stopped: allowance", "row 2 used 4 of 4 attempts", "plans/usage-dashboard-ledger.md"} {
		if !strings.Contains(stopText, want) {
			t.Errorf("the stop box does not show %q: %q", want, stopText)
		}
	}
	if e, _ := v.Entry("specs/usage-dashboard.md"); e == nil || e.Stop == nil || len(e.Stop.Clear) == 0 {
		t.Fatalf("the fixture's stopped entry has no clearing request: %+v", e)
	} else {
		for _, req := range e.Stop.Clear {
			if !strings.Contains(stopText, req) {
				t.Errorf("the stop box does not name the clearing request %q: %q", req, stopText)
			}
		}
	}
	if prHref != "https://github.com/acme/api/pull/12" {
		t.Errorf("pull request link %q", prHref)
	}
	if scrollW > clientW {
		t.Errorf("the phone layout scrolls sideways: content %vpx wide in a %vpx viewport", scrollW, clientW)
	}
	if topBg != "rgb(36, 41, 47)" {
		t.Errorf("header background %q: the stylesheet did not load under the CSP", topBg)
	}

	do(chromedp.EmulateViewport(1280, 900))
	desktop := shot()
	do(chromedp.Click(chromedp.CSS(`article[id="specs/webhooks.md"] a.spec`)),
		chromedp.WaitVisible(chromedp.CSS("table.ledger")))
	entryBody := text("main")
	rows := int(eval(`document.querySelectorAll("table.ledger tbody tr").length`))
	entryShot := shot()
	if rows != 2 {
		t.Errorf("the entry page's ledger table has %d rows, want 2", rows)
	}
	for _, want := range []string{"TestRetryBackoff", "loop: open pull request", "Approve the acme platform specs", "pr: acme/api#12", "round 1 of 10", "row 1 done | deliveries are signed with HMAC-SHA256 | row 2 next"} {
		if !strings.Contains(entryBody, want) {
			t.Errorf("the entry page does not show %q:\n%s", want, entryBody)
		}
	}

	out := t.TempDir()
	if *update {
		out = filepath.Join("..", "..", "docs", "img")
	}
	for name, b := range map[string][]byte{"dashboard.png": desktop, "dashboard-phone.png": phone, "dashboard-entry.png": entryShot} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// must turns a (value, error) pair into the value, failing the test on
// the error.
func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
