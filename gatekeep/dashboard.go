package gatekeep

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/ledger"
)

// This file is the dashboard issue's pure part (docs/requests.md): what
// its body says of each entry, the boxes it offers, how a body is read
// back, who ticked a box, and what a ticked box asks for. The body is
// untrusted text (any writer may edit it): it is read line by line,
// bounded, and only a box's own line is taken as a request, through
// ParseCommand as a pull-request command is.

// DashboardMarker is the marker the dashboard issue's body carries: the
// issue is found again by it, never by its title.
const DashboardMarker = "<!-- gallivant:dashboard -->"

// DashboardTitle is the title the dashboard issue is opened with.
const DashboardTitle = "gallivant dashboard"

// DashboardDefaultWhy is the hint or reason a ticked box's request
// carries when the person added none after `|`.
const DashboardDefaultWhy = "from the dashboard issue"

// maxDashboardBody bounds the body read back; the rest is not read.
const maxDashboardBody = 256 << 10

// maxDashboardText bounds each piece of text a body line quotes.
const maxDashboardText = 300

// maxDashboardOut bounds the body rendered, below GitHub's 65536
// characters for an issue body: the entries past it are counted, not
// shown.
const maxDashboardOut = 60000

// maxPastBoxes bounds the boxes an entry keeps with a result that it no
// longer offers.
const maxPastBoxes = 3

// boxOpen starts a box's marker: `<!-- gallivant:box <id> "<spec>" -->`.
const boxOpen = "<!-- gallivant:box "

// DashboardEntry is one entry as the dashboard shows it.
type DashboardEntry struct {
	// Spec is the spec's path; Phase its ledger's phase ("not seeded"
	// before seeding).
	Spec, Phase string
	// Status is one line of where it stands (rows, pull request).
	Status string
	// Stop is the stop (`<reason> | <detail>`), "" when not stopped;
	// Paused says who paused it, "" when nobody did.
	Stop, Paused string
	// Offers are the requests that clear its stop (or its pause), as box
	// texts: DashboardOffers.
	Offers []string
	// LastRequest is the last request performed on the entry and where
	// it came from (the ledger, a pull-request comment, this issue), ""
	// when none was.
	LastRequest string
	// Lessons says where a done entry's learn task stands (its lessons
	// proposal on the control repository), "" without one.
	Lessons string
}

// DashboardBox is one box read from the body.
type DashboardBox struct {
	// ID is the box's id, the record of a tick acted on (Gallivant-Box).
	ID int64
	// Spec is the entry the box belongs to.
	Spec string
	// Text is the box's request as written, without the hint; Hint is
	// what the person added after `|` ("" when nothing).
	Text, Hint string
	Ticked     bool
	// Note is the result gallivant wrote beside it.
	Note string
}

// key is what a box is offered as: its entry and its request.
func (b DashboardBox) key() string { return b.Spec + "\x00" + b.Text }

