package ledger

import (
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
	switch word {
	case "retry":
		m := retryReqRE.FindStringSubmatch(t)
		if m == nil {
			return r, fmt.Errorf("malformed retry; write `retry <row> | <hint>`")
		}
		r.Kind = RequestRetry
		r.Row, _ = strconv.Atoi(m[1])
		r.Text = strings.TrimSpace(m[2])
		if err := checkSlot(r.Text); err != nil {
			return r, fmt.Errorf("retry hint %v", err)
		}
		return r, nil
	case "reopen":
		m := reopenReqRE.FindStringSubmatch(t)
		if m == nil {
			return r, fmt.Errorf("malformed reopen; write `reopen <row> | <why>`")
		}
		r.Kind = RequestReopen
		r.Row, _ = strconv.Atoi(m[1])
		r.Text = strings.TrimSpace(m[2])
		if err := checkSlot(r.Text); err != nil {
			return r, fmt.Errorf("reopen reason %v", err)
		}
		return r, nil
	case "rows":
		m := rowsReqRE.FindStringSubmatch(t)
		if m == nil {
			return r, fmt.Errorf("malformed rows request %q; write `rows +N` or `rows +N | <words>` with N a whole number from 1 (rows +0, rows -1, rows +x and rows +50x are refused)", t)
		}
		r.Kind = RequestRows
		r.N, _ = strconv.Atoi(m[1])
		words := strings.TrimSpace(t[len("rows +")+len(m[1]):])
		words = strings.TrimSpace(strings.TrimPrefix(words, "|"))
		r.Text = words
		if words != "" {
			if err := checkSlot(words); err != nil {
				return r, fmt.Errorf("rows words %v", err)
			}
		}
		return r, nil
	case "resume", "resnapshot", "recheck", "accept", "pause", "unpause":
		r.Kind = map[string]RequestKind{"resume": RequestResume, "resnapshot": RequestResnapshot, "recheck": RequestRecheck, "accept": RequestAccept,
			"pause": RequestPause, "unpause": RequestUnpause}[word]
		why := strings.TrimSpace(rest)
		if why != "" {
			if !strings.HasPrefix(why, "|") {
				return r, fmt.Errorf("malformed %s; write `%s | <why>`", word, word)
			}
			why = strings.TrimSpace(why[1:])
		}
		if why == "" && r.Kind != RequestRecheck && r.Kind != RequestPause && r.Kind != RequestUnpause {
			return r, fmt.Errorf("%s needs a reason: `%s | <why>`", word, word)
		}
		if why != "" {
			if err := checkSlot(why); err != nil {
				return r, fmt.Errorf("%s reason %v", word, err)
			}
		}
		r.Text = why
		return r, nil
	case "budget":
		amount, why, ok := strings.Cut(strings.TrimPrefix(rest, "+"), " | ")
		a, err := specs.ParseAmount(strings.TrimSpace(amount))
		if !strings.HasPrefix(rest, "+") || !ok || err != nil || a == (specs.Amount{}) {
			return r, fmt.Errorf("malformed budget request; write `budget +<n> tokens | <why>` or `budget +$<dollars> | <why>`")
		}
		r.Kind, r.Amount, r.Text = RequestBudget, a, strings.TrimSpace(why)
		if err := checkSlot(r.Text); err != nil {
			return r, fmt.Errorf("budget reason %v", err)
		}
		return r, nil
	case "cap":
		return r, fmt.Errorf("`cap +N` is the legacy grant; write `rows +N` to raise the allowance")
	}
	return r, fmt.Errorf("unknown request %q; the forms are `retry <row> | <hint>`, `reopen <row> | <why>`, `rows +N [| <words>]`, `resume | <why>`, `resnapshot | <why>`, `recheck`, `budget +<amount> | <why>`, and on a pull request `pause` and `unpause`", t)
}
