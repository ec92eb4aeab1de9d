package main

import (
	"strconv"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGHRequests reads the stand-in's own request log, so that a script can
// assert what a gallivant process cost without trusting gallivant's count:
// `ghrequests reset` empties the log; `ghrequests ratelimited N` and
// `ghrequests total N` fail unless exactly N requests since the reset were
// charged against the rate limit, or made at all.
func cmdGHRequests(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := servers.Load(ts)
	if neg || len(args) == 0 || !ok {
		ts.Fatalf("usage: ghrequests reset | ratelimited N | total N (after github)")
	}
	s := v.(*ghstandin.Server)
	if args[0] == "reset" && len(args) == 1 {
		s.ResetLog()
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: ghrequests reset | ratelimited N | total N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("ghrequests: %v", err)
	}
	c := s.Counts()
	got := map[string]int{"ratelimited": c.Counted, "total": c.Total}
	n, known := got[args[0]]
	if !known {
		ts.Fatalf("ghrequests: unknown count %q", args[0])
	}
	if n != want {
		for _, r := range s.Requests() {
			ts.Logf("%s %s?%s -> %d (charged %v)", r.Method, r.Path, r.Query, r.Status, r.Counted)
		}
		ts.Fatalf("ghrequests: %d %s requests, want %d", n, args[0], want)
	}
}
