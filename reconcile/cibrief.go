package reconcile

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/ledger"
)

// Caps on what a round brief quotes of one failing check, in characters.
const (
	ciDescriptionCap = 1000
	ciOutputCap      = 4000
	ciLogCap         = 6000
)

// ciSection is the round brief's account of why CI is red on the round's
// head: for each failing check, its description and URL, its check run
// output and the tail of its Actions job log, each capped and quoted as
// data. It asks GitHub only when the head has a failing check; a read that
// fails leaves a line saying so, never a round without its brief.
func (p *passState) ciSection(ctx context.Context, e *entry, pr gatekeep.PR, d gatekeep.Digest) string {
	red := false
	for _, c := range d.Checks {
		red = red || c.Outcome() == "failing"
	}
	if !red {
		return ""
	}
	fs, err := p.GitHub.CIFailures(ctx, pr.Repo, d.HeadSHA)
	if err != nil {
		return fmt.Sprintf("\n## Why CI is red\n\ngallivant could not read the failing checks' details on `%s`: %s. Open the checks on the pull request.\n", short(d.HeadSHA), oneLine(err.Error()))
	}
	return CISection(short(d.HeadSHA), fs)
}

// CISection renders failing checks for a round brief (see ciSection).
func CISection(head string, fs []githubapi.CIFailure) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Why CI is red on `%s` (quoted data)\n", head)
	for i, f := range fs {
		fmt.Fprintf(&b, "\n### %d. %s %q: %s\n\n", i+1, kindWord(f.Kind), oneLine(f.Name), oneLine(f.Conclusion))
		var facts []string
		if f.Description != "" {
			facts = append(facts, "description: "+capText(oneLine(f.Description), ciDescriptionCap))
		}
		if f.URL != "" {
			facts = append(facts, "url: "+oneLine(f.URL))
		}
		if f.Title != "" {
			facts = append(facts, "title: "+capText(oneLine(f.Title), ciDescriptionCap))
		}
		if len(facts) > 0 {
			ledger.Fence(&b, "text", strings.Join(facts, "\n"))
		}
		for _, part := range []struct{ name, text string }{{"Summary", f.Summary}, {"Details", f.Text}} {
			if strings.TrimSpace(part.text) != "" {
				fmt.Fprintf(&b, "\n%s:\n\n", part.name)
				ledger.Fence(&b, "text", capText(plain(part.text), ciOutputCap))
			}
		}
		switch {
		case f.LogTail != "":
			fmt.Fprintf(&b, "\nThe end of the job's log (at most %d lines):\n\n", githubapi.LogTailLines)
			ledger.Fence(&b, "text", capTail(plain(f.LogTail), ciLogCap))
		case f.LogProblem != "":
			fmt.Fprintf(&b, "\nThe job's log could not be read: %s.\n", capText(oneLine(f.LogProblem), ciDescriptionCap))
		}
	}
	return b.String()
}

func kindWord(kind string) string {
	if kind == gatekeep.KindStatus {
		return "status"
	}
	return "check"
}

// ansiRE matches a terminal colour or cursor sequence.
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]")

// plain drops terminal sequences and control characters other than newline and tab from
// untrusted multi-line text (terminal colour codes in a log), and the
// carriage returns of CRLF lines.
func plain(s string) string {
	s = ansiRE.ReplaceAllString(strings.ReplaceAll(s, "\r\n", "\n"), "")
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s)
}

// capText keeps the first max characters of s, saying how much was cut.
func capText(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + fmt.Sprintf("\n… (%d more characters cut)", len(r)-max)
}

// capTail keeps the last max characters of s: a log's end is its news.
func capTail(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return fmt.Sprintf("(%d earlier characters cut) …\n", len(r)-max) + string(r[len(r)-max:])
}
