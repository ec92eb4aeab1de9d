package gatekeep

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// PR names one pull request.
type PR struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
}

func (p PR) String() string { return p.Repo + "#" + strconv.Itoa(p.Number) }

// Ref is the pull request as a transition subject names it.
func (p PR) Ref() ledger.PullRef { return ledger.PullRef{Repo: p.Repo, Number: p.Number} }

var (
	refRE    = regexp.MustCompile(`^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})$`)
	numberRE = regexp.MustCompile(`^#?([1-9][0-9]{0,9})$`)
	urlPath  = regexp.MustCompile(`^/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/pull/([1-9][0-9]{0,9})(/[a-z]*)?/?$`)
)

// ParsePR reads `owner/name#N`, `#N` or `N` (with defaultRepo), or a pull
// request URL (`https://host/owner/name/pull/N`).
func ParsePR(s, defaultRepo string) (PR, error) {
	if m := refRE.FindStringSubmatch(s); m != nil && specs.ValidRepo(m[1]) {
		n, _ := strconv.Atoi(m[2])
		return PR{Repo: m[1], Number: n}, nil
	}
	if m := numberRE.FindStringSubmatch(s); m != nil {
		if defaultRepo == "" {
			return PR{}, fmt.Errorf("%s names no repository: use owner/name#N, a pull request URL, or --repo", s)
		}
		n, _ := strconv.Atoi(m[1])
		return PR{Repo: defaultRepo, Number: n}, nil
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		if m := urlPath.FindStringSubmatch(u.Path); m != nil && specs.ValidRepo(m[1]+"/"+m[2]) {
			n, _ := strconv.Atoi(m[3])
			return PR{Repo: m[1] + "/" + m[2], Number: n}, nil
		}
	}
	return PR{}, fmt.Errorf("%q is not a pull request: use owner/name#N, #N with --repo, or a pull request URL", s)
}

// AdmitLegs parses a set of pull request arguments and refuses, before any
// request is made (G-91, G-92): an unreadable argument, duplicates (a number
// and a URL of the same pull request), more than max, and pull requests of
// different repositories unless legs says they are legs of one coordinated
// delivery (recorded in one ledger of the control repository at hand, so
// the answer needs no request to GitHub). A nil legs admits none.
func AdmitLegs(args []string, defaultRepo string, max int, legs func(a, b PR) bool) ([]PR, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("name at least one pull request")
	}
	if len(args) > max {
		return nil, fmt.Errorf("gatekeep takes at most %d PRs (gatekeep.max_prs); got %d", max, len(args))
	}
	var out []PR
	seen := map[PR]string{}
	for _, a := range args {
		p, err := ParsePR(a, defaultRepo)
		if err != nil {
			return nil, err
		}
		key := PR{Repo: strings.ToLower(p.Repo), Number: p.Number}
		if prev, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s and %s are the same pull request (%s); name each once", prev, a, p)
		}
		seen[key] = a
		if len(out) > 0 && !strings.EqualFold(out[0].Repo, p.Repo) && (legs == nil || !legs(out[0], p)) {
			return nil, fmt.Errorf("%s and %s are in different repositories; gatekeep judges pull requests of one repository at a time", out[0], p)
		}
		out = append(out, p)
	}
	return out, nil
}

// Judged is one pull request's result in a batch: its digest and verdict,
// or the error that kept it from being judged.
type Judged struct {
	PR      PR
	Digest  *Digest
	Verdict *Verdict
	Err     error
}

