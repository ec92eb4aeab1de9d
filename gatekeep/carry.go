package gatekeep

import (
	"fmt"
	"path"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// Carrying a proof (docs/verify.md "Carried proof"): a row proved on an
// earlier head keeps its proof on a new head when the diff between the two
// heads touches none of the row's files, and every changed path belongs to
// another done row. When unsure — the diff is unknown, the row's files
// cannot be read off its evidence command, or a change may reach every
// row — the row's evidence is re-run.

// Diffs maps an earlier head to the paths changed between it and the head
// being proved, when the head descends from it. A head absent from the map
// has an unknown diff: its proofs are not carried.
type Diffs map[string][]string

// RowFiles is what a row's evidence reads, as read off its command.
type RowFiles struct {
	// Trees are repository-relative directories ("" is the whole
	// repository) whose files the command reads.
	Trees []string
	// Files are repository-relative files the command reads.
	Files []string
	// Go reports a `go test` command: it also reads every non-test Go
	// file it may import and the module files, wherever they are.
	Go bool
}

// FilesOf reads a row's files off its evidence command: `go test ./calc
// ./strutil/...` reads the trees calc/ and strutil/; `test -f rows/a.txt`
// (or -e, -d, -s) reads rows/a.txt. ok is false for any other command, or a
// path that is not a clean relative one: the row's proof is never carried.
func FilesOf(cmd string) (RowFiles, bool) {
	w := strings.Fields(cmd)
	switch {
	case len(w) >= 3 && w[0] == "go" && w[1] == "test":
		return goTestFiles(w[2:])
	case len(w) == 3 && w[0] == "test" && (w[1] == "-f" || w[1] == "-e" || w[1] == "-d" || w[1] == "-s"):
		p, ok := cleanRel(w[2])
		if !ok {
			return RowFiles{}, false
		}
		if w[1] == "-d" {
			return RowFiles{Trees: []string{p}}, true
		}
		return RowFiles{Files: []string{p}}, true
	}
	return RowFiles{}, false
}

// goTestFiles reads the package trees off the arguments of `go test`:
// each ./dir or ./dir/... is a tree, . the whole repository; a flag's
// value is skipped, and a package named by import path (its directory
// unknown) or no package at all reads nothing.
func goTestFiles(args []string) (RowFiles, bool) {
	rf := RowFiles{Go: true}
	value := false // the token is the value of the flag before it
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			value = !strings.Contains(a, "=") && !goTestBoolFlags[strings.TrimLeft(a, "-")]
			continue
		}
		if a != "." && !strings.HasPrefix(a, "./") {
			if value {
				value = false
				continue
			}
			// A package named by import path: its directory is unknown.
			return RowFiles{}, false
		}
		value = false
		dir := strings.TrimSuffix(strings.TrimSuffix(a, "..."), "/")
		if dir == "." || dir == "" {
			rf.Trees = append(rf.Trees, "")
			continue
		}
		p, ok := cleanRel(strings.TrimPrefix(dir, "./"))
		if !ok {
			return RowFiles{}, false
		}
		rf.Trees = append(rf.Trees, p)
	}
	if len(rf.Trees) == 0 {
		return RowFiles{}, false
	}
	return rf, true
}

// goTestBoolFlags are the `go test` flags that take no value.
var goTestBoolFlags = map[string]bool{"v": true, "short": true, "race": true, "cover": true, "failfast": true, "json": true,
	"x": true, "n": true, "a": true, "msan": true, "asan": true, "benchmem": true, "trimpath": true}

// cleanRel accepts a clean repository-relative path without globs.
func cleanRel(p string) (string, bool) {
	p = strings.TrimPrefix(p, "./")
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsAny(p, "*?[]{}$`'\"\\") {
		return "", false
	}
	return p, true
}

// Touches reports whether a change of the file changed may alter the
// row's evidence run.
func (rf RowFiles) Touches(changed string) bool {
	for _, t := range rf.Trees {
		if t == "" || changed == t || strings.HasPrefix(changed, t+"/") {
			return true
		}
	}
	for _, f := range rf.Files {
		if changed == f || strings.HasPrefix(f, changed+"/") {
			return true
		}
	}
	if rf.Go {
		base := path.Base(changed)
		if (strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, "_test.go")) || base == "go.mod" || base == "go.sum" || base == "go.work" || base == "go.work.sum" {
			return true
		}
	}
	return false
}

