package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// This file is the one vocabulary of `loop:` commit subjects: every subject
// gallivant writes is built by Subject.String and every subject it reads
// back is parsed by ParseSubject, both driven by the same grammar table, so
// a subject cannot be written in one form and read in another
// (docs/ledger.md "Transition subjects").

// SubjectPrefix starts every transition subject.
const SubjectPrefix = "loop: "

// Kind is the closed vocabulary of transition kinds: one per form of
// `loop:` subject (the row-loop, the pull-request loop, requests, and an
// agent's result commit).
type Kind string

// Transition kinds. The value is the subject's fixed words, so that it
// reads in a metric label or a log line as the subject does.
const (
	KindSeedLedger         Kind = "seed ledger"
	KindDispatch           Kind = "dispatch"
	KindRecord             Kind = "record"
	KindRepair             Kind = "repair row"
	KindRetry              Kind = "retry row"
	KindRaiseAllowance     Kind = "raise allowance"
	KindReopenRow          Kind = "reopen row"
	KindResume             Kind = "resume"
	KindEscalate           Kind = "escalate row"
	KindStop               Kind = "stop"
	KindMigrateAllowance   Kind = "migrate allowance"
	KindAmend              Kind = "amend"
	KindCutRow             Kind = "cut row"
	KindRerun              Kind = "rerun"
	KindWithdraw           Kind = "withdraw"
	KindVerify             Kind = "verify"
	KindRepairVerification Kind = "repair verification"
	KindOpenPR             Kind = "open pr"
	KindDone               Kind = "done"
	KindFollow             Kind = "follow"
	KindReadyForReview     Kind = "ready for review"
	KindMergeBase          Kind = "merge base"
	KindUnready            Kind = "unready"
	KindReady              Kind = "ready"
	KindAnnounced          Kind = "announced"
	KindIgnore             Kind = "ignore"
	KindRound              Kind = "round"
	KindPushedRound        Kind = "pushed round"
	KindEmptyRound         Kind = "empty round"
	KindNudge              Kind = "nudge"
	KindReopenPR           Kind = "reopen"
	KindReplacePR          Kind = "replace pr"
	KindWriteFailed        Kind = "write failed"
	KindWriteLanded        Kind = "write landed"
	KindAccept             Kind = "accept"
	KindRaiseBudget        Kind = "raise budget"
	KindNotify             Kind = "notify"
	// KindRowResult is an agent's result commit, `loop: row <n> done` or
	// `loop: row <n> failed` (docs/agents.md); the reconciler records it
	// with a `loop: record` transition.
	KindRowResult Kind = "row"
	// KindSeedEvidence is a seeding agent's result commit.
	KindSeedEvidence Kind = "seed evidence"
	// KindRequest performs a request a person posted on a pull request
	// (docs/requests.md): `loop: request retry from acme/api#1 by @bob`.
	KindRequest Kind = "request"
	// KindAdopt seeds the ledger of a spec that adopts an existing pull
	// request (`pr:`) against that pull request's head: `loop: adopt
	// acme/api#12`.
	KindAdopt Kind = "adopt"
	// KindDispatchTask writes a plan task's dispatch ahead of its agent
	// run, and KindRecordTask records its return (docs/plans.md "Wave
	// execution"): `loop: dispatch task T002`, `loop: record task T002 done`.
	KindDispatchTask Kind = "dispatch task"
	KindRecordTask   Kind = "record task"
	// KindWithdrawTask takes back a task's dispatch whose agent could not
	// run in its environment (ledger.WithdrawTask): `loop: withdraw task
	// T002`.
	KindWithdrawTask Kind = "withdraw task"
	// KindTaskResult is an agent's result commit for a plan task, `loop:
	// task <id> done` or `loop: task <id> failed` (docs/plans.md "Wave
	// execution"); the reconciler records it with `loop: record task`.
	KindTaskResult Kind = "task"
	// KindCloseRows closes rows by their evidence replayed after a waves
	// spec's last wave (ledger.CloseByReplay).
	KindCloseRows Kind = "close rows by replay"
	// The learn task of a done entry (docs/learning.md "The learn task"):
	// KindLearn writes its dispatch ahead of the agent run, naming the
	// delivered pull request; KindProposeLessons records the lessons pull
	// request opened on the control repository, KindNoLessons a return
	// that proposed nothing and KindRefuseLessons one that broke the
	// learn contract; KindLessonsMerged and KindLessonsDeclined record a
	// person's merge or close of the proposal.
	KindLearn           Kind = "learn"
	KindProposeLessons  Kind = "propose lessons"
	KindNoLessons       Kind = "no lessons"
	KindRefuseLessons   Kind = "refuse lessons"
	KindLessonsMerged   Kind = "lessons merged"
	KindLessonsDeclined Kind = "lessons declined"
)

