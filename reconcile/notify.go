package reconcile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// Notification delivery outcomes, as NotifyOptions.Observe receives them.
const (
	NotifyDelivered = "delivered" // the target accepted it; the ledger marks it delivered
	NotifyRetry     = "retry"     // the target refused or timed out; it stays owed
	NotifyFailed    = "failed"    // the retries are spent; a notify-failed note replaces it
)

// NotifyMaxTries is how many failed deliveries of one notification end in
// a notify-failed note, when NotifyOptions.MaxTries is 0. One try is made
// per pass, so an outage shorter than four schedule intervals loses
// nothing.
const NotifyMaxTries = 5

// NotifyOptions configure a round of notification deliveries.
type NotifyOptions struct {
	// Client posts notifications; one with a 10s timeout when nil.
	Client *http.Client
	// Env reads the variables url_env names.
	Env func(string) string
	// MaxTries bounds the failed deliveries of one notification;
	// NotifyMaxTries when 0.
	MaxTries int
	// Observe, when set, hears every attempt's outcome (the metrics).
	Observe func(outcome string)
}

// NotifyResult is one delivery attempt.
type NotifyResult struct {
	Spec    string `json:"spec"`
	Target  string `json:"target"`
	Event   string `json:"event"`
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// Notification is the JSON a `format: json` target receives. ID is the
// same at every try of one notification, and is sent as the
// Idempotency-Key header too.
type Notification struct {
	ID     string      `json:"id"`
	Event  string      `json:"event"`
	At     time.Time   `json:"at"`
	Spec   string      `json:"spec"`
	Ledger string      `json:"ledger"`
	Phase  string      `json:"phase"`
	PR     string      `json:"pr,omitempty"`
	Stop   *StopStatus `json:"stop,omitempty"`
	// Text is the sentence a Slack-compatible target receives.
	Text string `json:"text"`
}

// Notify delivers the notifications the ledgers at the control branch
// head owe, one try each, and records the outcome in the same ledgers: a
// delivered notification leaves `notify:`, a failed one stays with its try
// count raised, and the last failed try replaces it with a
// `notify-failed:` note. Only what is on the control branch is delivered,
// so a transition whose push failed notifies nobody. The outcomes are
// committed and pushed as a pass's transitions are (recordNotified): a
// push that loses a race records them again on the new head. A crash
// before the outcome is pushed delivers the notification again at the next
// call, with the same id.
func (r *Reconciler) Notify(ctx context.Context, o NotifyOptions) ([]NotifyResult, error) {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	if o.MaxTries == 0 {
		o.MaxTries = NotifyMaxTries
	}
	st := r.o.Store
	if st.Head() != "" {
		// The pass just synced: a configuration without targets needs
		// no second fetch of the control branch.
		if cfg, err := controlNotifyConfig(ctx, st); err == nil && len(cfg.Notify) == 0 {
			return nil, nil
		}
	}
	if err := st.Sync(ctx); err != nil {
		return nil, err
	}
	cfg, err := controlNotifyConfig(ctx, st)
	if err != nil {
		return nil, err
	}
	if len(cfg.Notify) == 0 {
		// Nothing to deliver to; what ledgers still owe waits for a target.
		return nil, nil
	}
	all, err := owingLedgers(ctx, st, cfg)
	if err != nil {
		return nil, err
	}
	var results []NotifyResult
	var done []deliveredTo
	for _, ow := range all {
		if ow.l == nil || ow.path == "" || len(ow.l.OwedNotifications()) == 0 {
			continue
		}
		res, attempts, err := r.deliverOwed(ctx, o, cfg, ow)
		results = append(results, res...)
		if err != nil {
			return results, err
		}
		done = append(done, deliveredTo{path: ow.path, attempts: attempts})
	}
	return results, r.recordNotified(ctx, done)
}

// controlNotifyConfig reads gallivant.yaml at the control branch head; the
// defaults when there is none.
func controlNotifyConfig(ctx context.Context, st *store.Store) (*specs.Config, error) {
	data, ok, err := st.ReadFile(ctx, st.Head(), specs.ConfigFile)
	if err != nil || !ok {
		return specs.DefaultConfig(), err
	}
	cfg, ds := specs.ParseConfig(specs.ConfigFile, data)
	if ds.HasErrors() {
		return nil, fmt.Errorf("gallivant.yaml at %s has errors; no notification is sent until they are fixed", short(st.Head()))
	}
	return cfg, nil
}

// owing is a ledger that may owe notifications, with its spec and path.
type owing struct {
	spec, path string
	l          *ledger.Ledger
}

// owingLedgers lists every ledger at the control branch head, each spec's
// in order, then those whose spec is gone: a ledger whose spec is gone
// owes its spec-gone stop's notification.
func owingLedgers(ctx context.Context, st *store.Store, cfg *specs.Config) ([]owing, error) {
	files, _, err := st.Files(ctx, cfg.ScanDirs())
	if err != nil {
		return nil, err
	}
	repo, _ := ledger.LoadWith(cfg, files, ledger.Parsers{Parsers: specs.Parsers{Source: st.SourceReader(ctx, st.Tip())}})
	var all []owing
	for _, sp := range repo.SpecPaths() {
		all = append(all, owing{sp, repo.LedgerPaths[sp], repo.Ledgers[sp]})
	}
	orphans := make([]string, 0, len(repo.Orphans))
	for lp := range repo.Orphans {
		orphans = append(orphans, lp)
	}
	sort.Strings(orphans)
	for _, lp := range orphans {
		sp := repo.Orphans[lp]
		if _, ok := repo.Specs[sp]; ok {
			continue
		}
		if data, ok, err := st.ReadFile(ctx, st.Head(), lp); err == nil && ok {
			if l, ds := ledger.Parse(lp, data); !ledger.Fatal(ds) {
				all = append(all, owing{sp, lp, l})
			}
		}
	}
	return all, nil
}

// deliverOwed tries each notification a ledger owes once and says how each
// try went; the error is a test's crash after an accepted delivery.
func (r *Reconciler) deliverOwed(ctx context.Context, o NotifyOptions, cfg *specs.Config, ow owing) ([]NotifyResult, []ledger.NotifyAttempt, error) {
	var results []NotifyResult
	var attempts []ledger.NotifyAttempt
	for _, owed := range ow.l.OwedNotifications() {
		res := NotifyResult{Spec: ow.spec, Target: owed.Target, Event: string(owed.Event), ID: owed.ID(ow.path)}
		target, known := cfg.NotifyTarget(owed.Target)
		var err error
		if known {
			err = r.post(ctx, o, target, notification(ow.l, ow.spec, ow.path, owed))
		} else {
			err = errors.New("the target is no longer in gallivant.yaml")
		}
		a := ledger.NotifyAttempt{Owed: owed, Fate: ledger.NotifyFateOf(owed, err != nil, known, o.MaxTries), MaxTries: o.MaxTries}
		if err != nil {
			a.Err = err.Error()
		}
		attempts = append(attempts, a)
		res.Outcome, res.Error = r.logAttempt(ow.spec, owed, a.Fate, err)
		if o.Observe != nil {
			o.Observe(res.Outcome)
		}
		results = append(results, res)
		if err == nil && r.o.Crash != nil {
			// Tests die here: accepted, not yet recorded.
			if cerr := r.o.Crash("notify:delivered"); cerr != nil {
				return results, attempts, fmt.Errorf("%w at notify:delivered: %w", errCrash, cerr)
			}
		}
	}
	return results, attempts, nil
}

// logAttempt names an attempt's outcome and logs a failed one.
func (r *Reconciler) logAttempt(spec string, owed ledger.Owed, fate ledger.NotifyFate, err error) (outcome, msg string) {
	switch fate {
	case ledger.NotifyDelivered:
		return NotifyDelivered, ""
	case ledger.NotifyGaveUp:
		r.o.Log.Warn("notification given up", "spec", spec, "target", owed.Target, "event", string(owed.Event), "tries", owed.Tries+1, "error", err.Error())
		return NotifyFailed, err.Error()
	}
	r.o.Log.Info("notification failed; retried next pass", "spec", spec, "target", owed.Target, "event", string(owed.Event), "tries", owed.Tries+1, "error", err.Error())
	return NotifyRetry, err.Error()
}

// oneLine keeps untrusted text fit for one line of the delivery section
// (ledger.NotifyLine).
func oneLine(s string) string { return ledger.NotifyLine(s) }

// notification describes ow for its receiver, from the ledger as the
// control branch holds it now.
func notification(l *ledger.Ledger, spec, path string, ow ledger.Owed) Notification {
	n := Notification{ID: ow.ID(path), Event: string(ow.Event), At: ow.At, Spec: spec, Ledger: path, Phase: string(l.Phase()), PR: l.Delivery.PRText()}
	reason, detail, stopped := l.Stop()
	if stopped {
		n.Stop = &StopStatus{Reason: string(reason), Detail: detail, Clear: ledger.ClearingRequests(reason)}
		if n.Stop.Clear == nil {
			n.Stop.Clear = []string{}
		}
	}
	switch ow.Event {
	case ledger.EventStop, ledger.EventStuck:
		n.Text = spec + " stopped"
		if stopped {
			n.Text += ": " + string(reason)
			if detail != "" {
				n.Text += " (" + detail + ")"
			}
			if len(n.Stop.Clear) > 0 {
				n.Text += ". To clear it, add under ## Requests in " + path + ": " + strings.Join(n.Stop.Clear, " or ")
			}
		} else {
			n.Text += ", and has been resumed since"
		}
	case ledger.EventResume:
		n.Text = spec + " resumed"
	case ledger.EventReady:
		n.Text = spec + " is ready for a person to merge"
		if n.PR != "" {
			n.Text += ": " + n.PR
		}
	case ledger.EventDone:
		n.Text = spec + " is done"
		if n.PR != "" {
			n.Text += ": " + n.PR + " merged"
		}
	}
	return n
}

// post delivers one notification; only a 2xx answer counts as accepted.
// Errors never carry the URL: a Slack webhook URL is a credential.
func (r *Reconciler) post(ctx context.Context, o NotifyOptions, t specs.NotifyTarget, n Notification) error {
	u := t.URL
	if t.URLEnv != "" {
		if u = o.Env(t.URLEnv); u == "" {
			return fmt.Errorf("$%s is not set", t.URLEnv)
		}
	}
	var body []byte
	var err error
	if t.Format == specs.NotifySlack {
		body, err = json.Marshal(map[string]string{"text": n.Text})
	} else {
		body, err = json.Marshal(n)
	}
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return errors.New("the target's URL is not valid")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "gallivant")
	req.Header.Set("Idempotency-Key", n.ID)
	req.Header.Set("X-Gallivant-Event", n.Event)
	resp, err := o.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			if ue.Timeout() {
				return errors.New("timed out")
			}
			return errors.New(ue.Err.Error())
		}
		return errors.New("request failed")
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("answered %s", resp.Status)
	}
	return nil
}

// oweNotifications writes into n the notifications the transition from
// old to n owes the configured targets (ledger.OweNotifications), so that
// they are owed in the very commit that records the transition: a crash
// after it leaves them owed, one before it leaves neither.
func (p *passState) oweNotifications(old, n *ledger.Ledger) {
	if len(p.cfg.Notify) == 0 && (old == nil || len(old.Delivery.Notify) == 0) {
		return
	}
	wants := func(ev ledger.NotifyEvent) []string { return p.cfg.NotifyWants(string(ev)) }
	for _, o := range ledger.OweNotifications(old, n, wants, p.clock()) {
		p.Log.Info("notification owed", "spec", n.Spec, "target", o.Target, "event", string(o.Event))
	}
}
