package audit

import (
	"strconv"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// replayCommand proves a `loop: request <word> from <pr> by @<login>`
// commit: a request a person posted on the entry's own pull request,
// performed exactly as ledger.ApplyCommand performs it from the request
// line, pull request and comment id its trailers name. Who posted it and
// whether they may steer live on GitHub: the checker proves the change,
// not the permission (docs/verify.md).
func replayCommand(s *step) []outcome {
	if s.c.trailer(ledger.TrailerBox) != "" {
		return replayDashboardCommand(s)
	}
	return withPR(func(s *step, p gatekeep.PR) []outcome {
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