// Writes the subject vocabulary spells specially: `announced round <n>`
// and `announced ready`. They are gatekeep's write names (gatekeep.Write).
const (
	WriteNameRoundComment = "round-comment"
	WriteNameReadyComment = "ready-comment"
)

// PullRef names one pull request in a subject: `owner/name#N`.
type PullRef struct {
	Repo   string
	Number int
}

// String renders the reference as `owner/name#N`.
func (p PullRef) String() string { return p.Repo + "#" + strconv.Itoa(p.Number) }

// IsZero reports whether the reference names no pull request.
func (p PullRef) IsZero() bool { return p == PullRef{} }

// ParsePullRef reads `owner/name#N` as a subject writes it.
func ParsePullRef(s string) (PullRef, error) {
	i := strings.LastIndexByte(s, '#')
	if i <= 0 || strings.ContainsAny(s, " \t\r\n") {
		return PullRef{}, fmt.Errorf("%q is not a pull request: want owner/name#N, e.g. acme/api#12", s)
	}
	n, err := positive(s[i+1:])
	if err != nil {
		return PullRef{}, fmt.Errorf("%q is not a pull request: %w", s, err)
	}
	return PullRef{Repo: s[:i], Number: n}, nil
}

// Subject is one transition subject as a typed value. Only the fields its
// Kind's form names are set; the others are zero.
type Subject struct {
	Kind Kind
	// Row is the row a row transition names; SeedTarget (0) is the seed
	// for the kinds whose form is `seed` or `row <n>` (dispatch, record,
	// rerun).
	Row int
	// Member is the member a `record` names.
	Member string
	// Round is the review round of a round transition or an announced
	// round comment.
	Round int
	// PR is the pull request a pull-request transition names.
	PR PullRef
	// Write is the GitHub write of `write failed`, `write landed` and
	// `announced` (WriteNameRoundComment, WriteNameReadyComment or any
	// other write name).
	Write string
	// Reason is a stop's reason. ParseSubject accepts any one-word reason
	// so that a checker can name an unknown one; StopReason.Known decides.
	Reason StopReason
	// Status is a row result's status: Done or Failed.
	Status Status
	// Leg is the member of a coordinated entry a leg's transition without
	// a pull request acted on: the subject ends in ` leg <name>`.
	Leg string
	// Word is a `request` subject's request word (RequestKind.String, or
	// pause/unpause); By is the login that posted it, without the `@`.
	Word, By string
	// Task is the plan task a task transition names (ValidTaskID).
	Task string
}

// form is one subject form: its kind and its words, where `<row>`,
// `<target>` (seed or row <n>), `<member>`, `<round>`, `<pr>`, `<write>`,
// `<reason>`, `<status>` and `<task>` are the subject's values.
type form struct {
	kind  Kind
	words []string
}