// Owns reports whether the path is one of the row's own files: in one of
// its trees, or one of its files.
func (rf RowFiles) Owns(changed string) bool {
	return RowFiles{Trees: rf.Trees, Files: rf.Files}.Touches(changed)
}

// ReplayPlan is what proving a head takes: the evidence commands to run,
// and the proofs carried from earlier heads.
type ReplayPlan struct {
	Checks []ReplayCheck
	// Carried are the rows' proofs on head, each with CarriedFrom the
	// head the evidence last ran on.
	Carried []ledger.Proof
}

// CarryFrom are the earlier heads whose diff to head decides whether a
// proof is carried: the heads of the done rows' passed proofs of their
// current evidence, other than head, each once.
func CarryFrom(l *ledger.Ledger, head string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range l.ViewRows() {
		p, ok := carriable(l, r, head)
		if !ok || seen[p.Ran()] {
			continue
		}
		seen[p.Ran()] = true
		out = append(out, p.Ran())
	}
	return out
}

// carriable returns the row's recorded proof when it proves the row's
// current evidence on another head than head.
func carriable(l *ledger.Ledger, r ledger.Row, head string) (ledger.Proof, bool) {
	if r.Status != ledger.Done {
		return ledger.Proof{}, false
	}
	cmd := ledger.EvidenceCommand(r.Evidence)
	p, ok := l.ProofOf(r.N)
	if cmd == "" || !ok || p.Head == head || p.Command != cmd || !p.Proved() {
		return ledger.Proof{}, false
	}
	return p, true
}

// PlanReplay plans proving head: ReplayChecks, less the rows whose proof
// carries. A row's proof on an earlier head carries when diffs knows the
// paths changed since that head, none of them touches the row's files
// (FilesOf), and each of them is one of another done row's own files — a
// change outside every row's files may reach any row, so it re-runs all.
func PlanReplay(l *ledger.Ledger, head string, diffs Diffs) ReplayPlan {
	files := map[int]RowFiles{}
	known := map[int]bool{}
	for _, r := range l.ViewRows() {
		if r.Status == ledger.Done {
			files[r.N], known[r.N] = FilesOf(ledger.EvidenceCommand(r.Evidence))
		}
	}
	carries := map[int]ledger.Proof{}
	for _, r := range l.ViewRows() {
		p, ok := carriable(l, r, head)
		if !ok || !known[r.N] {
			continue
		}
		changed, ok := diffs[p.Ran()]
		if !ok || !carriesOver(r.N, changed, files, known) {
			continue
		}
		from := p.Ran()
		p.Head, p.CarriedFrom = head, from
		carries[r.N] = p
	}
	var plan ReplayPlan
	for _, c := range ReplayChecks(l, head) {
		var rows []int
		for _, n := range c.Rows {
			if p, ok := carries[n]; ok {
				plan.Carried = append(plan.Carried, p)
				continue
			}
			rows = append(rows, n)
		}
		if len(rows) > 0 {
			plan.Checks = append(plan.Checks, ReplayCheck{Command: c.Command, Rows: rows})
		}
	}
	sortProofs(plan.Carried)
	return plan
}

// carriesOver reports whether row n's proof survives the changed paths.
func carriesOver(n int, changed []string, files map[int]RowFiles, known map[int]bool) bool {
	for _, c := range changed {
		if files[n].Touches(c) {
			return false
		}
		owned := false
		for m, rf := range files {
			if m != n && known[m] && rf.Owns(c) {
				owned = true
				break
			}
		}
		if !owned {
			return false
		}
	}
	return true
}

func sortProofs(ps []ledger.Proof) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Row < ps[j-1].Row; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// replayedSentence tells a `loop: verify` commit's proofs: how many runs
// were replayed and how many proofs carried, or "" for none.
func replayedSentence(proofs []ledger.Proof) string {
	ran, carried := 0, 0
	for _, p := range proofs {
		if p.CarriedFrom != "" {
			carried++
		} else {
			ran++
		}
	}
	s := ""
	if ran > 0 {
		s += fmt.Sprintf(" %s of the done rows replayed.", plural(ran, "evidence run", "evidence runs"))
	}
	if carried > 0 {
		s += fmt.Sprintf(" %s carried from earlier heads whose diff touches none of the rows' files.", plural(carried, "proof", "proofs"))
	}
	return s
}
