package gatekeep

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// The files in play of a brief: what the lessons of a target repository
// are matched against (docs/learning.md).

// RowInPlay is the target repository and the files in play of l's
// outstanding dispatch: for a row, the spec's `context:` paths, the
// criterion's `venue:` and the files the row's recorded evidence command
// reads; for a seed, the `context:` paths.
func RowInPlay(sp *specs.Spec, l *ledger.Ledger) (repo string, inPlay []string, what string) {
	pd := *l.Pending
	repo, _ = sp.MemberRepo(pd.Member)
	inPlay = slices.Clone(sp.Context)
	what = "the spec's context"
	if pd.Target != ledger.SeedTarget {
		what = fmt.Sprintf("row %d's context, venue and evidence", pd.Target)
		for _, ac := range sp.ACs {
			if ac.N == l.ACOf(pd.Target) && ac.Disposition.Kind == specs.DispVenue {
				inPlay = append(inPlay, ac.Disposition.Text)
			}
		}
		if r, ok := l.Row(pd.Target); ok {
			inPlay = append(inPlay, CommandFiles(ledger.EvidenceCommand(r.Evidence))...)
		}
	}
	return repo, inPlay, what
}

// CommandFiles are the paths an evidence or verification command reads,
// as FilesOf reads them off it; its trees are directories. The
// whole repository (".") is in play for a command that reads it all.
func CommandFiles(cmd string) []string {
	rf, ok := FilesOf(cmd)
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

// DescribeInPlay names the files in play for the brief, bounded.
func DescribeInPlay(what string, inPlay []string) string {
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
		qs = append(qs, "`"+strings.ReplaceAll(oneLine(f), "`", "'")+"`")
	}
	return what + ": " + strings.Join(qs, ", ") + more
}
