package ledger

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/specs"
)

// deliveryField is one `## Delivery` key: how its typed field is read from
// and written to its line. Entry fields act on the Delivery; pull fields
// act on a PullState (the entry's own, or a member's).
type deliveryField struct {
	key     string
	pull    bool
	example string
	// zero is the spelling that reads as no line (a count's 0), which
	// Format then leaves out; "" when every value that reads is written.
	zero   string
	format func(d *Delivery, p *PullState) string
	parse  func(d *Delivery, p *PullState, v string) error
}

// deliveryFields are the keys in canonical order, the order Format writes.
var deliveryFields = []deliveryField{
	entryText(KeySpecCommit, shaValue, "2f1c0a3e9b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d", func(d *Delivery) *string { return &d.SpecCommit }),
	entryText(KeyContract, hexValue, "3fa85f6457c2", func(d *Delivery) *string { return &d.Contract }),
	entryText(KeyBranch, wordValue, "gallivant/webhooks", func(d *Delivery) *string { return &d.Branch }),
	{key: KeyChain, example: "launch 2/3",
		format: func(d *Delivery, _ *PullState) string { return d.Chain.String() },
		parse:  func(d *Delivery, _ *PullState, v string) (err error) { d.Chain, err = ParseChainRef(v); return err }},
	{key: KeyLabels, example: "1 US1.1, 2 US1.2",
		format: func(d *Delivery, _ *PullState) string { return d.Labels.String() },
		parse:  func(d *Delivery, _ *PullState, v string) (err error) { d.Labels, err = ParseLabels(v); return err }},
	{key: KeyPhase, pull: true, example: "review",
		format: func(_ *Delivery, p *PullState) string { return string(p.Phase) },
		parse: func(_ *Delivery, p *PullState, v string) error {
			if !Phase(v).Known() {
				return fmt.Errorf("must be implement, verify, review, ready or done")
			}
			p.Phase = Phase(v)
			return nil
		}},
	pullTime(KeyDispatchedAt, func(p *PullState) *time.Time { return &p.DispatchedAt }),
	entryCount(KeyReruns, func(d *Delivery) *int { return &d.Reruns }),
	entryCount(KeyMisses, func(d *Delivery) *int { return &d.Misses }),
	entryCount(KeyEmptyReturns, func(d *Delivery) *int { return &d.EmptyReturns }),
	entryText(KeyModel, wordValue, "opus", func(d *Delivery) *string { return &d.Model }),
	{key: KeyVerified, pull: true, example: "2f1c0a3e9b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d failed | go test ./...",
		format: func(_ *Delivery, p *PullState) string { return p.Verified.String() },
		parse: func(_ *Delivery, p *PullState, v string) (err error) {
			p.Verified, err = parseVerification(v)
			return err
		}},
	pullText(KeyVerifyRepair, shaValue, func(p *PullState) *string { return &p.VerifyRepair }),
	{key: KeyPR, pull: true, example: "acme/api#12",
		format: func(_ *Delivery, p *PullState) string {
			if p.PR.IsZero() {
				return ""
			}
			return p.PR.String()
		},
		parse: func(_ *Delivery, p *PullState, v string) error {
			if !prRE.MatchString(v) || !specs.ValidRepo(v[:strings.IndexByte(v, '#')]) {
				return fmt.Errorf("must be owner/name#number")
			}
			r, err := ParsePullRef(v)
			p.PR = r
			return err
		}},
	pullCount(KeyRound, func(p *PullState) *int { return &p.Round }),
	pullText(KeyHead, shaValue, func(p *PullState) *string { return &p.Head }),
	pullTime(KeyHeadAt, func(p *PullState) *time.Time { return &p.HeadAt }),
	pullText(KeyChecksHead, shaValue, func(p *PullState) *string { return &p.ChecksHead }),
	pullCursor(KeySince, func(p *PullState) *Cursor { return &p.Since }),
	pullCursor(KeyRoundSince, func(p *PullState) *Cursor { return &p.RoundSince }),
	pullText(KeyIgnored, freeValue, func(p *PullState) *string { return &p.Ignored }),
	pullText(KeyReceipt, hexValue, func(p *PullState) *string { return &p.Receipt }),
	pullTime(KeyReviewerAsked, func(p *PullState) *time.Time { return &p.ReviewerAsked }),
	pullText(KeyNudged, shaValue, func(p *PullState) *string { return &p.Nudged }),
	{key: KeyOwed, pull: true, example: "round-comment 3",
		format: func(_ *Delivery, p *PullState) string { return p.Owed.String() },
		parse:  func(_ *Delivery, p *PullState, v string) (err error) { p.Owed, err = parseOwedWrite(v); return err }},
	{key: KeyRetry, pull: true, example: "ready-label 2 | 403 forbidden",
		format: func(_ *Delivery, p *PullState) string { return p.Retry.String() },
		parse:  func(_ *Delivery, p *PullState, v string) (err error) { p.Retry, err = parseWriteRetry(v); return err }},
	{key: KeyStop, example: "stuck | the ready-label write failed 5 times",
		format: func(d *Delivery, _ *PullState) string {
			if d.Stop.IsZero() {
				return ""
			}
			return d.Stop.String()
		},
		parse: func(d *Delivery, _ *PullState, v string) (err error) { d.Stop, err = parseStopRecord(v); return err }},
	entryText(KeyUnavailable, freeValue, "iteration 3: the agent could not authenticate: 401", func(d *Delivery) *string { return &d.Unavailable }),
	entryAmount(KeySpent, func(d *Delivery) *specs.Amount { return &d.Spent }),
	entryAmount(KeyBudgetGranted, func(d *Delivery) *specs.Amount { return &d.BudgetGranted }),
	{key: KeyNotify, example: "ops/stop/20261129T100000Z/0",
		format: func(d *Delivery, _ *PullState) string { return NotifyText(d) },
		parse: func(d *Delivery, _ *PullState, v string) error {
			for _, tok := range strings.Fields(v) {
				o, err := ParseOwed(tok)
				if err != nil {
					return err
				}
				d.Notify = append(d.Notify, o)
			}
			return nil
		}},
	{key: KeyNotifyFailed, example: "ops/stop/20261129T100000Z | 502 bad gateway after 5 tries",
		format: func(d *Delivery, _ *PullState) string { return d.NotifyFailed.String() },
		parse: func(d *Delivery, _ *PullState, v string) (err error) {
			d.NotifyFailed, err = parseNotifyFailure(v)
			return err
		}},
	{key: KeyPaused, example: "@bob acme/api#3",
		format: func(d *Delivery, _ *PullState) string {
			if d.Paused.IsZero() {
				return ""
			}
			return d.Paused.String()
		},
		parse: func(d *Delivery, _ *PullState, v string) (err error) { d.Paused, err = ParsePause(v); return err }},
	{key: KeyLearn, pull: true, example: "proposed acme/control#3 3fa85f6457c2",
		format: func(_ *Delivery, p *PullState) string { return p.Learn.String() },
		parse:  func(_ *Delivery, p *PullState, v string) (err error) { p.Learn, err = ParseLearn(v); return err }},
}