// forms is the grammar of transition subjects (docs/ledger.md "Transition subjects"), in
// the order parsing tries them. A kind with two forms lists the fuller one
// first where the value decides (done with or without a pull request,
// announced with a round).
var forms = func() []form {
	src := []struct {
		k Kind
		s string
	}{
		{KindSeedLedger, "seed ledger"},
		{KindAdopt, "adopt <pr>"},
		{KindDispatch, "dispatch <target>"},
		{KindRecord, "record <member> <target>"},
		{KindRepair, "repair row <row>"},
		{KindRetry, "retry row <row>"},
		{KindRaiseAllowance, "raise allowance"},
		{KindReopenRow, "reopen row <row>"},
		{KindResume, "resume"},
		{KindEscalate, "escalate row <row>"},
		{KindStop, "stop <reason>"},
		{KindMigrateAllowance, "migrate allowance"},
		{KindAmend, "amend"},
		{KindCutRow, "cut row <row>"},
		{KindRerun, "rerun <target>"},
		{KindWithdraw, "withdraw <target>"},
		{KindVerify, "verify"},
		{KindRepairVerification, "repair verification"},
		{KindOpenPR, "open pr <pr>"},
		{KindDone, "done <pr>"},
		{KindDone, "done"},
		{KindFollow, "follow <pr>"},
		{KindReadyForReview, "ready for review <pr>"},
		{KindMergeBase, "merge base <pr>"},
		{KindUnready, "unready <pr>"},
		{KindReady, "ready <pr>"},
		{KindAnnounced, "announced round <round> <pr>"},
		{KindAnnounced, "announced ready <pr>"},
		{KindAnnounced, "announced <write> <pr>"},
		{KindIgnore, "ignore <pr>"},
		{KindRound, "round <round> <pr>"},
		{KindPushedRound, "pushed round <round> <pr>"},
		{KindEmptyRound, "empty round <round> <pr>"},
		{KindNudge, "nudge <pr>"},
		{KindReopenPR, "reopen <pr>"},
		{KindReplacePR, "replace pr <pr>"},
		{KindWriteFailed, "write failed <write>"},
		{KindWriteLanded, "write landed <write>"},
		{KindAccept, "accept"},
		{KindRaiseBudget, "raise budget"},
		{KindNotify, "notify"},
		{KindRowResult, "row <row> <status>"},
		{KindSeedEvidence, "seed evidence"},
		{KindRequest, "request <word> from <pr> by <login>"},
		{KindDispatchTask, "dispatch task <task>"},
		{KindRecordTask, "record task <task> <status>"},
		{KindWithdrawTask, "withdraw task <task>"},
		{KindTaskResult, "task <task> <status>"},
		{KindCloseRows, "close rows by replay"},
		{KindLearn, "learn <pr>"},
		{KindProposeLessons, "propose lessons <pr>"},
		{KindNoLessons, "no lessons <pr>"},
		{KindRefuseLessons, "refuse lessons <pr>"},
		{KindLessonsMerged, "lessons merged <pr>"},
		{KindLessonsDeclined, "lessons declined <pr>"},
	}
	out := make([]form, len(src))
	for i, f := range src {
		out[i] = form{kind: f.k, words: strings.Fields(f.s)}
	}
	return out
}()

// Known reports whether k is a transition kind.
func (k Kind) Known() bool {
	for _, f := range forms {
		if f.kind == k {
			return true
		}
	}
	return false
}

// takesLeg reports whether a subject of this form may end in ` leg
// <name>`: a leg's transition that names no pull request does; a stop and a
// resume are the entry's own (their detail names the leg).
func (f form) takesLeg() bool {
	if f.kind == KindStop || f.kind == KindResume {
		return false
	}
	for _, w := range f.words {
		if w == "<pr>" {
			return false
		}
	}
	return true
}

// String renders the subject, `loop: ` included. A Subject that fits no form
// of its kind renders as its kind's first form with the values it has, and
// ParseSubject of that string reports what is missing.
func (s Subject) String() string {
	f := s.form()
	var b strings.Builder
	b.WriteString(SubjectPrefix)
	for i, w := range f.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch w {
		case "<row>":
			b.WriteString(strconv.Itoa(s.Row))
		case "<target>":
			if s.Row == SeedTarget {
				b.WriteString("seed")
			} else {
				b.WriteString("row " + strconv.Itoa(s.Row))
			}
		case "<member>":
			b.WriteString(s.Member)
		case "<round>":
			b.WriteString(strconv.Itoa(s.Round))
		case "<pr>":
			b.WriteString(s.PR.String())
		case "<write>":
			b.WriteString(s.Write)
		case "<reason>":
			b.WriteString(string(s.Reason))
		case "<status>":
			b.WriteString(string(s.Status))
		case "<word>":
			b.WriteString(s.Word)
		case "<login>":
			b.WriteString("@" + s.By)
		case "<task>":
			b.WriteString(s.Task)
		default:
			b.WriteString(w)
		}
	}
	if s.Leg != "" && f.takesLeg() {
		b.WriteString(" leg " + s.Leg)
	}
	return b.String()
}

