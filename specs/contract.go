package specs

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Contract is the part of a spec an agent is judged against: the ordered
// acceptance criteria with their dispositions, the Verify commands, harness,
// context and source paths, target repository and base, and the legs. Edits
// outside it (problem text, headings) never change the fingerprint.
type Contract struct {
	ACs     []ContractAC
	Verify  []string
	Harness string
	Context []string
	Sources []string
	// SourceDigests holds one digest per Sources path (SourceFile.Digest),
	// or is nil when the spec carries no source bytes (parsed on its own).
	SourceDigests []string `json:",omitempty"`
	Repo          string
	Base          string
	Legs          []ContractLeg
}

// ContractAC is one AC as the contract sees it.
type ContractAC struct {
	// ID is the criterion's spec-kit or Kiro id, "" in a gallivant spec.
	ID          string `json:",omitempty"`
	Text        string
	Disposition string
}

// ContractLeg is one leg as the contract sees it.
type ContractLeg struct {
	Name, Repo, Scope, Verification string
}

// Contract returns the spec's contract.
func (s *Spec) Contract() Contract {
	c := Contract{
		Verify:        slices.Clone(s.Verify),
		Harness:       s.Harness,
		Context:       slices.Clone(s.Context),
		Sources:       slices.Clone(s.Sources),
		SourceDigests: s.sourceDigests(),
		Repo:          s.Repo,
		Base:          s.Base,
	}
	for _, ac := range s.ACs {
		c.ACs = append(c.ACs, ContractAC{ID: ac.ID, Text: normalizeSpace(ac.Text), Disposition: normalizeSpace(ac.Disposition.String())})
	}
	for _, l := range s.Legs {
		c.Legs = append(c.Legs, ContractLeg{Name: l.Name, Repo: l.Repo, Scope: l.ScopeString(), Verification: l.Verification})
	}
	return c
}

// ScopeString renders the leg's scope as written canonically: `AC 1, AC 3` or `none`.
func (l Leg) ScopeString() string {
	if l.ScopeNone || len(l.Scope) == 0 {
		return "none"
	}
	parts := make([]string, len(l.Scope))
	for i, n := range l.Scope {
		parts[i] = fmt.Sprintf("AC %d", n)
	}
	return strings.Join(parts, ", ")
}

// Text renders the canonical contract text the fingerprint hashes: one line per
// item, in a fixed order, whitespace-normalized. Its first line names the
// format version so that a future change of layout is a visible change.
func (c Contract) Text() string { return c.text(true) }

// text renders the contract text; withBytes=false leaves the source digests
// out, which is the text every contract had before source bytes counted.
func (c Contract) text(withBytes bool) string {
	var b strings.Builder
	size := 256
	for _, ac := range c.ACs {
		size += len(ac.Text) + len(ac.Disposition) + 16
	}
	b.Grow(size)
	line := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	line("gallivant contract v1")
	for i, ac := range c.ACs {
		b.WriteString("ac ")
		b.WriteString(strconv.Itoa(i + 1))
		if ac.ID != "" {
			b.WriteString(" " + ac.ID)
		}
		b.WriteString(": ")
		b.WriteString(ac.Text)
		if ac.Disposition != "" {
			b.WriteString(" [" + ac.Disposition + "]")
		}
		b.WriteByte('\n')
	}
	for _, v := range c.Verify {
		line("verify: ", normalizeSpace(v))
	}
	line("harness: ", c.Harness)
	for _, p := range c.Context {
		line("context: ", p)
	}
	for i, p := range c.Sources {
		if withBytes && i < len(c.SourceDigests) && c.SourceDigests[i] != "" {
			line("source: ", p, " ", c.SourceDigests[i])
			continue
		}
		line("source: ", p)
	}
	line("repo: ", c.Repo)
	line("base: ", c.Base)
	for _, l := range c.Legs {
		line("leg ", l.Name, ": repo ", l.Repo, "; scope ", l.Scope, "; verification ", normalizeSpace(l.Verification))
	}
	return b.String()
}