// Summary renders the batch summary (G-102, G-103): one line per pull
// request in input order, then `Shared files:`.
// Pull requests of several repositories (a coordinated delivery's legs) are
// named owner/name#N, and a shared file is a path two of them change: the
// surface the legs must agree on.
func Summary(js []Judged) string {
	var b strings.Builder
	ref := func(pr PR) string { return "#" + strconv.Itoa(pr.Number) }
	for _, j := range js {
		if !strings.EqualFold(j.PR.Repo, js[0].PR.Repo) {
			ref = func(pr PR) string { return pr.String() }
		}
	}
	for _, j := range js {
		if j.Err != nil {
			fmt.Fprintf(&b, "%s failed - %s | evidence: unknown | blockers: unknown\n", ref(j.PR), firstLine(j.Err.Error()))
			continue
		}
		fmt.Fprintf(&b, "%s %s | evidence: %s | blockers: %s\n", ref(j.PR), j.Verdict.Line(), j.Verdict.Evidence, j.Verdict.BlockersString())
	}
	b.WriteString("Shared files:\n")
	owners := map[string][]string{}
	var unknown []string
	for _, j := range js {
		if j.Digest == nil || !j.Digest.FilesKnown {
			unknown = append(unknown, ref(j.PR))
			continue
		}
		for _, f := range dedupe(j.Digest.Files) {
			owners[f] = append(owners[f], ref(j.PR))
		}
	}
	var shared []string
	for f, ns := range owners {
		if len(ns) > 1 {
			shared = append(shared, f)
		}
	}
	sort.Strings(shared)
	for _, f := range shared {
		fmt.Fprintf(&b, "%s - %s\n", f, strings.Join(owners[f], ", "))
	}
	for _, n := range unknown {
		fmt.Fprintf(&b, "%s - files unknown\n", n)
	}
	if len(shared) == 0 && len(unknown) == 0 {
		b.WriteString("none\n")
	}
	return b.String()
}

func dedupe(fs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// maxQuote bounds how much of one untrusted text a report quotes.
const maxQuote = 2000

// Quote renders untrusted text as a markdown block quote: every line
// prefixed, control characters dropped, long text cut with a note. It is
// data, never markup a reader should follow.
func Quote(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	cut := false
	if len(text) > maxQuote {
		text, cut = strings.ToValidUTF8(text[:maxQuote], ""), true
	}
	text = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || (r >= 0x20 && r != 0x7f && (r < 0x80 || r >= 0xa0)) {
			return r
		}
		return -1
	}, strings.TrimSpace(text))
	if text == "" {
		return "> (no text)"
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	if cut {
		lines = append(lines, fmt.Sprintf("> … (cut at %d bytes)", maxQuote))
	}
	return strings.Join(lines, "\n")
}

// Report renders the markdown report of one pull request, bottom-up (G-26):
// what it delivers, checks, comments, nits, blockers, and the verdict last.
func Report(d Digest, v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", d.Ref())
	fmt.Fprintf(&b, "- title: %s\n", strconv.Quote(d.Title))
	fmt.Fprintf(&b, "- head: %s at %s; base: %s at %s\n", d.HeadRef, short(d.HeadSHA), d.BaseRef, short(d.BaseSHA))
	fmt.Fprintf(&b, "- state: %s\n", stateLine(d))
	b.WriteString("\n## Delivers\n\n")
	if d.FilesKnown {
		fmt.Fprintf(&b, "- %s changed\n", plural(len(dedupe(d.Files)), "file", "files"))
	} else {
		b.WriteString("- files unknown\n")
	}
	writeReceipt(&b, d)
	writeGate(&b, v)
	writeChecks(&b, d, v)
	writeFindings(&b, "Comments", "none new", filter(v.Findings, func(f Finding) bool { return f.Source == SourceComment }))
	writeFindings(&b, "Nits", "none", v.Nits)
	writeBlockers(&b, v)
	b.WriteString("\n## Verdict\n\n")
	b.WriteString(v.Line() + "\n")
	if v.Kind == Waiting {
		for _, w := range v.WaitsFor {
			fmt.Fprintf(&b, "- waits for %s\n", w)
		}
	}
	return b.String()
}

// writeReceipt writes the report's lines about the body's receipt: how many
// criteria are done, cut and open, each cut one's disposition, and
// gallivant's own evidence runs and verification.
func writeReceipt(b *strings.Builder, d Digest) {
	rc, err := ParseReceipt(d.Body)
	if err != nil {
		b.WriteString("- no gallivant receipt\n")
		return
	}
	var verify *ReceiptLine
	if n := len(rc); n > 0 && rc[n-1].AC == VerifyLine {
		verify, rc = &rc[n-1], rc[:n-1]
	}
	var proofs []ReceiptLine
	for len(rc) > 0 && rc[len(rc)-1].AC == ProofLine {
		proofs, rc = append([]ReceiptLine{rc[len(rc)-1]}, proofs...), rc[:len(rc)-1]
	}
	done, cut := 0, 0
	for _, l := range rc {
		switch l.Status {
		case "done":
			done++
		case "cut":
			cut++
		}
	}
	fmt.Fprintf(b, "- receipt: %s: %d done, %d cut, %d open\n", plural(len(rc), "acceptance criterion", "acceptance criteria"), done, cut, len(rc)-done-cut)
	for _, l := range rc {
		if l.Status == "cut" {
			fmt.Fprintf(b, "- AC %d is cut: %s\n", l.AC, strconv.Quote(l.Evidence))
		}
	}
	for _, p := range proofs {
		fmt.Fprintf(b, "- evidence run by gallivant: %s, %s\n", p.Status, strconv.Quote(p.Evidence))
	}
	if verify != nil {
		fmt.Fprintf(b, "- verification by gallivant: %s, %s\n", verify.Status, strconv.Quote(verify.Evidence))
	}
}

