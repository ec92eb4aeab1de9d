package ledger

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// withDelivery returns a ledger whose delivery section holds kv pairs.
func withDelivery(kv ...string) *Ledger {
	l := &Ledger{Delivery: NewDelivery()}
	for i := 0; i < len(kv); i += 2 {
		if err := parseDeliveryLine(l.Delivery, kv[i], kv[i+1]); err != nil {
			panic(err)
		}
	}
	return l
}

func TestNotifyEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		old, n *Ledger
		want   []NotifyEvent
	}{
		{"a stop", withDelivery(KeyPhase, "implement"), withDelivery(KeyPhase, "implement", KeyStop, "allowance | row 2"), []NotifyEvent{EventStop}},
		{"a stuck stop", withDelivery(KeyPhase, "review"), withDelivery(KeyPhase, "review", KeyStop, "stuck | label"), []NotifyEvent{EventStuck}},
		{"a stop for another reason", withDelivery(KeyStop, "checks-red | x"), withDelivery(KeyStop, "closed | y"), []NotifyEvent{EventStop}},
		{"the same stop again", withDelivery(KeyStop, "checks-red | x"), withDelivery(KeyStop, "checks-red | z"), nil},
		{"a resume", withDelivery(KeyStop, "allowance | row 2"), withDelivery(KeyPhase, "implement"), []NotifyEvent{EventResume}},
		{"ready", withDelivery(KeyPhase, "review"), withDelivery(KeyPhase, "ready"), []NotifyEvent{EventReady}},
		{"done", withDelivery(KeyPhase, "ready"), withDelivery(KeyPhase, "done"), []NotifyEvent{EventDone}},
		{"still ready", withDelivery(KeyPhase, "ready"), withDelivery(KeyPhase, "ready", KeyHead, shaA), nil},
		{"a resume into ready", withDelivery(KeyPhase, "review", KeyStop, "stuck | x"), withDelivery(KeyPhase, "ready"), []NotifyEvent{EventResume, EventReady}},
		{"a seed", nil, withDelivery(KeyPhase, "implement"), nil},
		{"a dispatch", withDelivery(KeyPhase, "implement"), withDelivery(KeyPhase, "implement", KeyDispatchedAt, "2026-11-29T10:00:00Z"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, NotifyEvents(tt.old, tt.n)); diff != "" {
				t.Errorf("NotifyEvents mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOweNotifications(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 12, 0, 0, 500, time.UTC)
	wants := func(ev NotifyEvent) []string {
		switch ev {
		case EventStop, EventStuck:
			return []string{"ops", "slack"}
		case EventDone:
			return []string{"slack"}
		}
		return nil
	}
	tests := []struct {
		name   string
		old, n *Ledger
		want   string
	}{
		{"a stop owes both targets", withDelivery(KeyPhase, "implement"), withDelivery(KeyStop, "allowance | r"),
			"ops/stop/20261129T120000Z/0 slack/stop/20261129T120000Z/0"},
		{"a resume is wanted by nobody", withDelivery(KeyStop, "allowance | r"), withDelivery(KeyPhase, "implement"), ""},
		{"what the old ledger owed survives a rebuilt delivery section",
			withDelivery(KeyStop, "allowance | r", KeyNotify, "ops/stop/20261128T000000Z/3"), withDelivery(KeyPhase, "ready"),
			"ops/stop/20261128T000000Z/3"},
		{"a try count the transition kept is not doubled",
			withDelivery(KeyNotify, "ops/stop/20261128T000000Z/3"), withDelivery(KeyNotify, "ops/stop/20261128T000000Z/3", KeyPhase, "done"),
			"ops/stop/20261128T000000Z/3 slack/done/20261129T120000Z/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			OweNotifications(tt.old, tt.n, wants, at)
			if diff := cmp.Diff(tt.want, NotifyText(tt.n.Delivery)); diff != "" {
				t.Errorf("notify: mismatch (-want +got):\n%s", diff)
			}
			if tt.want != "" && validateDelivery(KeyNotify, tt.want) != "" {
				t.Errorf("the owed line does not validate: %s", validateDelivery(KeyNotify, tt.want))
			}
		})
	}
}

// A token parses, and what parses formats back to itself.
func FuzzParseOwed(f *testing.F) {
	for _, s := range []string{"ops/stop/20261129T120000Z/0", "a-b/done/20000101T000000Z/12", "x/ready/20261329T120000Z/0", "ops/stop/20261129T120000Z/01", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		o, err := ParseOwed(tok)
		if err != nil {
			return
		}
		if o.String() != tok {
			t.Fatalf("ParseOwed(%q).String() = %q", tok, o.String())
		}
	})
}
