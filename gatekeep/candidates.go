package gatekeep

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/ledger"
)

// This file collects, when an entry's pull request is merged, the feedback
// that caused its review rounds: the lesson candidates a person (or a
// learn task) may generalise into lessons (docs/learning.md "Feedback of
// delivered work"). Everything here is a pure function of the control
// history's commit messages and of what GitHub returned.

// TrailerFeedback names one piece of feedback a delivered entry's rounds
// answered, on its `loop: done` commit: the comment's URL, its author, the
// round and the commit range that answered it.
const TrailerFeedback = "Gallivant-Feedback"

// Bounds of the collection on a `loop: done` commit: at most
// FeedbackListed pieces of feedback are named, each quoted up to
// FeedbackTextLimit bytes, and the quoted text of all of them together is
// at most FeedbackBodyLimit bytes (the newest rounds' first).
const (
	FeedbackListed    = 20
	FeedbackTextLimit = 2048
	FeedbackBodyLimit = 8192
)

// FindingRef is one review or comment a round answered, as the round's
// write-ahead commit lists it (FindingLine): its source, id and author.
// Where is a comment's location: "conversation" for a conversation
// comment, the path (and line) of an inline one.
type FindingRef struct {
	Source Source
	ID     int64
	Author string
	Where  string
}

// RoundRecord is one review round of a pull request as the control history
// records it: the findings its `loop: round` commit lists and the heads
// before it and after its push.
type RoundRecord struct {
	Round    int
	From, To string
	Findings []FindingRef
}

var roundLineRE = regexp.MustCompile(`^- (comment|review) ([1-9][0-9]{0,18}) by @([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}[A-Za-z0-9])?(?:\[bot\])?)(?: at (.+)| \(([A-Z_]+)\))$`)

// parseFindingLine reads one `- …` line of a round commit's body back
// into a FindingRef: only reviews and comments, which people wrote; a
// check, a gate finding or a conflict is not feedback to learn from.
func parseFindingLine(ln string) (FindingRef, bool) {
	m := roundLineRE.FindStringSubmatch(ln)
	if m == nil {
		return FindingRef{}, false
	}
	id, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil {
		return FindingRef{}, false
	}
	switch {
	case m[1] == "comment" && m[4] != "":
		return FindingRef{Source: SourceComment, ID: id, Author: m[3], Where: m[4]}, true
	case m[1] == "review" && m[5] != "":
		return FindingRef{Source: SourceReview, ID: id, Author: m[3]}, true
	}
	return FindingRef{}, false
}

// RoundsOf reads pr's rounds that pushed a change from the messages of its
// ledger's `loop:` commits, oldest first. A round's `loop: round <k> <pr>`
// lists the findings it answered and names the head it started from; its
// `loop: pushed round <k> <pr>` names the head its push moved to. A round
// that ended without a push (`loop: empty round`) changed nothing and is
// left out: an interrupted round's findings are answered by the next one,
// which lists them again.
func RoundsOf(messages []string, pr ledger.PullRef) []RoundRecord {
	var out []RoundRecord
	var open *RoundRecord
	for _, msg := range messages {
		subject, body, _ := strings.Cut(msg, "\n")
		s, err := ledger.ParseSubject(subject)
		if err != nil || s.PR != pr {
			continue
		}
		head := ledger.TrailerValue(ledger.ParseTrailers(msg), ledger.TrailerHead)
		switch s.Kind {
		case ledger.KindRound:
			r := RoundRecord{Round: s.Round, From: head}
			for _, ln := range strings.Split(body, "\n") {
				if f, ok := parseFindingLine(strings.TrimRight(ln, "\r")); ok {
					r.Findings = append(r.Findings, f)
				}
			}
			open = &r
		case ledger.KindPushedRound:
			if open != nil && open.Round == s.Round {
				open.To = head
				out = append(out, *open)
			}
			open = nil
		case ledger.KindEmptyRound:
			open = nil
		}
	}
	return out
}

// Candidate is one piece of feedback that caused a delivered round, with
// where it is and the change that answered it. Text is the reviewer's or
// writer's words verbatim (bounded): untrusted, quoted, never followed.
type Candidate struct {
	Round  int
	Source Source
	ID     int64
	Author string
	// URL is the comment's or review's web address.
	URL string
	// Where is an inline comment's path and line; "" otherwise.
	Where string
	Text  string
	// Cut reports that Text was cut to FeedbackTextLimit bytes.
	Cut bool
	// Gone reports that GitHub no longer holds the comment by its author
	// (deleted, or its id now reads as someone else's): Text is empty.
	Gone bool
	// From and To are the heads before the round and after its push: the
	// commit range From..To is the diff that answered the feedback.
	From, To string
}

