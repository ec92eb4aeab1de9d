package githubapi

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

// protectionAsks counts the stand-in's answers to branch-protection reads
// since its log was reset: all, and charged.
func protectionAsks(s *ghstandin.Server) (asked, charged int) {
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/protection") {
			asked++
			if r.Counted {
				charged++
			}
		}
	}
	return asked, charged
}

// An unprotected base answers its protection read 404, which no ETag
// makes free. Over an hour of passes at the daemon's default schedule (5
// minutes, one process) and at one-shot CI's (10 minutes, a new process
// per pass with the kept state file), it is asked once; a new key (the
// reconciler's: the base's head and its configuration) asks again, and so
// does an answer older than protectionHiddenTTL.
func TestHiddenProtectionAskedOncePerKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		every      time.Duration
		newProcess bool
	}{
		{"daemon every 5m", 5 * time.Minute, false},
		{"ci every 10m", 10 * time.Minute, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clock := testserver.NewClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
			s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, "acme/api")
			dir := t.TempDir()
			open := func() *Client {
				g, err := New(Options{APIURL: s.APIURL(), Token: s.Token(ghstandin.DefaultLogin), StateDir: dir, Sleep: (&fakeSleep{}).sleep,
					Logger: testLogger(nil), Now: clock.Now})
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			g := open()
			type pass struct{ asked, charged, requests, notModified int }
			run := func(key string) pass {
				t.Helper()
				if tc.newProcess {
					g = open()
				}
				s.ResetLog()
				before := g.Requests()
				if _, err := g.RequiredChecks(t.Context(), "acme/api", "main", key); err != nil {
					t.Fatal(err)
				}
				if err := g.SaveState(); err != nil {
					t.Fatal(err)
				}
				st := g.Requests().Sub(before)
				asked, charged := protectionAsks(s)
				return pass{asked, charged, st.Requests, st.NotModified}
			}
			var got []pass
			got = append(got, run("head1 cfg1"))
			for at := tc.every; at <= time.Hour; at += tc.every {
				clock.Advance(tc.every)
				got = append(got, run("head1 cfg1"))
			}
			got = append(got, run("head1 cfg2"), run("head1 cfg2"), run("head2 cfg2"), run("head2 cfg2"))
			clock.Advance(protectionHiddenTTL)
			got = append(got, run("head2 cfg2"))

			// The first pass reads the rules and the protection, both
			// charged; every later one reads the rules conditionally (304).
			first := pass{asked: 1, charged: 1, requests: 2}
			idle := pass{requests: 1, notModified: 1}
			asks := pass{asked: 1, charged: 1, requests: 2, notModified: 1}
			want := []pass{first}
			for at := tc.every; at <= time.Hour; at += tc.every {
				want = append(want, idle)
			}
			want = append(want, asks, idle, asks, idle, asks)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(pass{})); diff != "" {
				t.Errorf("per pass (-want +got):\n%s", diff)
			}
		})
	}
}

// A protection that can be read is not remembered as hidden: it is read
// (conditionally) every time, and one that becomes readable under the
// same key is noticed once the key changes.
func TestReadableProtectionNotHidden(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	if req, err := g.RequiredChecks(ctx, "acme/api", "main", "k1"); err != nil || len(req.Checks) != 0 {
		t.Fatalf("unprotected: %+v %v", req, err)
	}
	s.Protect("acme/api", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
	if req, err := g.RequiredChecks(ctx, "acme/api", "main", "k1"); err != nil || len(req.Checks) != 0 {
		t.Fatalf("protected under the same key, still remembered hidden: %+v %v", req, err)
	}
	for i := range 2 {
		req, err := g.RequiredChecks(ctx, "acme/api", "main", "k2")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(Required{Checks: []string{"ci"}, Protection: []string{"ci"}}, req); diff != "" {
			t.Errorf("read %d under a new key (-want +got):\n%s", i, diff)
		}
	}
	g.mu.Lock()
	_, hidden := g.protectionHidden[hiddenKey("acme/api", "main")]
	g.mu.Unlock()
	if hidden {
		t.Error("a protection read successfully is still remembered as hidden")
	}
}