// fieldIndex finds a key's field in deliveryFields.
var fieldIndex = func() map[string]int {
	m := make(map[string]int, len(deliveryFields))
	for i, f := range deliveryFields {
		m[f.key] = i
	}
	return m
}()

// fieldOf finds a key's field.
func fieldOf(key string) (*deliveryField, bool) {
	i, ok := fieldIndex[key]
	if !ok {
		return nil, false
	}
	return &deliveryFields[i], true
}

// errUnknownKey is a line whose key is no delivery key.
var errUnknownKey = errors.New("unknown key")

// textKind says which text a text key holds.
type textKind int

const (
	shaValue  textKind = iota // a full lowercase commit SHA
	hexValue                  // a 12-character lowercase hex fingerprint
	wordValue                 // one word
	freeValue                 // any non-empty text
)

var textExamples = map[textKind]string{
	shaValue:  "2f1c0a3e9b7d4c6a8e0f1b2d3c4a5e6f7a8b9c0d",
	hexValue:  "3fa85f6457c2",
	wordValue: "gallivant/webhooks",
	freeValue: "a comment from a stranger",
}

func checkText(kind textKind, v string) error {
	switch {
	case kind == shaValue && !isHex(v, 40):
		return fmt.Errorf("must be a full 40-character lowercase commit SHA")
	case kind == hexValue && !isHex(v, 12):
		return fmt.Errorf("must be a 12-character lowercase hex fingerprint")
	case kind == wordValue && (v == "" || strings.ContainsAny(v, " \t")):
		return fmt.Errorf("must be one word")
	case kind == freeValue && strings.TrimSpace(v) == "":
		return fmt.Errorf("must say what was ignored")
	}
	return nil
}

func entryText(key string, kind textKind, example string, at func(*Delivery) *string) deliveryField {
	return deliveryField{key: key, example: example,
		format: func(d *Delivery, _ *PullState) string { return *at(d) },
		parse: func(d *Delivery, _ *PullState, v string) error {
			if err := checkText(kind, v); err != nil {
				return err
			}
			*at(d) = v
			return nil
		}}
}

func pullText(key string, kind textKind, at func(*PullState) *string) deliveryField {
	return deliveryField{key: key, pull: true, example: textExamples[kind],
		format: func(_ *Delivery, p *PullState) string { return *at(p) },
		parse: func(_ *Delivery, p *PullState, v string) error {
			if err := checkText(kind, v); err != nil {
				return err
			}
			*at(p) = v
			return nil
		}}
}

