package ledger

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NotifyEvent is what a notification is about: a delivery transition a
// person may want to hear of (docs/operations.md, "Notifications").
type NotifyEvent string

// Notification events. A stuck stop is EventStuck; every other stop is
// EventStop.
const (
	EventStop   NotifyEvent = "stop"
	EventStuck  NotifyEvent = "stuck"
	EventResume NotifyEvent = "resume"
	EventReady  NotifyEvent = "ready"
	EventDone   NotifyEvent = "done"
)

// Owed is one notification the ledger owes: to Target, about Event, which
// happened At (second precision, UTC); Tries counts failed deliveries.
// Target, Event and At identify it: its idempotency key never changes
// between tries.
type Owed struct {
	Target string
	Event  NotifyEvent
	At     time.Time
	Tries  int
}

// notifyStamp is At as a token spells it: no colons, one word.
const notifyStamp = "20060102T150405Z"

var owedRE = regexp.MustCompile(`^([a-z0-9][a-z0-9-]{0,39})/(stop|stuck|resume|ready|done)/([0-9]{8}T[0-9]{6}Z)/(0|[1-9][0-9]{0,2})$`)

// String renders the token `<target>/<event>/<stamp>/<tries>`.
func (o Owed) String() string {
	return o.Target + "/" + string(o.Event) + "/" + o.At.UTC().Format(notifyStamp) + "/" + strconv.Itoa(o.Tries)
}

// ID is the notification's identity, the same at every try: a receiver
// that saw it already may drop it (the Idempotency-Key of a delivery).
func (o Owed) ID(ledgerPath string) string {
	return ledgerPath + "/" + o.Target + "/" + string(o.Event) + "/" + o.At.UTC().Format(notifyStamp)
}

// ParseOwed reads one `notify:` token.
func ParseOwed(tok string) (Owed, error) {
	m := owedRE.FindStringSubmatch(tok)
	if m == nil {
		return Owed{}, fmt.Errorf("%q is not <target>/<event>/<yyyymmddThhmmssZ>/<tries>", tok)
	}
	at, err := time.Parse(notifyStamp, m[3])
	if err != nil {
		return Owed{}, fmt.Errorf("%q: %v", tok, err)
	}
	n, _ := strconv.Atoi(m[4])
	return Owed{Target: m[1], Event: NotifyEvent(m[2]), At: at, Tries: n}, nil
}

// OwedNotifications returns the `notify:` tokens of the delivery section,
// in order; malformed tokens (which check reports) are skipped.
func (l *Ledger) OwedNotifications() []Owed {
	var out []Owed
	for _, tok := range strings.Fields(l.Delivery.Get(KeyNotify)) {
		if o, err := ParseOwed(tok); err == nil {
			out = append(out, o)
		}
	}
	return out
}

// SetOwedNotifications replaces the `notify:` tokens; none deletes the key.
func (l *Ledger) SetOwedNotifications(os []Owed) {
	if l.Delivery == nil {
		if len(os) == 0 {
			return
		}
		l.Delivery = NewDelivery()
	}
	toks := make([]string, len(os))
	for i, o := range os {
		toks[i] = o.String()
	}
	l.Delivery.Set(KeyNotify, strings.Join(toks, " "))
}

// NotifyEvents says which events a transition from old to n causes: a
// stop recorded (stuck or another reason), a stop cleared while the entry
// goes on, the phase reaching ready or done. old is nil for a seed.
func NotifyEvents(old, n *Ledger) []NotifyEvent {
	var out []NotifyEvent
	var oldReason StopReason
	oldStopped := false
	var oldPhase Phase
	if old != nil {
		oldReason, _, oldStopped = old.Stop()
		oldPhase = old.Phase()
	}
	reason, _, stopped := n.Stop()
	switch {
	case stopped && (!oldStopped || reason != oldReason):
		if reason == StopStuck {
			out = append(out, EventStuck)
		} else {
			out = append(out, EventStop)
		}
	case !stopped && oldStopped:
		out = append(out, EventResume)
	}
	if p := n.Phase(); p != oldPhase && old != nil {
		switch p {
		case PhaseReady:
			out = append(out, EventReady)
		case PhaseDone:
			out = append(out, EventDone)
		}
	}
	return out
}

// OweNotifications records, in n, the notifications the transition from
// old to n owes: one per event it causes and target that wants it
// (wants(event) lists them), stamped at. Notifications old still owed are
// kept even if the transition rebuilt the delivery section, so that no
// transition can drop one. It returns what it added.
func OweNotifications(old, n *Ledger, wants func(NotifyEvent) []string, at time.Time) []Owed {
	owed := n.OwedNotifications()
	if old != nil {
		for _, o := range old.OwedNotifications() {
			if !slices.Contains(owed, o) && !sameNotification(n, o) {
				owed = append(owed, o)
			}
		}
	}
	var added []Owed
	for _, ev := range NotifyEvents(old, n) {
		for _, target := range wants(ev) {
			o := Owed{Target: target, Event: ev, At: at.UTC().Truncate(time.Second)}
			owed = append(owed, o)
			added = append(added, o)
		}
	}
	if len(owed) > 0 || n.Delivery.Get(KeyNotify) != "" {
		n.SetOwedNotifications(owed)
	}
	return added
}

// sameNotification reports whether n owes o already, perhaps with another
// try count.
func sameNotification(n *Ledger, o Owed) bool {
	for _, p := range n.OwedNotifications() {
		if p.Target == o.Target && p.Event == o.Event && p.At.Equal(o.At) {
			return true
		}
	}
	return false
}
