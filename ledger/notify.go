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
	if l.Delivery == nil {
		return nil
	}
	return append([]Owed(nil), l.Delivery.Notify...)
}

// SetOwedNotifications replaces the `notify:` tokens; none deletes the key.
func (l *Ledger) SetOwedNotifications(os []Owed) {
	if l.Delivery == nil {
		if len(os) == 0 {
			return
		}
		l.Delivery = NewDelivery()
	}
	l.Delivery.Notify = append([]Owed(nil), os...)
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
	if len(owed) > 0 || len(n.Delivery.Notify) != 0 {
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

// NotifyFate is what one delivery attempt of an owed notification came to.
type NotifyFate int

// Notification fates.
const (
	// NotifyDelivered: the target accepted it; it is owed no more.
	NotifyDelivered NotifyFate = iota
	// NotifyRetried: it failed and is tried again next pass, one more try
	// counted.
	NotifyRetried
	// NotifyGaveUp: it failed its last try, or its target is gone; it is
	// dropped and `notify-failed:` names it.
	NotifyGaveUp
)

// NotifyAttempt is one delivery attempt of an owed notification.
type NotifyAttempt struct {
	Owed Owed
	Fate NotifyFate
	// Err is why a failed attempt failed, as the target said (untrusted:
	// the ledger keeps it cleaned to one bounded line).
	Err string
	// MaxTries is how many tries a notification gets, as the commit's
	// sentence counts a retried one.
	MaxTries int
}

// NotifyFateOf decides what a delivery attempt comes to: delivered when
// it did not fail; given up when its target is gone or it failed its last
// of maxTries tries; retried otherwise.
func NotifyFateOf(o Owed, failed, targetKnown bool, maxTries int) NotifyFate {
	switch {
	case !failed:
		return NotifyDelivered
	case o.Tries+1 >= maxTries || !targetKnown:
		return NotifyGaveUp
	}
	return NotifyRetried
}

// Notified records a notification round (`loop: notify`): every owed
// notification attempts names is delivered, retried (its try counted) or
// given up (named in `notify-failed:`); one attempts does not name stays
// owed as it was.
func Notified(l *Ledger, attempts []NotifyAttempt) (*Ledger, Commit) {
	n := l.Clone()
	var keep []Owed
	var said []string
	for _, o := range l.OwedNotifications() {
		i := slices.IndexFunc(attempts, func(a NotifyAttempt) bool { return a.Owed == o })
		if i < 0 {
			keep = append(keep, o)
			continue
		}
		a := attempts[i]
		switch a.Fate {
		case NotifyDelivered:
			said = append(said, fmt.Sprintf("delivered the %s notification to %s", o.Event, o.Target))
		case NotifyGaveUp:
			n.delivery().NotifyFailed = NotifyFailure{Key: o.key(), Err: fmt.Sprintf("%s after %d tries", NotifyLine(a.Err), o.Tries+1)}
			said = append(said, fmt.Sprintf("gave up the %s notification to %s: %s", o.Event, o.Target, a.Err))
		default:
			o.Tries++
			keep = append(keep, o)
			said = append(said, fmt.Sprintf("the %s notification to %s failed (try %d of %d): %s", o.Event, o.Target, o.Tries, a.MaxTries, a.Err))
		}
	}
	n.SetOwedNotifications(keep)
	return n, Commit{Subject: Subject{Kind: KindNotify}.String(), Sentence: notifySentence(said)}
}

// key is the token without its try count: `<target>/<event>/<stamp>`.
func (o Owed) key() string {
	return o.Target + "/" + string(o.Event) + "/" + o.At.UTC().Format(notifyStamp)
}

// GaveUp reads `notify-failed:` back: the notification it names (its
// target, event and instant) and the cleaned error, or false when the value
// is not `<target>/<event>/<stamp> | <error> after <n> tries`.
func GaveUp(f NotifyFailure) (o Owed, err string, ok bool) {
	key, rest := f.Key, f.Err
	if f.IsZero() {
		return Owed{}, "", false
	}
	i := strings.LastIndex(rest, " after ")
	if i < 0 || !strings.HasSuffix(rest, " tries") {
		return Owed{}, "", false
	}
	tries, perr := strconv.Atoi(strings.TrimSuffix(rest[i+len(" after "):], " tries"))
	if perr != nil || tries < 1 {
		return Owed{}, "", false
	}
	got, perr := ParseOwed(key + "/" + strconv.Itoa(tries-1))
	if perr != nil {
		return Owed{}, "", false
	}
	return got, rest[:i], true
}

// notifySentence joins what a notify commit did into its one sentence.
func notifySentence(parts []string) string {
	if len(parts) == 0 {
		return "Nothing was owed."
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// NotifyLine keeps an error fit for one line of the delivery section: a
// receiver's status text is untrusted, so no pipe, no control character,
// at most 200 characters.
func NotifyLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '|':
			return '/'
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = strings.TrimRight(string(r[:200]), " ")
	}
	return s
}