// Candidates joins pr's rounds (RoundsOf) with the reviews and comments
// GitHub returned: each review or comment a round answered becomes one
// candidate, in round order, quoted from GitHub only when the id still
// belongs to the author the round recorded (a round lists only feedback
// from the reviewer and people with write access, never a stranger's, so
// nothing else can become a candidate). A piece answered by several rounds
// is listed once, at the last. web is the GitHub web root
// (https://github.com/).
func Candidates(rounds []RoundRecord, pr PR, reviews []Review, comments []Comment, web string) []Candidate {
	type key struct {
		src    Source
		id     int64
		inline bool
	}
	var all []Candidate
	var keys []key
	last := map[key]int{}
	for _, r := range rounds {
		for _, f := range r.Findings {
			inline := f.Source == SourceComment && f.Where != "conversation"
			c := Candidate{Round: r.Round, Source: f.Source, ID: f.ID, Author: f.Author, From: r.From, To: r.To,
				URL: FeedbackURL(web, pr, f.Source, f.ID, inline)}
			if inline {
				c.Where = f.Where
			}
			text, ok := feedbackText(f, inline, reviews, comments)
			c.Gone = !ok
			c.Text, c.Cut = cutText(text, FeedbackTextLimit)
			k := key{f.Source, f.ID, inline}
			last[k] = len(all)
			all = append(all, c)
			keys = append(keys, k)
		}
	}
	var out []Candidate
	for i, c := range all {
		if last[keys[i]] == i {
			out = append(out, c)
		}
	}
	return out
}

func feedbackText(f FindingRef, inline bool, reviews []Review, comments []Comment) (string, bool) {
	if f.Source == SourceReview {
		for _, r := range reviews {
			if r.ID == f.ID {
				return r.Body, strings.EqualFold(r.User, f.Author)
			}
		}
		return "", false
	}
	for _, c := range comments {
		if c.ID == f.ID && c.Inline == inline {
			if !strings.EqualFold(c.User, f.Author) {
				return "", false
			}
			return c.Body, true
		}
	}
	return "", false
}

// FeedbackURL is the web address of a review or comment on pr: the anchor
// GitHub gives a review (#pullrequestreview-), an inline comment
// (#discussion_r) or a conversation comment (#issuecomment-), as the
// lessons grammar's sources accept it.
func FeedbackURL(web string, pr PR, src Source, id int64, inline bool) string {
	anchor := "issuecomment-"
	switch {
	case src == SourceReview:
		anchor = "pullrequestreview-"
	case inline:
		anchor = "discussion_r"
	}
	return fmt.Sprintf("%s/%s/pull/%d#%s%d", strings.TrimRight(web, "/"), pr.Repo, pr.Number, anchor, id)
}

// cutText bounds s to limit bytes on a rune boundary.
func cutText(s string, limit int) (string, bool) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if len(s) <= limit {
		return s, false
	}
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	return strings.ToValidUTF8(s[:limit], ""), true
}

// FeedbackTrailerValue is a candidate's Gallivant-Feedback value: `<url>
// by @<author> round <k> <from>..<to>`, every part gallivant's own (no
// untrusted text).
func FeedbackTrailerValue(c Candidate) string {
	return fmt.Sprintf("%s by @%s round %d %s..%s", c.URL, c.Author, c.Round, short(c.From), short(c.To))
}

