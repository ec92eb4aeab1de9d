package reconcile

import (
	"context"
	"fmt"
	"slices"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/store"
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
// or the file has errors (noted once, since people must fix it).
func (p *passState) lessonsFor(e *entry, repo string, inPlay []string, what string) (*ledger.BriefLessons, error) {
	bl, bad, err := ReadLessons(p.ctx, p.Store, p.rep.Control, repo, inPlay, what)
	if bad {
		p.noteOnce(e.specPath, true, "%s has errors (gallivant check); its lessons are not carried until it passes", lessons.PathFor(repo))
	}
	return bl, err
}

// ReadLessons reads repo's lessons file from the control repository at
// commit at — never from a target repository — and selects the lessons
// that apply to inPlay; what says in words which files those are. It
// returns nil when there is no lessons file, and nil with bad set when the
// file has grammar errors, so that none of it is carried.
func ReadLessons(ctx context.Context, st *store.Store, at, repo string, inPlay []string, what string) (bl *ledger.BriefLessons, bad bool, err error) {
	file := lessons.PathFor(repo)
	data, ok, err := st.ReadFile(ctx, at, file)
	if err != nil {
		return nil, false, fmt.Errorf("read the lessons of %s: %w", repo, err)
	}
	if !ok {
		return nil, false, nil
	}
	f, ds := lessons.Parse(file, data)
	if ds.HasErrors() {
		return nil, true, nil
	}
	return &ledger.BriefLessons{Path: file, Repo: repo, Commit: at, Blob: plumbing.ComputeHash(plumbing.BlobObject, data).String(),
		InPlay: gatekeep.DescribeInPlay(what, inPlay), Applying: f.Match(inPlay), Total: len(f.Lessons)}, false, nil
}

// RowLessons are the lessons the brief of l's outstanding row or seed
// dispatch carries, read at control commit at: what `gallivant task`
// prints is what the executor hands its agent. bad reports a lessons file
// with errors.
func RowLessons(ctx context.Context, st *store.Store, at string, sp *specs.Spec, l *ledger.Ledger) (bl *ledger.BriefLessons, bad bool, err error) {
	repo, inPlay, what := gatekeep.RowInPlay(sp, l)
	return ReadLessons(ctx, st, at, repo, inPlay, what)
}

// carryLessons adds the Gallivant-Lessons trailer of bl to a dispatch's
// write-ahead commit — a row or seed dispatch, a rerun, a round or a
// verification repair — when bl carries any lesson. Any other commit (the stop a round
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

// withRowLessons adds to c, the write-ahead commit of n's dispatch or
// rerun, the trailer of the lessons its brief carries.
func (p *passState) withRowLessons(e *entry, n *ledger.Ledger, c *ledger.Commit) error {
	bl, err := p.rowLessons(e, n)
	if err != nil {
		return err
	}
	carryLessons(c, bl)
	return nil
}

// rowLessons are the lessons of the outstanding dispatch of l
// (gatekeep.RowInPlay).
func (p *passState) rowLessons(e *entry, l *ledger.Ledger) (*ledger.BriefLessons, error) {
	repo, inPlay, what := gatekeep.RowInPlay(e.spec, l)
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
	inPlay := append(slices.Clone(e.spec.Context), gatekeep.CommandFiles(command)...)
	return p.lessonsFor(e, repo, inPlay, "the failing command's files and the spec's context")
}