// ShortHash returns the first 12 hex characters of the SHA-1 of s: the one
// fingerprint spelling gallivant uses for contracts and receipts.
func ShortHash(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// Fingerprint returns the contract's fingerprint.
func (c Contract) Fingerprint() string { return ShortHash(c.Text()) }

// ContractDiff explains how two contracts differ. The fingerprint decides
// whether they differ at all; the lines only explain it to a person.
type ContractDiff struct {
	Old, New string // fingerprints
	Lines    []string
}

// Changed reports whether the fingerprints differ.
func (d ContractDiff) Changed() bool { return d.Old != d.New }

// String renders the diff, one change per line. When the fingerprints differ
// but no readable difference was found it says so explicitly.
func (d ContractDiff) String() string {
	if !d.Changed() {
		return "contract unchanged (" + d.Old + ")"
	}
	head := fmt.Sprintf("contract changed: %s -> %s", d.Old, d.New)
	if len(d.Lines) == 0 {
		return head + "\nthe fingerprint changed but no readable difference was found (look for duplicated or reordered items, or whitespace inside code spans)"
	}
	return head + "\n" + strings.Join(d.Lines, "\n")
}

// DiffContracts compares the contract a ledger was approved against (old)
// with the spec's current one (new).
func DiffContracts(old, cur Contract) ContractDiff {
	d := ContractDiff{Old: old.Fingerprint(), New: cur.Fingerprint()}
	if !d.Changed() {
		return d
	}
	d.Lines = append(d.Lines, diffACs(old.ACs, cur.ACs)...)
	d.Lines = append(d.Lines, diffList("verify commands", old.Verify, cur.Verify)...)
	d.Lines = append(d.Lines, diffScalar("harness", old.Harness, cur.Harness)...)
	d.Lines = append(d.Lines, diffList("context paths", old.Context, cur.Context)...)
	d.Lines = append(d.Lines, diffList("source paths", old.Sources, cur.Sources)...)
	d.Lines = append(d.Lines, diffSourceBytes(old, cur)...)
	d.Lines = append(d.Lines, diffScalar("repo", old.Repo, cur.Repo)...)
	d.Lines = append(d.Lines, diffScalar("base", old.Base, cur.Base)...)
	d.Lines = append(d.Lines, diffLegs(old.Legs, cur.Legs)...)
	return d
}

func diffScalar(what, a, b string) []string {
	if a == b {
		return nil
	}
	return []string{fmt.Sprintf("%s changed: %q -> %q", what, a, b)}
}

func diffList(what string, a, b []string) []string {
	if slices.Equal(a, b) {
		return nil
	}
	as, bs := slices.Clone(a), slices.Clone(b)
	slices.Sort(as)
	slices.Sort(bs)
	note := ""
	if slices.Equal(as, bs) {
		note = " (same items, different order)"
	} else if slices.Equal(slices.Compact(as), slices.Compact(bs)) {
		note = " (duplicates differ)"
	}
	return []string{fmt.Sprintf("%s changed%s: %s -> %s", what, note, quoteList(a), quoteList(b))}
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// diffACs aligns the two AC lists by text and reports reordered, added,
// removed, reworded and re-disposed ACs. When both lists hold the same texts
// only the order can differ; otherwise a longest common subsequence aligns
// them, and an unmatched old AC facing an unmatched new one in the same gap is
// a rewording.
func diffACs(a, b []ContractAC) []string {
	var out []string
	at, bt := acTexts(a), acTexts(b)
	sa, sb := slices.Sorted(slices.Values(at)), slices.Sorted(slices.Values(bt))
	if slices.Equal(sa, sb) {
		// Match the k-th occurrence of each text in b to the k-th in a.
		seen := map[string]int{}
		order := make([]string, len(b))
		reordered := false
		for j, t := range bt {
			i := nthIndex(at, t, seen[t])
			seen[t]++
			order[j] = fmt.Sprint(i + 1)
			reordered = reordered || i != j
			out = append(out, diffDisposition(j+1, a[i].Disposition, b[j].Disposition)...)
		}
		if reordered {
			out = append([]string{"acceptance criteria reordered: the old ACs now stand in the order " + strings.Join(order, ", ")}, out...)
		}
		return out
	}
	pairs := append(lcs(at, bt), [2]int{len(a), len(b)})
	ai, bi := 0, 0
	for _, pr := range pairs {
		rem, add := pr[0]-ai, pr[1]-bi
		k := 0
		for ; k < rem && k < add; k++ {
			i, j := ai+k, bi+k
			out = append(out, fmt.Sprintf("ac %d reworded: %q -> %q", j+1, a[i].Text, b[j].Text))
			out = append(out, diffDisposition(j+1, a[i].Disposition, b[j].Disposition)...)
		}
		for i := ai + k; i < pr[0]; i++ {
			out = append(out, fmt.Sprintf("ac %d removed: %q", i+1, a[i].Text))
		}
		for j := bi + k; j < pr[1]; j++ {
			out = append(out, fmt.Sprintf("ac %d added: %q", j+1, b[j].Text))
		}
		if pr[0] < len(a) && pr[1] < len(b) {
			out = append(out, diffDisposition(pr[1]+1, a[pr[0]].Disposition, b[pr[1]].Disposition)...)
		}
		ai, bi = pr[0]+1, pr[1]+1
	}
	return out
}

func acTexts(acs []ContractAC) []string {
	out := make([]string, len(acs))
	for i, ac := range acs {
		out[i] = ac.Text
	}
	return out
}

// nthIndex returns the index of the n-th (0-based) occurrence of t in list.
func nthIndex(list []string, t string, n int) int {
	for i, s := range list {
		if s == t {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return -1
}

func diffDisposition(n int, a, b string) []string {
	if a == b {
		return nil
	}
	show := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	return []string{fmt.Sprintf("ac %d disposition changed: %s -> %s", n, show(a), show(b))}
}

// lcs returns the index pairs of a longest common subsequence of a and b.
func lcs(a, b []string) [][2]int {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

func diffLegs(a, b []ContractLeg) []string {
	var out []string
	byName := map[string]ContractLeg{}
	for _, l := range a {
		byName[l.Name] = l
	}
	seen := map[string]bool{}
	for _, l := range b {
		seen[l.Name] = true
		o, ok := byName[l.Name]
		if !ok {
			out = append(out, fmt.Sprintf("leg %s added (repo %s, scope %s)", l.Name, l.Repo, l.Scope))
			continue
		}
		out = append(out, diffScalar("leg "+l.Name+" repo", o.Repo, l.Repo)...)
		out = append(out, diffScalar("leg "+l.Name+" scope", o.Scope, l.Scope)...)
		out = append(out, diffScalar("leg "+l.Name+" verification", o.Verification, l.Verification)...)
	}
	for _, l := range a {
		if !seen[l.Name] {
			out = append(out, fmt.Sprintf("leg %s removed", l.Name))
		}
	}
	if len(out) == 0 && len(a) == len(b) {
		for i := range a {
			if a[i].Name != b[i].Name {
				out = append(out, "legs reordered")
				break
			}
		}
	}
	return out
}
