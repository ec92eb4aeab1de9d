package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// receiver is a notification target whose answer the test sets: fail
// (500), hang (until the client gives up) or accept.
type receiver struct {
	mu       sync.Mutex
	mode     string
	accepted map[string][]string // path → Idempotency-Key of every accepted delivery, in order
	bodies   map[string]string   // path → the last accepted body
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	rc := &receiver{mode: "accept", accepted: map[string][]string{}, bodies: map[string]string{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.mu.Lock()
		mode := rc.mode
		rc.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		switch mode {
		case "fail":
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
		case "hang":
			<-r.Context().Done() // the client's timeout ends it
		default:
			rc.mu.Lock()
			rc.accepted[r.URL.Path] = append(rc.accepted[r.URL.Path], r.Header.Get("Idempotency-Key"))
			rc.bodies[r.URL.Path] = string(body)
			rc.mu.Unlock()
		}
	}))
	t.Cleanup(ts.Close)
	return rc, ts
}

func (rc *receiver) set(mode string) { rc.mu.Lock(); rc.mode = mode; rc.mu.Unlock() }

func (rc *receiver) deliveries() map[string][]string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := map[string][]string{}
	for k, v := range rc.accepted {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func notifyConfig(url string) string {
	return rigConfig + `notify:
  - name: hook
    url: ` + url + `/hook
    on: [ready, stops]
  - name: chat
    url_env: CHAT_URL
    format: slack
    on: [ready]
`
}

// The ready transition owes both targets a notification in its own commit;
// the process dies right after pushing it, before delivering; the targets
// then fail, then time out, then recover: each receives exactly one
// delivery, and the ledger ends owing nothing.
func TestNotificationsSurviveCrashAndOutage(t *testing.T) {
	t.Parallel()
	rc, ts := newReceiver(t)
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": notifyConfig(ts.URL)})
	died := errors.New("killed")
	rep, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			// Dies right after the push that put the ready transition on
			// the control branch (earlier pushes publish dispatches).
			if point == "push:after" && strings.Contains(run(t, r.control, "git", "log", "--format=%s", "main"), "loop: ready") {
				return died
			}
			return nil
		}
	}).Pass(context.Background())
	if !errors.Is(err, died) || countSubjects(rep, "loop: ready") != 1 {
		t.Fatalf("the pass did not push the ready transition and die: %v %v", subjectsOf(rep), err)
	}
	owed := r.ledger(ledgerPath).OwedNotifications()
	if len(owed) != 2 || owed[0].Target != "hook" || owed[1].Target != "chat" || owed[0].Event != ledger.EventReady {
		t.Fatalf("owed after the ready transition: %+v", owed)
	}
	if diff := run(t, r.control, "git", "log", "-1", "-p", "--format=", "--grep=^loop: ready acme/api#1$", "main", "--", ledgerPath); !strings.Contains(diff, "+notify: hook/ready/") {
		t.Errorf("the ready commit does not owe the notification itself:\n%s", diff)
	}

	var outcomes []string
	notify := func() []NotifyResult {
		t.Helper()
		res, err := r.reconciler().Notify(context.Background(), NotifyOptions{
			Client:  &http.Client{Timeout: 200 * time.Millisecond},
			Env:     func(k string) string { return map[string]string{"CHAT_URL": ts.URL + "/chat"}[k] },
			Observe: func(o string) { outcomes = append(outcomes, o) },
		})
		if err != nil {
			t.Fatalf("notify: %v", err)
		}
		return res
	}
	rc.set("fail")
	notify()
	rc.set("hang")
	res := notify()
	if res[0].Error != "timed out" {
		t.Errorf("a hanging target: %+v", res)
	}
	if got := ledger.NotifyText(r.ledger(ledgerPath).Delivery); !strings.Contains(got, "/2 ") || !strings.HasSuffix(got, "/2") {
		t.Errorf("after two failed tries the ledger owes %q", got)
	}
	rc.set("accept")
	notify()
	if again := notify(); len(again) != 0 {
		t.Errorf("a delivered notification was tried again: %+v", again)
	}
	if diff := cmp.Diff([]string{"retry", "retry", "retry", "retry", "delivered", "delivered"}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	got := rc.deliveries()
	if len(got["/hook"]) != 1 || len(got["/chat"]) != 1 {
		t.Fatalf("deliveries %v; want exactly one to each target", got)
	}
	l := r.ledger(ledgerPath)
	if len(l.Delivery.Notify) != 0 || !l.Delivery.NotifyFailed.IsZero() || l.Phase() != ledger.PhaseReady {
		t.Errorf("ledger after delivery: %v", l.Delivery.Lines())
	}
	var n Notification
	if err := json.Unmarshal([]byte(rc.bodies["/hook"]), &n); err != nil {
		t.Fatal(err)
	}
	if n.ID != got["/hook"][0] || n.Event != "ready" || n.Spec != "specs/feature.md" || n.PR != "acme/api#1" || n.Ledger != ledgerPath {
		t.Errorf("JSON payload %+v", n)
	}
	if want := `{"text":"specs/feature.md is ready for a person to merge: acme/api#1"}`; rc.bodies["/chat"] != want {
		t.Errorf("Slack payload %s, want %s", rc.bodies["/chat"], want)
	}
	if s := r.subjects(); s[len(s)-1] != "loop: notify" {
		t.Errorf("the delivery is not recorded by a loop: notify commit: %v", s)
	}
}