// form picks the form of the subject's kind its values call for.
func (s Subject) form() form {
	var first *form
	for i := range forms {
		f := &forms[i]
		if f.kind != s.Kind {
			continue
		}
		if first == nil {
			first = f
		}
		switch {
		case s.Kind == KindDone && s.PR.IsZero() && f.has("<pr>"):
			continue
		case s.Kind == KindAnnounced && f.words[1] == "round" && s.Write != WriteNameRoundComment:
			continue
		case s.Kind == KindAnnounced && f.words[1] == "ready" && s.Write != WriteNameReadyComment:
			continue
		}
		return *f
	}
	if first == nil {
		return form{kind: s.Kind, words: strings.Fields(string(s.Kind))}
	}
	return *first
}

func (f form) has(word string) bool {
	for _, w := range f.words {
		if w == word {
			return true
		}
	}
	return false
}

// SubjectError is a subject that is not in the vocabulary.
type SubjectError struct {
	Subject string
	Reason  string
}

func (e *SubjectError) Error() string {
	return fmt.Sprintf("subject %s is not a transition: %s", quote(e.Subject), e.Reason)
}

// maxSubject bounds the subject ParseSubject reads; a longer one is refused
// before it is split.
const maxSubject = 512

// ParseSubject reads a `loop:` subject into its typed value. It never
// panics; an error is a *SubjectError that quotes the subject (bounded)
// and says what was expected.
func ParseSubject(subject string) (Subject, error) {
	bad := func(format string, args ...any) (Subject, error) {
		return Subject{}, &SubjectError{Subject: subject, Reason: fmt.Sprintf(format, args...)}
	}
	if len(subject) > maxSubject {
		return bad("it is %d bytes; a subject is at most %d", len(subject), maxSubject)
	}
	rest, ok := strings.CutPrefix(subject, SubjectPrefix)
	if !ok {
		return bad("it does not start with %q", SubjectPrefix)
	}
	words := strings.Split(rest, " ")
	for _, w := range words {
		if w == "" || strings.ContainsAny(w, "\t\r\n") {
			return bad("words are separated by single spaces, e.g. `loop: retry row 3`")
		}
	}
	var leg string
	if n := len(words); n >= 3 && words[n-2] == "leg" {
		leg, words = words[n-1], words[:n-2]
	}
	for _, f := range forms {
		if s, ok := f.match(words); ok {
			if leg != "" {
				if !f.takesLeg() {
					continue
				}
				s.Leg = leg
			}
			return s, nil
		}
	}
	if leg != "" {
		// A subject may also end in words that look like a leg suffix
		// without being one; try it whole.
		words = append(words, "leg", leg)
		for _, f := range forms {
			if s, ok := f.match(words); ok {
				return s, nil
			}
		}
	}
	return bad("expected one of the forms of docs/ledger.md, e.g. `loop: stop checks-red` or `loop: round 2 acme/api#12`")
}

// match reads words as this form, or reports that they are not.
func (f form) match(words []string) (Subject, bool) {
	s := Subject{Kind: f.kind}
	i := 0
	for _, w := range f.words {
		if i >= len(words) {
			return Subject{}, false
		}
		read, isSlot := slots[w]
		if !isSlot {
			if words[i] != w {
				return Subject{}, false
			}
			i++
			continue
		}
		n, ok := read(f, &s, words[i:])
		if !ok {
			return Subject{}, false
		}
		i += n
	}
	if i != len(words) {
		return Subject{}, false
	}
	switch {
	case f.kind == KindAnnounced && f.words[1] == "round":
		s.Write = WriteNameRoundComment
	case f.kind == KindAnnounced && f.words[1] == "ready":
		s.Write = WriteNameReadyComment
	}
	return s, true
}

