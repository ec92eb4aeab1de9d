package audit

import (
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// replayCommand proves a `loop: request <word> from <pr> by @<login>`
// commit: a request a person posted on the entry's own pull request (or
// a coordinated entry's member's),
// performed exactly as ledger.ApplyCommand performs it from the request
// line, pull request and comment id its trailers name. Who posted it and
// whether they may steer live on GitHub: the checker proves the change,
// not the permission (docs/verify.md).
func replayCommand(s *step) []outcome {
	if s.c.trailer(ledger.TrailerBox) != "" {
		return replayDashboardCommand(s)
	}
	return withEntryPR(func(s *step, p gatekeep.PR) []outcome {
		line := s.c.trailer(ledger.TrailerRequest)
		if line == "" {
			return refuse(SectionTrailers, "it names no Gallivant-Request: a request transition performs a person's request")
		}
		r, err := ledger.ParseRequest(line)
		if err != nil {
			return refuse(SectionTrailers, "the request %q is malformed: %v", line, err)
		}
		if r.Kind.String() != s.sub.Word {
			return refuse(SectionSubject, "the subject names %s but the request %q is a %s", s.sub.Word, line, r.Kind)
		}
		id, err := strconv.ParseInt(s.c.trailer(ledger.TrailerCommentID), 10, 64)
		if err != nil {
			return refuse(SectionTrailers, "it names no %s: the comment it performs", ledger.TrailerCommentID)
		}
		from := ledger.CommandOrigin{PR: s.sub.PR, Login: s.sub.By, CommentID: id, URL: s.c.trailer(ledger.TrailerComment)}
		want, c, err := ledger.ApplyCommand(s.parent, r, from, time.Time{})
		if err != nil {
			return refuse(SectionRequests, "%v", err)
		}
		borrowTimes(want, s.parent, s.child)
		return one(want, c)
	})(s)
}

// replayDashboardCommand proves a `loop: request` commit that performed a
// box of the dashboard issue (docs/requests.md): the issue is the control
// repository's, not the entry's pull request, and Gallivant-Box names the
// box. Who ticked it, and whether they may steer, live on GitHub.
func replayDashboardCommand(s *step) []outcome {
	line := s.c.trailer(ledger.TrailerRequest)
	r, err := ledger.ParseRequest(line)
	if err != nil {
		return refuse(SectionTrailers, "the request %q is malformed: %v", line, err)
	}
	if r.Kind.String() != s.sub.Word {
		return refuse(SectionSubject, "the subject names %s but the request %q is a %s", s.sub.Word, line, r.Kind)
	}
	id, err := strconv.ParseInt(s.c.trailer(ledger.TrailerBox), 10, 64)
	if err != nil {
		return refuse(SectionTrailers, "its %s is not a box id: %v", ledger.TrailerBox, err)
	}
	from := ledger.CommandOrigin{PR: s.sub.PR, Login: s.sub.By, CommentID: id, URL: s.c.trailer(ledger.TrailerDashboard), Dashboard: true}
	want, c, err := ledger.ApplyCommand(s.parent, r, from, time.Time{})
	if err != nil {
		return refuse(SectionRequests, "%v", err)
	}
	borrowTimes(want, s.parent, s.child)
	return one(want, c)
}

// withEntryPR is withPR for a command: the subject's pull request is the
// entry's own or, for a coordinated entry, one of its members' (a command
// on a leg's pull request is a request on the whole entry).
func withEntryPR(f func(s *step, p gatekeep.PR) []outcome) func(*step) []outcome {
	return func(s *step) []outcome {
		p, err := gatekeep.ParsePR(s.sub.PR.String(), "")
		if err != nil {
			return refuse(SectionSubject, "%v", err)
		}
		var prs []string
		if d := s.parent.Delivery; d != nil {
			refs := []ledger.PullRef{d.PR}
			for _, m := range d.Legs() {
				refs = append(refs, d.PerMember[m].PR)
			}
			for _, pr := range refs {
				if pr.IsZero() {
					continue
				}
				if pr == p.Ref() {
					return f(s, p)
				}
				prs = append(prs, pr.String())
			}
		}
		if len(prs) == 0 {
			return refuse(SectionSubject, "the subject names %s but the entry has no pull request", p)
		}
		return refuse(SectionSubject, "the subject names %s but the entry's pull requests are %s", p, strings.Join(prs, ", "))
	}
}
