package ledger

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/specs"
)

// RequestKind tells requests apart.
type RequestKind int

// Request kinds.
const (
	RequestRetry      RequestKind = iota + 1 // retry <n> | <hint>
	RequestRows                              // rows +<n> [| <words>]
	RequestResume                            // resume | <why>
	RequestResnapshot                        // resnapshot | <why>
	RequestRecheck                           // recheck [| <why>]
	RequestReopen                            // reopen <n> | <why>
	RequestBudget                            // budget +<amount> | <why>
	RequestAccept                            // accept | <why>
	RequestPause                             // pause [| <why>]: a pull-request command only (pause.go)
	RequestUnpause                           // unpause [| <why>]: a pull-request command only
)

func (k RequestKind) String() string {
	return [...]string{"", "retry", "rows", "resume", "resnapshot", "recheck", "reopen", "budget", "accept", "pause", "unpause"}[k]
}

// Request is one parsed line of the human-owned `## Requests` section.
type Request struct {
	// Line is the line exactly as written, `- ` prefix included.
	Line string
	Kind RequestKind
	// Row is retry's row; N is rows' increment.
	Row, N int
	// Text is the hint, words or why.
	Text string
	// Amount is budget's increment.
	Amount specs.Amount
}

var (
	retryReqRE  = regexp.MustCompile(`^retry ([1-9][0-9]*) \| (.+)$`)
	reopenReqRE = regexp.MustCompile(`^reopen ([1-9][0-9]*) \| (.+)$`)
	rowsReqRE   = regexp.MustCompile(`^rows \+([1-9][0-9]*)(?:$|[ \t|])`)
)

// ParseRequest parses one request line. The error lists the accepted forms.
func ParseRequest(line string) (Request, error) {
	r := Request{Line: line}
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "- ")
	t = strings.TrimSpace(t)
	if hasControl(t) {
		return r, fmt.Errorf("request contains a control character")
	}
	if utf8.RuneCountInString(t) > 400 {
		return r, fmt.Errorf("request is longer than 400 characters")
	}
	word, rest, _ := strings.Cut(t, " ")
	parse, ok := requestForms[word]
	if !ok {
		return r, fmt.Errorf("unknown request %q; the forms are `retry <row> | <hint>`, `reopen <row> | <why>`, `rows +N [| <words>]`, `resume | <why>`, `resnapshot | <why>`, `recheck`, `budget +<amount> | <why>`, and on a pull request `pause` and `unpause`", t)
	}
	err := parse(&r, t, rest)
	return r, err
}

// requestForms parse each request by its first word into r: t is the
// request without its list marker, rest what follows the word. What they
// read before an error stays in r.
var requestForms = map[string]func(r *Request, t, rest string) error{
	"retry":      rowRequest(RequestRetry, retryReqRE, "malformed retry; write `retry <row> | <hint>`", "retry hint"),
	"reopen":     rowRequest(RequestReopen, reopenReqRE, "malformed reopen; write `reopen <row> | <why>`", "reopen reason"),
	"rows":       parseRowsRequest,
	"resume":     whyRequest("resume", RequestResume, false),
	"resnapshot": whyRequest("resnapshot", RequestResnapshot, false),
	"recheck":    whyRequest("recheck", RequestRecheck, true),
	"accept":     whyRequest("accept", RequestAccept, false),
	"pause":      whyRequest("pause", RequestPause, true),
	"unpause":    whyRequest("unpause", RequestUnpause, true),
	"budget":     parseBudgetRequest,
	"cap": func(*Request, string, string) error {
		return fmt.Errorf("`cap +N` is the legacy grant; write `rows +N` to raise the allowance")
	},
}

// rowRequest parses `<word> <row> | <text>` as re matches it: malformed
// is the error when it does not, slot names the text in its error.
func rowRequest(kind RequestKind, re *regexp.Regexp, malformed, slot string) func(r *Request, t, rest string) error {
	return func(r *Request, t, _ string) error {
		m := re.FindStringSubmatch(t)
		if m == nil {
			return errors.New(malformed)
		}
		r.Kind = kind
		r.Row, _ = strconv.Atoi(m[1])
		r.Text = strings.TrimSpace(m[2])
		if err := checkSlot(r.Text); err != nil {
			return fmt.Errorf("%s %v", slot, err)
		}
		return nil
	}
}

// parseRowsRequest parses `rows +N [| <words>]`.
func parseRowsRequest(r *Request, t, _ string) error {
	m := rowsReqRE.FindStringSubmatch(t)
	if m == nil {
		return fmt.Errorf("malformed rows request %q; write `rows +N` or `rows +N | <words>` with N a whole number from 1 (rows +0, rows -1, rows +x and rows +50x are refused)", t)
	}
	r.Kind = RequestRows
	r.N, _ = strconv.Atoi(m[1])
	words := strings.TrimSpace(t[len("rows +")+len(m[1]):])
	words = strings.TrimSpace(strings.TrimPrefix(words, "|"))
	r.Text = words
	if words != "" {
		if err := checkSlot(words); err != nil {
			return fmt.Errorf("rows words %v", err)
		}
	}
	return nil
}

// whyRequest parses `<word> | <why>`; the why may be left out when
// optional.
func whyRequest(word string, kind RequestKind, optional bool) func(r *Request, t, rest string) error {
	return func(r *Request, _, rest string) error {
		r.Kind = kind
		why := strings.TrimSpace(rest)
		if why != "" {
			if !strings.HasPrefix(why, "|") {
				return fmt.Errorf("malformed %s; write `%s | <why>`", word, word)
			}
			why = strings.TrimSpace(why[1:])
		}
		if why == "" && !optional {
			return fmt.Errorf("%s needs a reason: `%s | <why>`", word, word)
		}
		if why != "" {
			if err := checkSlot(why); err != nil {
				return fmt.Errorf("%s reason %v", word, err)
			}
		}
		r.Text = why
		return nil
	}
}

// parseBudgetRequest parses `budget +<amount> | <why>`.
func parseBudgetRequest(r *Request, _, rest string) error {
	amount, why, ok := strings.Cut(strings.TrimPrefix(rest, "+"), " | ")
	a, err := specs.ParseAmount(strings.TrimSpace(amount))
	if !strings.HasPrefix(rest, "+") || !ok || err != nil || a == (specs.Amount{}) {
		return fmt.Errorf("malformed budget request; write `budget +<n> tokens | <why>` or `budget +$<dollars> | <why>`")
	}
	r.Kind, r.Amount, r.Text = RequestBudget, a, strings.TrimSpace(why)
	if err := checkSlot(r.Text); err != nil {
		return fmt.Errorf("budget reason %v", err)
	}
	return nil
}
