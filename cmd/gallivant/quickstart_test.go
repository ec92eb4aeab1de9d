package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shBlocks returns the bodies of the ```sh fenced blocks of a markdown
// page, in order. Other fences (```text, ```console) are illustrations.
func shBlocks(md string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, line := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &strings.Builder{}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

func TestShBlocks(t *testing.T) {
	t.Parallel()
	md := "# x\n```sh\na\nb\n```\n```text\nnot run\n```\n```sh\nc <<'EOF'\n```inner\nEOF\n```\n"
	got := shBlocks(md)
	want := []string{"a\nb\n", "c <<'EOF'\n```inner\nEOF\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("shBlocks = %q, want %q", got, want)
	}
}

// TestQuickstart runs docs/quickstart.md's shell blocks, in order, in one
// bash, as a newcomer pasting them would: it installs gallivant from this
// checkout into a temporary GOBIN, watches the demo, starts a fresh
// sandbox, writes the agent and the control repository, reconciles, merges
// with curl and reconciles to loop: done. The page cannot drift from the
// product. Real time is the point: it runs the built binary and a
// background sandbox.
func TestQuickstart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the quickstart end to end")
	}
	for _, tool := range []string{"bash", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the quickstart needs %s on PATH: %v", tool, err)
		}
	}
	if _, err := exec.LookPath("gh"); err != nil {
		t.Skip("the quickstart merges with the GitHub CLI, which is not installed (Debian package gh; .ci/run installs it)")
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(repo, "docs", "quickstart.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shBlocks(string(page))
	if len(blocks) < 6 || !strings.Contains(blocks[0], "go install ./cmd/gallivant") {
		t.Fatalf("docs/quickstart.md has %d sh blocks, the first %q; want an install step first and the whole walk-through", len(blocks), blocks)
	}

	// The Go caches stay the developer's (so the install is incremental);
	// everything else the page touches lives in a temporary directory.
	goenv := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goenv[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
	}
	tmp := t.TempDir()
	for _, d := range []string{"bin", "home", "tmp", "cache"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The demo's Verify commands (`go test` in its module) run with
	// executor.env's HOME and no GOCACHE (specs.DefaultAgentEnv), so Go's
	// default cache under the temporary HOME is the developer's too, as it
	// is under a newcomer's own HOME: else each demo recompiles the
	// standard library for its tests (minutes on a busy machine).
	if c := goenv["GOCACHE"]; filepath.IsAbs(c) {
		if err := os.MkdirAll(filepath.Join(tmp, "home", ".cache"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c, filepath.Join(tmp, "home", ".cache", "go-build")); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"PATH=" + filepath.Join(tmp, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"TMPDIR=" + filepath.Join(tmp, "tmp"),
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"GOBIN=" + filepath.Join(tmp, "bin"),
		"GOCACHE=" + goenv["GOCACHE"],
		"GOMODCACHE=" + goenv["GOMODCACHE"],
		"GOPATH=" + goenv["GOPATH"],
		"GOTOOLCHAIN=local",
		"GOPROXY=off",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Quick Start",
		"GIT_AUTHOR_EMAIL=quick@example.com",
		"GIT_COMMITTER_NAME=Quick Start",
		"GIT_COMMITTER_EMAIL=quick@example.com",
		"LANG=C.UTF-8",
	}
	if f := os.Getenv("GOFLAGS"); f != "" {
		// -buildvcs=false, say, where git refuses the checkout's owner.
		env = append(env, "GOFLAGS="+f)
	}
	script := "set -euo pipefail\n"
	for i, b := range blocks {
		script += "echo '## quickstart block " + strconv.Itoa(i+1) + "'\n" + b
	}
	logPath := filepath.Join(tmp, "quickstart.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = repo
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group, so that the background sandbox dies with it
	// whatever block fails.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	runErr := cmd.Wait()
	log, _ := os.ReadFile(logPath)
	if runErr != nil {
		t.Fatalf("the quickstart failed: %v\n%s", runErr, log)
	}
	// What the page promises along the way.
	for _, want := range []string{
		`(?m)^gallivant \S+$`,
		`(?m)^== what to do next$`,
		`(?m)^checked 1 document: 0 errors, 0 warnings$`,
		`(?m)^specs/greeting.md\tloop: seed ledger\tSeeded 2 rows \(0 cut\)`,
		`(?m)^specs/greeting.md\tloop: ready acme/api#1\t`,
		`(?m)^control [0-9a-f]{7}: 11 transitions performed$`,
		`(?m)^specs/greeting.md  ready  ✓✓  2/2 done  acme/api#1$`,
		`(?m)^Greeting endpoint \| OPEN \| ready-for-human$`,
		`(?m)^MERGED by gallivant-bot$`,
		`(?m)^specs/greeting.md\tloop: done acme/api#1\tacme/api#1 was merged into main as [0-9a-f]{7}.$`,
		`(?m)^control [0-9a-f]{7}: 1 transition performed$`,
		`(?m)^[0-9a-f]{7} \d{4}-\d\d-\d\d \d\d:\d\d loop: done acme/api#1  \[Control=[0-9a-f]{7} PR=acme/api#1 Head=[0-9a-f]{7}\]$`,
	} {
		if !regexp.MustCompile(want).Match(log) {
			t.Errorf("the quickstart's output lacks %s\n%s", want, log)
		}
	}
	// The page's sample output is what the commands print, line for line
	// in order (ids, hashes and column widths aside), so a transition the
	// product adds or drops shows up here.
	got := sampleNormal(string(log))
	for _, want := range sampleLines(string(page)) {
		i := slices.Index(got, want)
		if i < 0 {
			t.Errorf("docs/quickstart.md shows %q, which the commands did not print (in that order)\n%s", want, log)
			break
		}
		got = got[i+1:]
	}
	if strings.Contains(string(log), "problem:") {
		t.Errorf("a pass reported a problem:\n%s", log)
	}
}

// sampleHex matches the commit ids, contract fingerprints and other hex
// ids a sample prints, which differ from run to run.
var sampleHex = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)

// sampleColumns matches the gap between columns: aligned spaces on a
// terminal, a tab when piped.
var sampleColumns = regexp.MustCompile(`\t| {2,}`)

// sampleNormal returns the lines of out that a sample shows (transitions,
// waits, summaries and status rows: those naming a spec or the control
// commit), with ids masked and columns joined by one tab.
func sampleNormal(out string) []string {
	var lines []string
	for _, ln := range strings.Split(out, "\n") {
		ln = strings.TrimRight(ln, " \r")
		if !strings.HasPrefix(ln, "specs/") && !strings.HasPrefix(ln, "control ") {
			continue
		}
		lines = append(lines, sampleColumns.ReplaceAllString(sampleHex.ReplaceAllString(ln, "<id>"), "\t"))
	}
	return lines
}

// sampleLines returns, normalized as sampleNormal does, the lines of the
// page's ```text samples.
func sampleLines(md string) []string {
	var lines []string
	in := false
	for _, ln := range strings.Split(md, "\n") {
		switch t := strings.TrimSpace(ln); {
		case !in && t == "```text":
			in = true
		case in && t == "```":
			in = false
		case in:
			lines = append(lines, sampleNormal(ln)...)
		}
	}
	return lines
}

func TestSampleLines(t *testing.T) {
	t.Parallel()
	md := "x\n```text\nspecs/a.md  loop: seed ledger   Seeded 2 rows from contract 9199a6305537.\n== pass\ncontrol da19777: 1 transition performed\n```\nspecs/b.md  not a sample\n```sh\nspecs/c.md\n```\n"
	want := []string{"specs/a.md\tloop: seed ledger\tSeeded 2 rows from contract <id>.", "control <id>: 1 transition performed"}
	if diff := cmp.Diff(want, sampleLines(md)); diff != "" {
		t.Errorf("sampleLines (-want +got):\n%s", diff)
	}
	out := "specs/a.md\tloop: seed ledger\tSeeded 2 rows from contract 0affe4342523.\r\n  noise\n"
	if diff := cmp.Diff([]string{want[0]}, sampleNormal(out)); diff != "" {
		t.Errorf("sampleNormal (-want +got):\n%s", diff)
	}
}
