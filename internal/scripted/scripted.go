// Package scripted is the scripted agent of the demo and the tests: it
// answers each dispatch from its brief alone, the way a shell script could,
// with each kind of return on purpose. It is not part of gallivant's
// library surface.
package scripted

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/lessons"
)

// Behavior is what the scripted agent does with one dispatch.
type Behavior string

// Behaviors of the scripted agent: a conforming return, each kind of broken
// one, or nothing at all.
const (
	Done       Behavior = "done"        // conforming `done` return
	Fail       Behavior = "failed"      // conforming `failed` return
	Needs      Behavior = "needs"       // `failed` whose blocker needs a person
	Malformed  Behavior = "malformed"   // one commit that breaks the contract
	NoCommit   Behavior = "none"        // the run ends without a commit
	TwoCommits Behavior = "two-commits" // two conforming-looking commits
	Dirty      Behavior = "dirty"       // uncommitted changes, no commit
	// Lie is a conforming `done` return whose evidence checks a file the
	// agent did not write: admitted, and false when gallivant replays it.
	Lie Behavior = "lie"
	// Shared is a conforming `done` return whose evidence is the one
	// check every row of the spec shares, `test -d rows`.
	Shared Behavior = "shared"
	// Baseline is a seed that closes on baseline every row whose file
	// the checkout already holds (its evidence `test -f` passes there),
	// as a person's pull request that gallivant adopts may.
	Baseline Behavior = "baseline"
)

// Script decides the scripted agent's behaviour for a target ("seed", a
// row number, or "round" for a review/fix round) on its n-th dispatch
// (1-based) and the model it was given. A round answers with one commit
// unless the behaviour is NoCommit or Dirty.
type Script func(target string, n int, model string) Behavior

// Agent returns an agent that answers each dispatch from its brief alone,
// the way a shell script could: it reads the brief's key: value lines and
// writes the return its script asks for in dir, a checkout of the work
// branch. spec is the dispatch's spec path.
func Agent(script Script) func(ctx context.Context, dir, spec, brief string) error {
	var mu sync.Mutex
	counts := map[string]int{}
	return func(ctx context.Context, dir, spec, brief string) error {
		kv := BriefValues(brief)
		target := kv["target"]
		key := spec + "#" + kv["member"] + "#" + target
		mu.Lock()
		counts[key]++
		nth := counts[key]
		mu.Unlock()
		b := script(target, nth, kv["model"])
		d := &dispatch{ctx: ctx, dir: dir, spec: spec, kv: kv}
		d.iteration, _ = strconv.Atoi(kv["iteration"])
		d.attempts, _ = strconv.Atoi(kv["attempts"])
		d.git = Git{Dir: dir, Env: []string{"GIT_AUTHOR_NAME=scripted-agent", "GIT_AUTHOR_EMAIL=agent@example.com",
			"GIT_COMMITTER_NAME=scripted-agent", "GIT_COMMITTER_EMAIL=agent@example.com"}}
		switch target {
		case "round":
			return d.round(b)
		case "learn":
			return d.learn(b, brief)
		case "seed":
			return d.seed(b, brief)
		}
		return d.row(b, target)
	}
}

// dispatch is one dispatch the scripted agent answers: its checkout, its
// spec and the brief's values.
type dispatch struct {
	ctx       context.Context
	dir, spec string
	kv        map[string]string
	git       Git
	// iteration and attempts are the brief's counts before the dispatch.
	iteration, attempts int
}