// writeGate writes the completion gate's outcome: not run, passed, or each
// problem with its rule.
func writeGate(b *strings.Builder, v Verdict) {
	switch {
	case !v.GateRun:
		b.WriteString("- completion gate: not run (no gallivant identity, or no control repository at hand)\n")
	case len(v.Gate) == 0:
		b.WriteString("- completion gate: passed\n")
	default:
		for _, p := range v.Gate {
			fmt.Fprintf(b, "- completion gate (%s): %s\n", p.Rule, p.Message)
		}
	}
}

// writeChecks writes the report's checks section: failing, waited for, not
// waited for and passing checks, in that order.
func writeChecks(b *strings.Builder, d Digest, v Verdict) {
	fmt.Fprintf(b, "\n## Checks (evidence: %s)\n\n", v.Evidence)
	if !d.ChecksKnown {
		b.WriteString("- unreadable\n")
	} else if len(d.Checks) == 0 {
		b.WriteString("- none on the head\n")
	}
	for _, group := range []struct {
		label string
		cs    []Check
	}{{"failing", v.Checks.Failing}, {"waiting for", v.Checks.Waiting}, {"not waited for", v.Checks.Ignored}, {"passing", v.Checks.Passing}} {
		for _, c := range group.cs {
			req := ""
			if c.Required {
				req = ", required"
			}
			fmt.Fprintf(b, "- %s: %s (%s%s)%s\n", group.label, strconv.Quote(c.Name), c.Kind, req, urlSuffix(c.URL))
		}
	}
}

// writeBlockers writes the report's blockers section: the verdict's blocks
// with what clears them, then the findings that are not comments.
func writeBlockers(b *strings.Builder, v Verdict) {
	blockers := filter(v.Findings, func(f Finding) bool { return f.Source != SourceComment })
	b.WriteString("\n## Blockers\n\n")
	if len(blockers) == 0 && len(v.Blocks) == 0 {
		b.WriteString("none\n")
	}
	for _, bl := range v.Blocks {
		fmt.Fprintf(b, "- %s (clears: %s)\n", bl.Reason, bl.Clears)
	}
	for _, f := range blockers {
		writeFinding(b, f)
	}
}

func stateLine(d Digest) string {
	switch {
	case d.Merged:
		return "merged as " + short(d.MergeCommit)
	case d.State == PRClosed:
		return "closed"
	}
	s := "open"
	if d.Draft {
		s += ", draft"
	}
	switch {
	case d.Mergeable == nil:
		s += "; mergeability not computed yet"
	case *d.Mergeable:
		s += "; mergeable (" + string(d.MergeState) + ")"
	default:
		s += "; not mergeable (" + string(d.MergeState) + ")"
	}
	return s
}

func urlSuffix(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

func filter(fs []Finding, keep func(Finding) bool) []Finding {
	var out []Finding
	for _, f := range fs {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

func writeFindings(b *strings.Builder, title, empty string, fs []Finding) {
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if len(fs) == 0 {
		b.WriteString(empty + "\n")
	}
	for _, f := range fs {
		writeFinding(b, f)
	}
}

func writeFinding(b *strings.Builder, f Finding) {
	switch f.Source {
	case SourceCheck:
		fmt.Fprintf(b, "- check %s is %s%s\n", strconv.Quote(f.Text), f.State, urlSuffix(f.Where))
	case SourceGate:
		fmt.Fprintf(b, "- completion gate (%s): %s\n", f.Where, f.Text)
	default:
		what := "comment"
		if f.Source == SourceReview {
			what = "review (" + f.State + ")"
		}
		fmt.Fprintf(b, "- %s %d by @%s at %s:\n%s\n", what, f.ID, f.Author, f.Where, indent(Quote(f.Text)))
	}
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }
