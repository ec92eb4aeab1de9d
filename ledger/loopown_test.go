package ledger

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestResumed(t *testing.T) {
	t.Parallel()
	l := withDelivery(KeyPhase, "implement", KeyStop, "spec-gone | plans/x.md no longer exists at abc1234", KeyHead, shaA)
	n, c, err := Resumed(l, "the spec exists again")
	if err != nil {
		t.Fatalf("Resumed: %v", err)
	}
	want := withDelivery(KeyPhase, "implement", KeyHead, shaA)
	if diff := cmp.Diff(Format(want), Format(n)); diff != "" {
		t.Errorf("Resumed ledger (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Commit{Subject: "loop: resume", Sentence: "Resumed: the spec exists again."}, c); diff != "" {
		t.Errorf("Resumed commit (-want +got):\n%s", diff)
	}
	if _, _, stopped := l.Stop(); !stopped {
		t.Error("Resumed changed its input")
	}
	if _, _, err := Resumed(withDelivery(KeyPhase, "implement"), "x"); !errors.Is(err, ErrNotStopped) {
		t.Errorf("Resumed(not stopped) error = %v; want ErrNotStopped", err)
	}
}

func TestNotifyFateOf(t *testing.T) {
	t.Parallel()
	o := Owed{Target: "ops", Event: EventStop, Tries: 2}
	tests := []struct {
		name          string
		failed, known bool
		max           int
		want          NotifyFate
	}{
		{"delivered", false, true, 5, NotifyDelivered},
		{"failed with tries left", true, true, 5, NotifyRetried},
		{"failed its last try", true, true, 3, NotifyGaveUp},
		{"target gone", true, false, 5, NotifyGaveUp},
	}
	for _, tt := range tests {
		if got := NotifyFateOf(o, tt.failed, tt.known, tt.max); got != tt.want {
			t.Errorf("%s: NotifyFateOf(tries 2, failed %v, known %v, max %d) = %d; want %d", tt.name, tt.failed, tt.known, tt.max, got, tt.want)
		}
	}
}

func TestNotified(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ops := Owed{Target: "ops", Event: EventStop, At: at}
	slack := Owed{Target: "slack", Event: EventStop, At: at, Tries: 4}
	pager := Owed{Target: "pager", Event: EventDone, At: at, Tries: 1}
	l := withDelivery(KeyPhase, "implement")
	l.SetOwedNotifications([]Owed{ops, slack, pager})
	n, c := Notified(l, []NotifyAttempt{
		{Owed: ops, Fate: NotifyDelivered, MaxTries: 5},
		{Owed: slack, Fate: NotifyGaveUp, Err: "502 | bad\ngateway", MaxTries: 5},
		{Owed: pager, Fate: NotifyRetried, Err: "timeout", MaxTries: 5},
	})
	if got, want := NotifyText(n.Delivery), "pager/done/20261129T120000Z/2"; got != want {
		t.Errorf("notify: %q; want %q", got, want)
	}
	if got, want := n.Delivery.NotifyFailed.String(), "slack/stop/20261129T120000Z | 502 / bad gateway after 5 tries"; got != want {
		t.Errorf("notify-failed: %q; want %q", got, want)
	}
	want := Commit{Subject: "loop: notify", Sentence: "Delivered the stop notification to ops; gave up the stop notification to slack: 502 | bad\ngateway; the done notification to pager failed (try 2 of 5): timeout."}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Notified commit (-want +got):\n%s", diff)
	}
	if got := len(l.OwedNotifications()); got != 3 {
		t.Errorf("Notified changed its input: %d owed", got)
	}

	// What notify-failed: records reads back as the notification given up.
	o, msg, ok := GaveUp(n.Delivery.NotifyFailed)
	if !ok || o != slack || msg != "502 / bad gateway" {
		t.Errorf("GaveUp = %+v, %q, %v; want %+v, %q, true", o, msg, ok, slack, "502 / bad gateway")
	}
	for _, v := range []string{"", "slack/stop/20261129T120000Z", "slack/stop/x | e after 1 tries", "slack/stop/20261129T120000Z | e after 0 tries", "slack/stop/20261129T120000Z | e"} {
		var f NotifyFailure
		f.Key, f.Err, _ = strings.Cut(v, " | ")
		if _, _, ok := GaveUp(f); ok {
			t.Errorf("GaveUp(%q) ok; want false", v)
		}
	}

	// An owed notification no attempt names stays as it was.
	n, _ = Notified(l, nil)
	if got, want := NotifyText(n.Delivery), NotifyText(l.Delivery); got != want {
		t.Errorf("Notified(no attempts) notify: %q; want %q", got, want)
	}
}

func TestNotifyLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 199) + " b"
	for in, want := range map[string]string{
		"a|b\x00c":  "a/b c",
		"  x \n y ": "x y",
		long:        strings.Repeat("a", 199),
	} {
		if got := NotifyLine(in); got != want {
			t.Errorf("NotifyLine(%q) = %q; want %q", in, got, want)
		}
		if got := NotifyLine(NotifyLine(in)); got != NotifyLine(in) {
			t.Errorf("NotifyLine is not idempotent on %q: %q", in, got)
		}
	}
}

// A chained spec's seed records its place in the chain in the ledger and
// in a trailer, in the one transition audit replays.
func TestSeedChain(t *testing.T) {
	t.Parallel()
	in := SeedInput{Spec: specOf(t, acList(2, nil)), SpecCommit: shaC, Bases: map[string]string{"home": shaA}, Allowance: 4}
	plain, pc := Seed(in)
	in.Chain = ChainRef{Name: "launch", K: 2, N: 3}
	l, c := Seed(in)
	if got := l.Delivery.Chain.String(); got != "launch 2/3" {
		t.Errorf("chain: %q; want %q", got, "launch 2/3")
	}
	if diff := cmp.Diff(append(pc.Trailers, Trailer{Key: TrailerChain, Value: "launch 2/3"}), c.Trailers); diff != "" {
		t.Errorf("trailers (-want +got):\n%s", diff)
	}
	if !plain.Delivery.Chain.IsZero() || len(pc.Trailers) != 0 {
		t.Errorf("an unchained seed wrote chain %q, trailers %v", plain.Delivery.Chain.String(), pc.Trailers)
	}
	l.Delivery.Chain = ChainRef{}
	if diff := cmp.Diff(Format(plain), Format(l)); diff != "" {
		t.Errorf("the chain changed more than its key (-unchained +chained):\n%s", diff)
	}
}