// write writes content to the file name of the checkout.
func (d *dispatch) write(name, content string) error {
	p := filepath.Join(d.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// commit commits every change of the checkout with message msg.
func (d *dispatch) commit(msg string, allowEmpty bool) error {
	if _, err := d.git.Out(d.ctx, "add", "-A"); err != nil {
		return err
	}
	args := []string{"commit", "--quiet", "-m", msg}
	if allowEmpty {
		args = append(args, "--allow-empty")
	}
	_, err := d.git.Out(d.ctx, args...)
	return err
}

// head is a return's attribution lines and the blank line after them.
func (d *dispatch) head() string {
	return fmt.Sprintf("pending: %s\niteration: %d\n\n", d.kv["pending"], d.iteration+1)
}

// round answers a fix round with one plain commit, as b says.
func (d *dispatch) round(b Behavior) error {
	file := fmt.Sprintf("fixes/round-%s.txt", d.kv["round"])
	switch b {
	case NoCommit:
		return nil
	case Dirty:
		return d.write(file, "half a fix\n")
	}
	if err := d.write(file, fmt.Sprintf("answers round %s on %s\n", d.kv["round"], d.kv["head"])); err != nil {
		return err
	}
	return d.commit(fmt.Sprintf("Answer review round %s", d.kv["round"]), false)
}

// learn answers a learn task (docs/learning.md "The learn task"): for
// Done, one commit that adds to the lessons file the brief names one
// lesson per piece of quoted feedback — its first line as title and text,
// its URL as the source — skipping titles the file already has; for
// Malformed, a lesson without sources; for TwoCommits, the lessons and a
// second commit; NoCommit and Dirty as for a row.
func (d *dispatch) learn(b Behavior, brief string) error {
	file := d.kv["lessons"]
	switch b {
	case NoCommit:
		return nil
	case Dirty:
		return d.write(file, "half a lesson\n")
	}
	old, err := os.ReadFile(filepath.Join(d.dir, file))
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := string(old)
	if text == "" {
		text = "# Lessons for " + d.kv["repo"] + "\n"
	}
	for _, f := range quotedFeedback(brief) {
		if strings.Contains(text, "\n## "+f.title+"\n") {
			continue
		}
		sources := "sources: " + f.url + "\n"
		if b == Malformed {
			sources = ""
		}
		text = strings.TrimRight(text, "\n") + "\n\n## " + f.title + "\n" + sources + "\n" + f.title + ".\n"
	}
	if err := d.write(file, text); err != nil {
		return err
	}
	if err := d.commit(lessons.ReturnSubject(d.kv["repo"]), false); err != nil {
		return err
	}
	if b == TwoCommits {
		if err := d.write(file, text+"\nMore.\n"); err != nil {
			return err
		}
		return d.commit("More lessons", false)
	}
	return nil
}

// feedbackPiece is one piece of feedback a learn brief quotes.
type feedbackPiece struct{ url, title string }

var quotedURLRE = regexp.MustCompile(`^> (https://\S+)$`)

// quotedFeedback reads the feedback a learn brief quotes: each piece's
// URL line and the first line of its quoted text.
func quotedFeedback(brief string) []feedbackPiece {
	var out []feedbackPiece
	lines := strings.Split(brief, "\n")
	for i, ln := range lines {
		m := quotedURLRE.FindStringSubmatch(ln)
		if m == nil {
			continue
		}
		for j := i + 1; j < len(lines) && j < i+6; j++ {
			if strings.HasPrefix(lines[j], "> ```") && j+1 < len(lines) {
				title := strings.TrimSuffix(strings.TrimPrefix(lines[j+1], "> "), ".")
				out = append(out, feedbackPiece{url: m[1], title: title})
				break
			}
		}
	}
	return out
}

// seed answers a seed dispatch: every row of the brief open, as b says.
func (d *dispatch) seed(b Behavior, brief string) error {
	if b == NoCommit {
		return nil
	}
	var rows []string
	var first string
	closed := 0
	for _, n := range seedRows(brief) {
		if m := regexp.MustCompile(`(?m)^\| ` + n + ` \| done \| 0 \| .* \|$`).FindString(brief); m != "" {
			// A row the template shows done is carried as it is.
			rows = append(rows, m)
			continue
		}
		if _, err := os.Stat(filepath.Join(d.dir, "rows", "row-"+n+".txt")); b == Baseline && err == nil {
			rows = append(rows, fmt.Sprintf("| %s | done | 0 | test -f rows/row-%s.txt; ok |", n, n))
			closed++
			continue
		}
		rows = append(rows, fmt.Sprintf("| %s | open | 0 | test -f rows/row-%s.txt; FAIL: missing |", n, n))
		if first == "" {
			first = "row " + n
		}
	}
	if first == "" {
		first = "none"
	}
	seedEvidence := ledger.Subject{Kind: ledger.KindSeedEvidence}.String()
	msg := fmt.Sprintf("%s\n\n%s%s\n\nrow 0 done | seeded %d rows, closed %d on baseline | %s\n", seedEvidence, d.head(), strings.Join(rows, "\n"), len(rows), closed, first)
	if b == Malformed {
		msg = seedEvidence + "\n\nI looked around and everything seems fine.\n"
	}
	return d.commit(msg, true)
}

// row answers a dispatch of row n as b says.
func (d *dispatch) row(b Behavior, n string) error {
	switch b {
	case NoCommit:
		return nil
	case Dirty:
		return d.write(fmt.Sprintf("rows/row-%s.txt", n), "half done\n")
	case Malformed:
		if err := d.write(fmt.Sprintf("rows/row-%s.txt", n), fmt.Sprintf("done in iteration %d\n", d.iteration+1)); err != nil {
			return err
		}
		return d.commit(fmt.Sprintf("Implement row %s\n\nAll good, trust me.\n", n), false)
	}
	file, status, evidence, decision := d.rowResult(b, n)
	if err := d.write(file, fmt.Sprintf("%s iteration %d\n", d.spec, d.iteration+1)); err != nil {
		return err
	}
	row, _ := strconv.Atoi(n)
	subject := ledger.Subject{Kind: ledger.KindRowResult, Row: row, Status: ledger.Status(status)}.String()
	msg := fmt.Sprintf("%s\n\n%s| %s | %s | %d | %s |\n\n%s\n", subject, d.head(), n, status, d.attempts+1, evidence, decision)
	if err := d.commit(msg, false); err != nil {
		return err
	}
	if b == TwoCommits {
		if err := d.write(file+".more", "more\n"); err != nil {
			return err
		}
		return d.commit(msg, false)
	}
	return nil
}

// rowResult is the file row n's answer writes and its status, evidence
// and decision: done, or failed (for Fail and Needs, Needs naming what a
// person must supply).
func (d *dispatch) rowResult(b Behavior, n string) (file, status, evidence, decision string) {
	try := d.attempts + 1
	switch b {
	case Fail, Needs:
		decision = fmt.Sprintf("row %s failed | attempt %d did not get there | try a different approach", n, try)
		if b == Needs {
			decision = fmt.Sprintf("row %s failed | the fixture server is unreachable | needs a staging token", n)
		}
		return fmt.Sprintf("rows/attempt-%s-%d.txt", n, try), "failed",
			fmt.Sprintf("test -f rows/row-%s.txt; FAIL: still missing after attempt %d", n, try), decision
	}
	file, evidence = fmt.Sprintf("rows/row-%s.txt", n), fmt.Sprintf("test -f rows/row-%s.txt; ok", n)
	switch b {
	case Lie:
		file = fmt.Sprintf("rows/claimed-%s-%d.txt", n, try)
	case Shared:
		evidence = "test -d rows; ok"
	}
	return file, "done", evidence, fmt.Sprintf("row %s done | wrote rows/row-%s.txt on attempt %d | next row", n, n, try)
}

// Git runs the git binary in Dir as an agent would, with Env added to the
// process's environment: the scripted agent's commits, and tests that act
// as an agent. Out returns git's trimmed standard output, or an error that
// carries its standard error.
type Git struct {
	Dir string
	Env []string
}

// Out runs git with args.
func (g Git) Out(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), g.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// BriefValues reads the brief's key: value lines (the first occurrence of
// each key wins: the return template repeats some of them).
func BriefValues(brief string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(brief, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(k, "`#|") {
			continue
		}
		if _, seen := out[k]; !seen {
			out[k] = v
		}
	}
	return out
}

var seedRowRE = regexp.MustCompile(`(?m)^- row ([0-9]+): `)

func seedRows(brief string) []string {
	var out []string
	for _, m := range seedRowRE.FindAllStringSubmatch(brief, -1) {
		out = append(out, m[1])
	}
	return out
}
