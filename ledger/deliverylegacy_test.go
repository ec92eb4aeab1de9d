package ledger

// The map-based `## Delivery` of before the typed state, kept only as the
// baseline of BenchmarkDeliveryParseFormat: every line was validated as a
// string and stored in a map, and Lines walked the canonical key order.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/specs"
)

var legacyKeys = []string{
	KeySpecCommit, KeyContract, KeyBranch, KeyChain, KeyPhase, KeyDispatchedAt, KeyReruns, KeyMisses, KeyEmptyReturns, KeyModel,
	KeyVerified, KeyVerifyRepair, KeyPR, KeyRound, KeyHead, KeyHeadAt, KeyChecksHead, KeySince, KeyRoundSince, KeyIgnored, KeyReceipt, KeyReviewerAsked, KeyNudged,
	KeyOwed, KeyRetry, KeyStop, KeySpent, KeyBudgetGranted,
	KeyNotify, KeyNotifyFailed,
}

type legacyDelivery map[string]string

func legacyParse(lines []string) (legacyDelivery, int) {
	d, bad := legacyDelivery{}, 0
	for _, ln := range lines {
		k, v, ok := strings.Cut(ln, ": ")
		if !ok || d[k] != "" || legacyValidate(k, v) != "" {
			bad++
			continue
		}
		d[k] = v
	}
	return d, bad
}

func (d legacyDelivery) lines() []string {
	var out []string
	for _, k := range legacyKeys {
		if v, ok := d[k]; ok {
			out = append(out, k+": "+v)
		}
	}
	var members []string
	seen := map[string]bool{}
	for k := range d {
		if _, m, ok := strings.Cut(k, " "); ok && !seen[m] {
			seen[m] = true
			members = append(members, m)
		}
	}
	sort.Strings(members)
	for _, m := range members {
		for _, k := range legacyKeys {
			if v, ok := d[k+" "+m]; ok {
				out = append(out, k+" "+m+": "+v)
			}
		}
	}
	return out
}

// legacyValidate checks one key's value and returns what is wrong, or "".
func legacyValidate(key, v string) string {
	isTime := func(s string) bool { _, err := time.Parse(time.RFC3339, s); return err == nil }
	count := func() string {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || strconv.Itoa(n) != v {
			return "must be a whole number of at least 0"
		}
		return ""
	}
	switch key {
	case KeyVerified:
		f := strings.Fields(v)
		if len(f) < 2 || !sha40RE.MatchString(f[0]) || (f[1] != "passed" && f[1] != "failed") {
			return "must be <sha> passed, or <sha> failed | <command>"
		}
	case KeySpecCommit, KeyHead, KeyChecksHead, KeyNudged, KeyVerifyRepair:
		if !sha40RE.MatchString(v) {
			return "must be a full 40-character lowercase commit SHA"
		}
	case KeyContract, KeyReceipt:
		if !legacyHex12RE.MatchString(v) {
			return "must be a 12-character lowercase hex fingerprint"
		}
	case KeyBranch, KeyModel:
		if v == "" || strings.ContainsAny(v, " \t") {
			return "must be one word"
		}
	case KeyChain:
		if _, _, _, err := ParseChainKey(v); err != nil {
			return err.Error()
		}
	case KeyPhase:
		switch Phase(v) {
		case PhaseImplement, PhaseVerify, PhaseReview, PhaseReady, PhaseDone:
		default:
			return "must be implement, verify, review, ready or done"
		}
	case KeyPR:
		if !prRE.MatchString(v) || !specs.ValidRepo(v[:strings.IndexByte(v, '#')]) {
			return "must be owner/name#number"
		}
	case KeyRound, KeyMisses, KeyEmptyReturns, KeyReruns:
		return count()
	case KeyDispatchedAt, KeyReviewerAsked, KeyHeadAt:
		if !isTime(v) {
			return "must be an RFC 3339 time such as 2026-11-29T10:00:00Z"
		}
	case KeySince, KeyRoundSince:
		f := strings.Fields(v)
		if len(f) == 0 || !isTime(f[0]) {
			return "must be an RFC 3339 time, then the ids already dispatched at it"
		}
		for _, id := range f[1:] {
			if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
				return fmt.Sprintf("id %q is not a positive number", id)
			}
		}
	case KeyIgnored:
		if strings.TrimSpace(v) == "" {
			return "must say what was ignored"
		}
	case KeyOwed:
		if !writeRE.MatchString(v) {
			return "must name a write, like round-comment 3"
		}
	case KeyRetry:
		w, _, ok := strings.Cut(v, " | ")
		f := strings.Fields(w)
		if !ok || len(f) != 2 {
			return "must be <write> <count> | <last error>"
		}
		if n, err := strconv.Atoi(f[1]); err != nil || n < 1 {
			return "count must be at least 1"
		}
	case KeySpent, KeyBudgetGranted:
		return legacyAmount(v)
	case KeyStop:
		r, _, _ := strings.Cut(v, " | ")
		if !StopReason(r).Known() {
			return fmt.Sprintf("reason %q is not a stop reason", r)
		}
	case KeyNotify:
		for _, tok := range strings.Fields(v) {
			if _, err := ParseOwed(tok); err != nil {
				return err.Error()
			}
		}
	case KeyNotifyFailed:
		id, why, ok := strings.Cut(v, " | ")
		if !ok || strings.TrimSpace(why) == "" || !owedRE.MatchString(id+"/0") {
			return "must be <target>/<event>/<yyyymmddThhmmssZ> | <last error>"
		}
	default:
		if strings.Contains(key, " ") {
			return legacyLegKey(key, v)
		}
		return "unknown key"
	}
	return ""
}

func legacyLegKey(k, v string) string {
	key, member, _ := strings.Cut(k, " ")
	if !IsLegKey(key) {
		return "unknown key"
	}
	if !memberNameRE.MatchString(member) {
		return "names no member"
	}
	return legacyValidate(key, v)
}

func legacyAmount(v string) string {
	if _, err := specs.ParseAmount(v); err != nil {
		return err.Error()
	}
	return ""
}

var legacyHex12RE = regexp.MustCompile(`^[0-9a-f]{12}$`)
