package reconcile

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/lessons"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-git/v5/plumbing"
)

// Lessons in briefs (docs/learning.md): every brief for a target
// repository quotes the lessons of lessons/<owner>/<name>.md that apply to
// the files in play, and the write-ahead commit of its dispatch names the
// file version it carried (ledger.TrailerLessons). Lessons are read only
// from the control repository, at the commit this pass planned from: never
// from a target repository, a work branch or a pull request head.

// lessonsFor reads repo's lessons file at the pass's control commit and
// selects the lessons that apply to inPlay; what says in words which
// files those are. It returns nil when the repository has no lessons file
// or the file has errors (noted, since people must fix it).
func (p *passState) lessonsFor(e *entry, repo string, inPlay []string, what string) (*ledger.BriefLessons, error) {
	at := p.rep.Control
	file := lessons.PathFor(repo)
	data, ok, err := p.Store.ReadFile(at, file)
	if err != nil {
		return nil, fmt.Errorf("read the lessons of %s: %w", repo, err)
	}
	if !ok {
		return nil, nil
	}
	f, ds := lessons.Parse(file, data)
	if ds.HasErrors() {
		p.noteOnce(e.specPath, true, "%s has errors (gallivant check); its lessons are not carried until it passes", file)
		return nil, nil
	}
	return &ledger.BriefLessons{Path: file, Repo: repo, Commit: at, Blob: plumbing.ComputeHash(plumbing.BlobObject, data).String(),
		InPlay: describeInPlay(what, inPlay), Applying: f.Match(inPlay), Total: len(f.Lessons)}, nil
}

// carryLessons adds the Gallivant-Lessons trailer of bl to a dispatch's
// write-ahead commit — a row or seed dispatch, a round or a verification
// repair — when bl carries any lesson. Any other commit (the stop a round
// may become) carries none.
func carryLessons(c *ledger.Commit, bl *ledger.BriefLessons) {
	t, ok := bl.Trailer()
	if !ok {
		return
	}
	if s, err := ledger.ParseSubject(c.Subject); err != nil || !ledger.CarriesLessons(s.Kind) {
		return
	}
	c.Trailers = append(c.Trailers, t)
}

// rowLessons are the lessons of the outstanding dispatch of l: for a row,
// the files in play are the spec's `context:` paths, the criterion's
// `venue:` and the files the row's recorded evidence command reads; for a
// seed, the `context:` paths.
func (p *passState) rowLessons(e *entry, l *ledger.Ledger) (*ledger.BriefLessons, error) {
	pd := *l.Pending
	repo, _ := p.member(e, pd.Member)
	inPlay := slices.Clone(e.spec.Context)
	what := "the spec's context"
	if pd.Target != ledger.SeedTarget {
		what = fmt.Sprintf("row %d's context, venue and evidence", pd.Target)
		for _, ac := range e.spec.ACs {
			if ac.N == l.ACOf(pd.Target) && ac.Disposition.Kind == specs.DispVenue {
				inPlay = append(inPlay, ac.Disposition.Text)
			}
		}
		if r, ok := l.Row(pd.Target); ok {
			inPlay = append(inPlay, commandFiles(ledger.EvidenceCommand(r.Evidence))...)
		}
	}
	return p.lessonsFor(e, repo, inPlay, what)
}

// roundLessons are the lessons of a review/fix round: the files in play
// are the pull request's changed files and the spec's `context:` paths.
func (p *passState) roundLessons(e *entry, pr gatekeep.PR, d gatekeep.Digest) (*ledger.BriefLessons, error) {
	inPlay := append(slices.Clone(e.spec.Context), d.Files...)
	what := "the pull request's changed files and the spec's context"
	if !d.FilesKnown {
		what = "the spec's context; the pull request's changed files could not be read"
	}
	return p.lessonsFor(e, pr.Repo, inPlay, what)
}

// repairLessons are the lessons of a verification repair: the files in
// play are those the failing command reads and the spec's `context:`.
func (p *passState) repairLessons(e *entry, repo, command string) (*ledger.BriefLessons, error) {
	inPlay := append(slices.Clone(e.spec.Context), commandFiles(command)...)
	return p.lessonsFor(e, repo, inPlay, "the failing command's files and the spec's context")
}

// commandFiles are the paths an evidence or verification command reads,
// as gatekeep.FilesOf reads them off it; its trees are directories. The
// whole repository (".") is in play for a command that reads it all.
func commandFiles(cmd string) []string {
	rf, ok := gatekeep.FilesOf(cmd)
	if !ok {
		return nil
	}
	out := slices.Clone(rf.Files)
	for _, t := range rf.Trees {
		if t == "" {
			t = "."
		}
		out = append(out, path.Clean(t)+"/")
	}
	return out
}

// describeInPlay names the files in play for the brief, bounded.
func describeInPlay(what string, inPlay []string) string {
	if len(inPlay) == 0 {
		return what + ": none, so only lessons without a scope apply"
	}
	shown := inPlay
	more := ""
	if len(shown) > 8 {
		shown, more = shown[:8], fmt.Sprintf(" and %d more", len(inPlay)-8)
	}
	var qs []string
	for _, f := range shown {
		qs = append(qs, "`"+strings.ReplaceAll(oneLineText(f), "`", "'")+"`")
	}
	return what + ": " + strings.Join(qs, ", ") + more
}

// oneLineText keeps a path on one line, bounded, for a brief's prose.
func oneLineText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
