package reconcile

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A person pushes to the control branch while Notify delivers: Notify's
// push is rejected, and it records the deliveries again on the new head,
// as a pass re-plans, instead of failing (which would deliver them again
// next time) or overwriting the person's commit. Each target hears once.
func TestNotifyRacingAnotherWriterRecordsOnTheNewHead(t *testing.T) {
	t.Parallel()
	rc, ts := newReceiver(t)
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""), "gallivant.yaml": notifyConfig(ts.URL)})
	r.pass()
	if len(r.ledger(ledgerPath).OwedNotifications()) != 2 {
		t.Fatalf("the ready entry owes %v", r.ledger(ledgerPath).OwedNotifications())
	}
	env := func(k string) string { return map[string]string{"CHAT_URL": ts.URL + "/chat"}[k] }
	var raced []string
	res, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			// Another writer moves the branch after the first try, before
			// its record is loaded, and again between the record's
			// commit and its push.
			if (point == "notify:delivered" || point == "push:before") && !slices.Contains(raced, point) {
				raced = append(raced, point)
				r.edit("notes-"+point[:4]+".txt", func(string) string { return "a person's note\n" })
			}
			return nil
		}
	}).Notify(context.Background(), NotifyOptions{Env: env})
	if err != nil {
		t.Fatalf("notify racing a person's push: %v", err)
	}
	if len(raced) != 2 || len(res) != 2 {
		t.Fatalf("raced at %v, %d results: %+v", raced, len(res), res)
	}
	if got := rc.deliveries(); len(got["/hook"]) != 1 || len(got["/chat"]) != 1 {
		t.Errorf("deliveries %v; want one to each target", got)
	}
	if owed := r.ledger(ledgerPath).OwedNotifications(); len(owed) != 0 {
		t.Errorf("the ledger still owes %v", owed)
	}
	s := r.subjects()
	i := slices.Index(s, "edit notes-noti.txt")
	if diff := cmp.Diff([]string{"edit notes-noti.txt", "edit notes-push.txt", "loop: notify"}, s[max(i, 0):]); i < 0 || diff != "" {
		t.Errorf("the control branch ends (-want +got):\n%s\nall: %s", diff, strings.Join(s, " | "))
	}
	r.mu.Lock()
	log := r.log.String()
	r.mu.Unlock()
	if !strings.Contains(log, "recording the notifications again") {
		t.Errorf("the rejected push was not re-planned:\n%s", log)
	}
}