func formatCount(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func parseCount(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || strconv.Itoa(n) != v {
		return 0, fmt.Errorf("must be a whole number of at least 0")
	}
	return n, nil
}

func entryCount(key string, at func(*Delivery) *int) deliveryField {
	return deliveryField{key: key, example: "2", zero: "0",
		format: func(d *Delivery, _ *PullState) string { return formatCount(*at(d)) },
		parse:  func(d *Delivery, _ *PullState, v string) (err error) { *at(d), err = parseCount(v); return err }}
}

func pullCount(key string, at func(*PullState) *int) deliveryField {
	return deliveryField{key: key, pull: true, example: "2", zero: "0",
		format: func(_ *Delivery, p *PullState) string { return formatCount(*at(p)) },
		parse:  func(_ *Delivery, p *PullState, v string) (err error) { *at(p), err = parseCount(v); return err }}
}

func pullTime(key string, at func(*PullState) *time.Time) deliveryField {
	return deliveryField{key: key, pull: true, example: "2026-11-29T10:00:00Z",
		format: func(_ *Delivery, p *PullState) string {
			if at(p).IsZero() {
				return ""
			}
			return at(p).Format(time.RFC3339)
		},
		parse: func(_ *Delivery, p *PullState, v string) error {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return fmt.Errorf("must be an RFC 3339 time such as 2026-11-29T10:00:00Z")
			}
			*at(p) = t
			return nil
		}}
}

func pullCursor(key string, at func(*PullState) *Cursor) deliveryField {
	return deliveryField{key: key, pull: true, example: "2026-11-29T10:00:00Z 4711",
		format: func(_ *Delivery, p *PullState) string { return at(p).String() },
		parse: func(_ *Delivery, p *PullState, v string) error {
			c, err := ParseCursor(v)
			if err == nil && c.IsZero() {
				err = fmt.Errorf("must be an RFC 3339 time, then the ids already dispatched at it")
			}
			*at(p) = c
			return err
		}}
}

func entryAmount(key string, at func(*Delivery) *specs.Amount) deliveryField {
	return deliveryField{key: key, example: "12000 tokens, $0.40",
		format: func(d *Delivery, _ *PullState) string {
			if *at(d) == (specs.Amount{}) {
				return ""
			}
			return at(d).String()
		},
		parse: func(d *Delivery, _ *PullState, v string) error {
			a, err := specs.ParseAmount(v)
			if err != nil {
				return err
			}
			*at(d) = a
			return nil
		}}
}

// parseDeliveryLine reads one `key: value` (or `<key> <member>: value`)
// line into d. The error says what is wrong with the value, or is
// errUnknownKey; a value that reads but would not be written back the same
// way is refused with its canonical spelling, so that a ledger formats
// back byte for byte.
func parseDeliveryLine(d *Delivery, k, v string) error {
	key, member, isLeg := splitLegKey(k)
	f, ok := fieldOf(key)
	if !ok || (isLeg && !f.pull) {
		return errUnknownKey
	}
	p := &d.PullState
	if isLeg {
		if !memberNameRE.MatchString(member) {
			return fmt.Errorf("names no member: a member is home or a leg name (lowercase letters, digits, '.', '_' or '-')")
		}
		p = d.Member(member)
	}
	// The value is read into its place; a value that does not read, or
	// does not read canonically, leaves d as it was.
	savedD, savedP := *d, *p
	restore := func() { *d = savedD; *p = savedP }
	if err := f.parse(d, p, v); err != nil {
		restore()
		return fmt.Errorf("%w; for example %s: %s", err, key, f.example)
	}
	if got := f.format(d, p); got != v && (got != "" || v != f.zero) {
		restore()
		if got == "" {
			return fmt.Errorf("%q is the same as no line: leave the key out", v)
		}
		return fmt.Errorf("%q is not in its canonical spelling: write %s: %s", v, key, got)
	}
	return nil
}

// validateDelivery checks one line's value: "" when it reads, else what is
// wrong with it ("unknown key" for a line whose key is no delivery key).
func validateDelivery(key, v string) string {
	if err := parseDeliveryLine(&Delivery{}, key, v); err != nil {
		return err.Error()
	}
	return ""
}

// ParseDeliveryLines reads `key: value` lines as the `## Delivery`
// section holds them; the error names the first line that does not read.
func ParseDeliveryLines(lines ...string) (*Delivery, error) {
	d := NewDelivery()
	for i, ln := range lines {
		k, v, ok := strings.Cut(ln, ": ")
		if !ok {
			return nil, fmt.Errorf("line %d: expected a `key: value` line, got %q", i+1, ln)
		}
		if err := parseDeliveryLine(d, k, v); err != nil {
			return nil, fmt.Errorf("line %d: %s %w", i+1, k, err)
		}
	}
	return d, nil
}
