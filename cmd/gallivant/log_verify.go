package main

import (
	"context"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/store"
)

// logVerdicts proves every first-parent commit that changed the ledger at
// lp: the violations of each, by SHA (an empty list is a proven commit).
// A commit missing from the map is off the first-parent line and unproven.
func logVerdicts(ctx context.Context, st *store.Store, lp string) (map[string][]string, error) {
	out := map[string][]string{}
	v := audit.NewVerifier()
	err := st.History(ctx, "", map[string]bool{lp: true}, func(c audit.Commit) error {
		rs := v.Add(c)
		if len(c.Ledgers) == 0 {
			return nil
		}
		msgs := []string{}
		for _, r := range rs {
			for _, x := range r.Violations {
				msgs = append(msgs, x.Section+": "+x.Message)
			}
		}
		out[c.SHA] = msgs
		return nil
	})
	// A hand edit a later loop: accept took on is reported, not failing.
	for _, a := range v.Report().Accepted {
		for i, m := range out[a.Commit] {
			if !strings.HasPrefix(m, acceptedLater) {
				out[a.Commit][i] = acceptedLater + m
			}
		}
	}
	return out, err
}

// acceptedLater prefixes the violations of a hand edit that a later
// loop: accept of the same ledger made legal.
const acceptedLater = "accepted later: "

func markVerified(j *logJSON, verdicts map[string][]string) {
	vs, ok := verdicts[j.Commit]
	if !ok {
		vs = []string{"not on the control branch's first-parent history, so not proven"}
	}
	proven := len(vs) == 0
	j.Verified, j.Violations = &proven, vs
}

// verifiedMark is the text suffix --verify adds to a line.
func verifiedMark(j logJSON) string {
	switch {
	case j.Verified == nil:
		return ""
	case *j.Verified:
		return "  verified"
	}
	return "  NOT VERIFIED: " + j.Violations[0]
}

// logExit fails the command when --verify found a line not proven (an
// accepted hand edit is not a failure).
func logExit(out []logJSON) error {
	for _, j := range out {
		if j.Verified == nil || *j.Verified {
			continue
		}
		for _, m := range j.Violations {
			if !strings.HasPrefix(m, acceptedLater) {
				return silent(exitFindings)
			}
		}
	}
	return nil
}