// slots read each value of a form (`<row>`, `<target>` …) from the
// subject's words at that place into s: how many words it took (only
// `<target>`, as `row <n>`, takes two), or false when they are not one.
var slots = map[string]func(f form, s *Subject, words []string) (int, bool){
	"<row>": func(_ form, s *Subject, words []string) (int, bool) {
		return number(&s.Row, words[0])
	},
	"<target>": func(_ form, s *Subject, words []string) (int, bool) {
		switch {
		case words[0] == "seed":
			s.Row = SeedTarget
			return 1, true
		case words[0] == "row" && len(words) > 1:
			n, ok := number(&s.Row, words[1])
			return n + 1, ok
		}
		return 0, false
	},
	"<member>": func(_ form, s *Subject, words []string) (int, bool) {
		s.Member = words[0]
		return 1, true
	},
	"<round>": func(_ form, s *Subject, words []string) (int, bool) {
		return number(&s.Round, words[0])
	},
	"<pr>": func(_ form, s *Subject, words []string) (int, bool) {
		pr, err := ParsePullRef(words[0])
		s.PR = pr
		return 1, err == nil
	},
	"<write>": func(f form, s *Subject, words []string) (int, bool) {
		got := words[0]
		if f.kind == KindAnnounced && (got == "round" || got == "ready" || got == WriteNameRoundComment || got == WriteNameReadyComment) {
			// Spelled by their own forms.
			return 0, false
		}
		s.Write = got
		return 1, true
	},
	"<reason>": func(_ form, s *Subject, words []string) (int, bool) {
		s.Reason = StopReason(words[0])
		return 1, true
	},
	"<status>": func(_ form, s *Subject, words []string) (int, bool) {
		if words[0] != string(Done) && words[0] != string(Failed) {
			return 0, false
		}
		s.Status = Status(words[0])
		return 1, true
	},
	"<word>": func(_ form, s *Subject, words []string) (int, bool) {
		if !RequestWord(words[0]) {
			return 0, false
		}
		s.Word = words[0]
		return 1, true
	},
	"<task>": func(_ form, s *Subject, words []string) (int, bool) {
		if !ValidTaskID(words[0]) {
			return 0, false
		}
		s.Task = words[0]
		return 1, true
	},
	"<login>": func(_ form, s *Subject, words []string) (int, bool) {
		login, ok := strings.CutPrefix(words[0], "@")
		if !ok || !validLogin(login) {
			return 0, false
		}
		s.By = login
		return 1, true
	},
}

// number reads the one word w, a number from 1, into dst: it takes one
// word, or reports that w is not a number.
func number(dst *int, w string) (int, bool) {
	n, err := positive(w)
	if err != nil {
		return 0, false
	}
	*dst = n
	return 1, true
}

// positive reads a number from 1 as a subject writes it: no sign, no
// leading zero, at most nine digits.
func positive(s string) (int, error) {
	if s == "" || len(s) > 9 || s[0] < '1' || s[0] > '9' {
		return 0, fmt.Errorf("%q is not a number from 1 (at most nine digits)", s)
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a number from 1 (at most nine digits)", s)
		}
	}
	return strconv.Atoi(s)
}

// RowResultTemplate is the subject an agent's brief shows for its result
// commit on row n: `loop: row <n> <done or failed>`.
func RowResultTemplate(n int) string {
	return Subject{Kind: KindRowResult, Row: n, Status: "<done or failed>"}.String()
}

// LoopAuthored reports whether a commit subject speaks as the reconciler:
// it starts with `loop:`. Such a commit must be a transition the checker
// can replay; any other commit is a person's.
func LoopAuthored(subject string) bool { return strings.HasPrefix(subject, "loop:") }

// Label is the kind's first word, as a metric label or a short listing
// names a transition: `ready` for both `ready` and `ready for review`,
// `reopen` for a row and a pull request.
func (k Kind) Label() string {
	w, _, _ := strings.Cut(string(k), " ")
	return w
}