// A crash after a target accepted a notification but before the ledger
// records it sends it again at the next try, with the same id: a receiver
// that honours Idempotency-Key sees it once.
func TestNotificationRedeliveredWithSameIDAfterCrash(t *testing.T) {
	t.Parallel()
	rc, ts := newReceiver(t)
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": notifyConfig(ts.URL)})
	r.pass()
	env := func(k string) string { return map[string]string{"CHAT_URL": ts.URL + "/chat"}[k] }
	died := errors.New("killed")
	_, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			if point == "notify:delivered" {
				return died
			}
			return nil
		}
	}).Notify(context.Background(), NotifyOptions{Env: env})
	if !errors.Is(err, died) {
		t.Fatalf("notify did not die after the first delivery: %v", err)
	}
	if _, err := r.reconciler().Notify(context.Background(), NotifyOptions{Env: env}); err != nil {
		t.Fatal(err)
	}
	got := rc.deliveries()
	if len(got["/hook"]) != 2 || got["/hook"][0] != got["/hook"][1] || len(got["/chat"]) != 1 {
		t.Errorf("deliveries %v; want the hook's twice with one id, the chat's once", got)
	}
	if len(r.ledger(ledgerPath).Delivery.Notify) != 0 {
		t.Error("the ledger still owes a notification")
	}
}

// Retries are bounded: the last failed try leaves a notify-failed note,
// never a stop, and the entry goes on.
func TestNotificationGivenUpLeavesNoteNotStop(t *testing.T) {
	t.Parallel()
	rc, ts := newReceiver(t)
	rc.set("fail")
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": notifyConfig(ts.URL)})
	r.pass()
	var outcomes []string
	for i := 0; i < 3; i++ {
		if _, err := r.reconciler().Notify(context.Background(), NotifyOptions{MaxTries: 3, Observe: func(o string) { outcomes = append(outcomes, o) }}); err != nil {
			t.Fatal(err)
		}
	}
	l := r.ledger(ledgerPath)
	if _, _, stopped := l.Stop(); stopped || l.Phase() != ledger.PhaseReady {
		t.Errorf("a failed notification changed the entry: %v", l.Delivery.Lines())
	}
	if got := ledger.NotifyText(l.Delivery); got != "" {
		t.Errorf("still owed after the last try: %q", got)
	}
	// Both fail three times; the note keeps the last one given up.
	failed := l.Delivery.NotifyFailed.String()
	if !strings.HasPrefix(failed, "chat/ready/") || !strings.HasSuffix(failed, " | $CHAT_URL is not set after 3 tries") {
		t.Errorf("notify-failed: %q", failed)
	}
	if diff := cmp.Diff([]string{"retry", "retry", "retry", "retry", "failed", "failed"}, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: r.cache})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if why := strings.Join(snap.Explain("specs/feature.md"), "\n"); !strings.Contains(why, "notification given up: chat/ready/") {
		t.Errorf("gallivant why does not show the note:\n%s", why)
	}
	if len(rc.deliveries()) != 0 {
		t.Errorf("a failing target accepted something: %v", rc.deliveries())
	}
}

// A receiver's answer is untrusted: what reaches the ledger is one line.
func TestNotifyErrorIsOneLine(t *testing.T) {
	t.Parallel()
	got := oneLine("answered 500 a|b\x01c\r\n" + strings.Repeat("x", 300))
	if strings.ContainsAny(got, "|\x01\r\n") || len([]rune(got)) != 200 || !strings.HasPrefix(got, "answered 500 a/b c x") {
		t.Errorf("oneLine = %q", got)
	}
	src := "# Ledger - loop engine\n**Spec:** `specs/a.md`\nbase: 3f9c2e7a0b1d4c5e6f708192a3b4c5d6e7f80912\nverification: go test ./...\n" +
		"checks: commands\niterations: 0\nallowance: 5\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 | |\n\n" +
		"## Decisions\n\n## Delivery\nphase: implement\nnotify-failed: ops/stop/20261129T120000Z | " + got + " after 5 tries\n"
	if _, ds := ledger.Parse("plans/a-ledger.md", []byte(src)); ds.HasErrors() {
		t.Errorf("the note does not validate: %v", ds)
	}
}