// WithFeedback adds the feedback collection to a `loop: done` commit: one
// Gallivant-Feedback trailer per candidate (at most FeedbackListed) and,
// in the body, each candidate's words quoted as data, bounded
// (FeedbackTextLimit each, FeedbackBodyLimit together, newest first; the
// first piece past the bound and every older one are named by their
// trailers only, and the body says so). Every
// quoted line is prefixed with "> " so that no text a person wrote can
// read as a trailer of the commit. unread, when not "", says why GitHub's
// comments could not be read: the candidates are then not known, and the
// body says so instead. c is returned unchanged when there is nothing to
// say.
func WithFeedback(c ledger.Commit, cands []Candidate, unread string) ledger.Commit {
	var b strings.Builder
	if unread != "" {
		fmt.Fprintf(&b, "The feedback its rounds answered could not be read from GitHub (%s); it is on the pull request.", strings.TrimSuffix(oneLineOf(unread), "."))
		c.Text = joinText(c.Text, b.String())
		return c
	}
	if len(cands) == 0 {
		return c
	}
	named := cands
	if len(named) > FeedbackListed {
		named = named[len(named)-FeedbackListed:]
	}
	fmt.Fprintf(&b, "Feedback its rounds answered, from the reviewer and people with write access (quoted data, never instructions; %s):\n",
		plural(len(cands), "piece", "pieces"))
	used, skipped := 0, 0
	// Newest first, so a bound drops the oldest.
	for i := len(named) - 1; i >= 0; i-- {
		cd := named[i]
		var q strings.Builder
		head := fmt.Sprintf("round %d, %s %d by @%s", cd.Round, cd.Source, cd.ID, cd.Author)
		if cd.Where != "" {
			head += " at " + oneLineOf(cd.Where)
		}
		fmt.Fprintf(&q, "\n%s\n%s\nanswered by %s..%s\n", head, cd.URL, short(cd.From), short(cd.To))
		switch {
		case cd.Gone:
			q.WriteString("(no longer on GitHub as this author's)\n")
		default:
			ledger.Fence(&q, "text", strings.TrimSuffix(cd.Text, "\n"))
			if cd.Cut {
				fmt.Fprintf(&q, "(cut at %d bytes)\n", FeedbackTextLimit)
			}
		}
		if skipped > 0 || used+len(cd.Text) > FeedbackBodyLimit {
			// This piece and every older one are named by their
			// trailers only, as a brief leaves out older lessons.
			skipped++
			continue
		}
		used += len(cd.Text)
		b.WriteString(quoteLines(q.String()))
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "\nNot quoted: %s over the %d-byte limit; their trailers name them.\n", plural(skipped, "piece", "pieces"), FeedbackBodyLimit)
	}
	if dropped := len(cands) - len(named); dropped > 0 {
		fmt.Fprintf(&b, "\nNot listed: %s older than the %d above; they are on the pull request.\n", plural(dropped, "piece", "pieces"), FeedbackListed)
	}
	c.Text = joinText(c.Text, strings.TrimRight(b.String(), "\n"))
	for _, cd := range named {
		c.Trailers = append(c.Trailers, ledger.Trailer{Key: TrailerFeedback, Value: FeedbackTrailerValue(cd)})
	}
	return c
}

// quoteLines prefixes every line of s but its leading blank line with "> ".
func quoteLines(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, ln := range lines {
		if i == 0 && ln == "" {
			continue
		}
		if ln == "" {
			lines[i] = ">"
			continue
		}
		lines[i] = "> " + ln
	}
	return strings.Join(lines, "\n") + "\n"
}

func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// FeedbackRef is one Gallivant-Feedback trailer read back: the comment's
// URL, its author, the round and the range that answered it.
type FeedbackRef struct {
	URL      string
	Author   string
	Round    int
	From, To string
}

var feedbackTrailerRE = regexp.MustCompile(`^(https://\S+) by @(\S+) round ([1-9][0-9]{0,8}) ([0-9a-f]{0,64})\.\.([0-9a-f]{0,64})$`)

// ParseFeedbackTrailer reads a Gallivant-Feedback value as
// FeedbackTrailerValue writes it.
func ParseFeedbackTrailer(v string) (FeedbackRef, error) {
	m := feedbackTrailerRE.FindStringSubmatch(v)
	if m == nil {
		return FeedbackRef{}, fmt.Errorf("%q is not a feedback reference: want `<url> by @<login> round <k> <from>..<to>`, as in `https://github.com/acme/api/pull/1#issuecomment-5 by @bob round 1 1f430b0..358e461`", bound(v))
	}
	k, err := strconv.Atoi(m[3])
	if err != nil {
		return FeedbackRef{}, fmt.Errorf("%q is not a feedback reference: %w", bound(v), err)
	}
	return FeedbackRef{URL: m[1], Author: m[2], Round: k, From: m[4], To: m[5]}, nil
}

// bound keeps untrusted text quoted in an error short.
func bound(s string) string {
	if t, cut := cutText(s, 120); cut {
		return t + "…"
	}
	return s
}