// DashboardOffers lists the requests that clear the entry's stop, as a
// dashboard box offers them: a retry of each open or failed row (at most
// five), `rows +1`, `resume` and `recheck`, as ledger.ClearingRequests
// names them for the stop, and `unpause` for a paused entry. A request
// that needs an amount or follows an edit of the control repository
// (budget, resnapshot, accept) is no box: it is written under
// `## Requests`.
func DashboardOffers(l *ledger.Ledger) []string {
	if l == nil || l.Delivery == nil {
		return nil
	}
	var out []string
	if reason, _, stopped := l.Stop(); stopped {
		for _, form := range ledger.ClearingRequests(reason) {
			word, _, _ := strings.Cut(form, " ")
			switch word {
			case "retry":
				k := 0
				for _, r := range l.Rows {
					if r.Status.Unresolved() && k < 5 {
						out = append(out, fmt.Sprintf("retry %d", r.N))
						k++
					}
				}
			case "rows":
				out = append(out, "rows +1")
			case "resume", "recheck":
				out = append(out, word)
			}
		}
	}
	if !l.Delivery.Paused.IsZero() {
		out = append(out, "unpause")
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, o := range out {
		if !seen[o] {
			seen[o] = true
			uniq = append(uniq, o)
		}
	}
	return uniq
}

// ParseDashboard reads the boxes of a dashboard body, in order: each line
// `- [ ] <text> <!-- gallivant:box <id> "<spec>" --> <note>` (`[x]` or
// `[X]` when ticked). Any other line is the person's or gallivant's text
// and is skipped. A body past 256 KiB is read up to there. It never
// panics.
func ParseDashboard(body string) []DashboardBox {
	if len(body) > maxDashboardBody {
		body = body[:maxDashboardBody]
	}
	var out []DashboardBox
	for _, line := range strings.Split(body, "\n") {
		if b, ok := parseBox(strings.TrimSuffix(line, "\r")); ok {
			out = append(out, b)
		}
	}
	return out
}

func parseBox(line string) (DashboardBox, bool) {
	var b DashboardBox
	rest, ok := strings.CutPrefix(line, "- [")
	if !ok || len(rest) < 3 || rest[1:3] != "] " {
		return b, false
	}
	switch rest[0] {
	case ' ':
	case 'x', 'X':
		b.Ticked = true
	default:
		return b, false
	}
	rest = rest[3:]
	i := strings.Index(rest, boxOpen)
	if i < 0 {
		return b, false
	}
	text, marker := rest[:i], rest[i+len(boxOpen):]
	j := strings.Index(marker, " -->")
	if j < 0 {
		return b, false
	}
	note := strings.TrimSpace(marker[j+len(" -->"):])
	marker = marker[:j]
	idText, specText, ok := strings.Cut(marker, " ")
	if !ok {
		return b, false
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		return b, false
	}
	spec, err := strconv.Unquote(specText)
	if err != nil || spec == "" || !utf8.ValidString(spec) {
		return b, false
	}
	b.ID, b.Spec = id, spec
	req, hint, _ := strings.Cut(text, "|")
	b.Text, b.Hint = strings.TrimSpace(req), strings.TrimSpace(hint)
	b.Note = strings.TrimPrefix(note, "— ")
	return b, true
}

// DashboardCommand is the pull-request command a ticked box asks for:
// `/gallivant <text> | <hint>`, the hint DashboardDefaultWhy when the
// person added none. ParseCommand reads it as it reads a comment.
func DashboardCommand(b DashboardBox) string {
	hint := b.Hint
	if hint == "" {
		hint = DashboardDefaultWhy
	}
	return CommandPrefix + " " + b.Text + " | " + hint
}

// BodyEdit is one version of the dashboard's body: who left it and the
// body it left (GitHub's userContentEdits: editor and diff).
type BodyEdit struct {
	Editor, Body string
}

// DashboardTicker names who ticked box id, from the body's versions
// oldest first: the editor of the version that left it ticked after one
// that did not (or that lacked it). "" when the newest version does not
// show it ticked: who ticked it is then unknown, and so nobody who may
// steer.
func DashboardTicker(edits []BodyEdit, id int64) string {
	who, prev := "", false
	for _, e := range edits {
		ticked := boxTicked(e.Body, id)
		if ticked && !prev {
			who = e.Editor
		}
		prev = ticked
	}
	if !prev {
		return ""
	}
	return who
}

func boxTicked(body string, id int64) bool {
	for _, b := range ParseDashboard(body) {
		if b.ID == id {
			return b.Ticked
		}
	}
	return false
}

// DashboardRender is what a dashboard body is rendered from.
type DashboardRender struct {
	Entries []DashboardEntry
	// Previous are the boxes of the body as read this pass: an offer
	// still made keeps its box's id and note, so that an unchanged state
	// renders the same body.
	Previous []DashboardBox
	// Results are the notes of the boxes this pass acted on or reset, by
	// box id: such a box is rendered again unticked, under a new id (the
	// old one is the record that its tick was acted on), with its note.
	Results map[int64]string
	// NewID returns a fresh box id, greater than any id used before.
	NewID func() int64
}

// RenderDashboard renders the dashboard body: the marker, how to use it,
// then the entries grouped by phase (stopped first, then paused, then
// the phases in delivery order), each stopped or paused entry with a box
// per request that clears it. Text from ledgers and GitHub is quoted in
// code spans, bounded to one line. Past about 60000 bytes the remaining
// entries are counted instead of shown, so that the body stays within
// GitHub's limit. The same input renders the same body.
func RenderDashboard(in DashboardRender) string {
	// The previous boxes by what they offer (the first of each), and in
	// order per entry; acted holds the notes of those acted on this pass.
	prev := map[string]DashboardBox{}
	past := map[string][]DashboardBox{}
	acted := map[string]string{}
	for _, b := range in.Previous {
		if _, ok := prev[b.key()]; ok {
			continue
		}
		prev[b.key()] = b
		past[b.Spec] = append(past[b.Spec], b)
		if note, ok := in.Results[b.ID]; ok {
			acted[b.key()] = note
		}
	}
	var b strings.Builder
	b.WriteString(DashboardMarker + "\n")
	b.WriteString("Kept by gallivant each pass (docs/requests.md). Tick a box to ask for its request; to add a hint or a reason, write it after `|` in the box's text (`- [x] retry 2 | read the README first`), or comment here with the box's request and your hint on the first line and the entry's spec on the second (`/gallivant retry 2 | read the README first`, then `specs/feature.md`). Only the configured reviewer and people with write access to this repository steer; a box ticked by anyone else is reset. Each request performed is a commit in this repository.\n")
	groups := map[string][]DashboardEntry{}
	for _, e := range in.Entries {
		g := e.Phase
		switch {
		case e.Stop != "":
			g = "stopped"
		case e.Paused != "":
			g = "paused"
		}
		groups[g] = append(groups[g], e)
	}
	order := []string{"stopped", "paused", string(ledger.PhaseImplement), string(ledger.PhaseVerify), string(ledger.PhaseReview), string(ledger.PhaseReady), string(ledger.PhaseDone), "not seeded"}
	known := map[string]bool{}
	for _, o := range order {
		known[o] = true
	}
	var rest []string
	for g := range groups {
		if !known[g] {
			rest = append(rest, g)
		}
	}
	sort.Strings(rest)
	// box is how an offer or a past box is rendered this time: acted on,
	// it comes back unticked under a new id with its result; ticked and
	// not acted on yet (a later pass will), as the person left it;
	// otherwise as it was.
	box := func(x DashboardBox, had bool) DashboardBox {
		if note, ok := acted[x.key()]; ok {
			return DashboardBox{ID: in.NewID(), Spec: x.Spec, Text: x.Text, Note: note}
		}
		if had {
			return x
		}
		x.ID = in.NewID()
		return x
	}
	hidden := 0
	for _, g := range append(order, rest...) {
		es := groups[g]
		if len(es) == 0 {
			continue
		}
		if b.Len() > maxDashboardOut {
			hidden += len(es)
			continue
		}
		sort.Slice(es, func(i, j int) bool { return es[i].Spec < es[j].Spec })
		fmt.Fprintf(&b, "\n## %s\n", dashLine(g))
		for _, e := range es {
			if b.Len() > maxDashboardOut {
				hidden++
				continue
			}
			fmt.Fprintf(&b, "\n- %s: %s\n", CodeSpan(e.Spec), CodeSpan(e.Status))
			if e.Stop != "" {
				fmt.Fprintf(&b, "  stopped: %s\n", CodeSpan(e.Stop))
			}
			if e.Paused != "" {
				fmt.Fprintf(&b, "  %s\n", CodeSpan(e.Paused))
			}
			if e.LastRequest != "" {
				fmt.Fprintf(&b, "  last request: %s\n", CodeSpan(e.LastRequest))
			}
			if e.Lessons != "" {
				fmt.Fprintf(&b, "  lessons: %s\n", CodeSpan(e.Lessons))
			}
			if strings.Contains(strconv.Quote(e.Spec), "-->") || e.Spec == "" {
				continue
			}
			offered := map[string]bool{}
			for _, o := range e.Offers {
				x := DashboardBox{Spec: e.Spec, Text: o}
				offered[x.key()] = true
				p, had := prev[x.key()]
				if had {
					x = p
				}
				writeBox(&b, box(x, had))
			}
			// A box no longer offered stays while it carries a result or
			// a tick not acted on yet.
			k := 0
			for _, p := range past[e.Spec] {
				if offered[p.key()] || k == maxPastBoxes {
					continue
				}
				if _, fresh := acted[p.key()]; !fresh && p.Note == "" && !p.Ticked {
					continue
				}
				writeBox(&b, box(p, true))
				k++
			}
		}
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n%d more entries are not shown: the issue's body has no room for them (`gallivant status` lists every entry).\n", hidden)
	}
	return b.String()
}

func writeBox(b *strings.Builder, box DashboardBox) {
	mark, text := " ", dashLine(box.Text)
	if box.Ticked {
		mark = "x"
		if box.Hint != "" {
			text += " | " + dashLine(box.Hint)
		}
	}
	fmt.Fprintf(b, "- [%s] %s %s%d %s -->", mark, text, boxOpen, box.ID, strconv.Quote(box.Spec))
	if box.Note != "" {
		fmt.Fprintf(b, " — %s", dashLine(box.Note))
	}
	b.WriteString("\n")
}

// dashLine bounds s to one line of at most maxDashboardText characters,
// control characters and HTML comment delimiters replaced, so that text
// quoted from a ledger or GitHub cannot end a box's line or its marker.
func dashLine(s string) string {
	s = strings.ToValidUTF8(s, "?")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	s = strings.NewReplacer("<!--", "< !--", "-->", "-- >").Replace(s)
	if utf8.RuneCountInString(s) > maxDashboardText {
		s = string([]rune(s)[:maxDashboardText]) + "…"
	}
	return strings.TrimSpace(s)
}

// CodeSpan quotes s as a Markdown code span on one line: a mention or a link in it is
// text, not a notification.
func CodeSpan(s string) string {
	s = strings.ReplaceAll(dashLine(s), "`", "'")
	if s == "" {
		return "``"
	}
	return "`" + s + "`"
}
