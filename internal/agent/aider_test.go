package agent

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every flag the aider preset passes is one aider 0.86.2 defines: the
// list in testdata is read off aider's own argument parser at that tag,
// since aider (a Python package) is not installable here to ask --help.
func TestAiderPresetFlagsExist(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("testdata", "aider-0.86.2-flags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "--") {
			known[line] = true
		}
	}
	if len(known) < 100 {
		t.Fatalf("read %d flags: the list is cut", len(known))
	}
	task := Task{Model: "big", Brief: "b", MaxBudgetMicros: 1_500_000}
	inv, err := CommandExecutor{}.invocation(task, "aider", "/p.md", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range inv.argv[1:] {
		if strings.HasPrefix(a, "--") && !known[a] {
			t.Errorf("the aider preset passes %s, which aider 0.86.2 does not define", a)
		}
	}
	for _, want := range []string{"--no-gitignore", "--no-analytics", "--no-detect-urls", "--no-auto-commits"} {
		if !strings.Contains(strings.Join(inv.argv, " "), want) {
			t.Errorf("the aider preset does not pass %s", want)
		}
	}
}

// The files aider keeps for itself at the repository root (its histories
// and repository-map cache) never show as the agent's work, while the
// agent's own new files, and a change to a tracked .aider file, still do.
func TestAiderOwnFilesAreNotWork(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gitIn(t, dir, "init", "--quiet", "--initial-branch=main")
	if err := os.WriteFile(filepath.Join(dir, ".aider.conf.yml"), []byte("model: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", ".aider.conf.yml")
	gitIn(t, dir, "commit", "--quiet", "-m", "config")
	if err := prepareResult(resultPath(dir), "aider", nil); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		".aider.chat.history.md":           "# aider chat started\n",
		".aider.input.history":             "x\n",
		".aider.tags.cache.v4/cache.db":    "x",
		"rows/row-1.txt":                   "row 1\n",
		"docs/.aider.chat.history.md.note": "kept: not at the root\n",
		".aider.conf.yml":                  "model: y\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := gitIn(t, dir, "status", "--porcelain", "--untracked-files=all")
	want := "M .aider.conf.yml\n?? docs/.aider.chat.history.md.note\n?? rows/row-1.txt"
	if got != want {
		t.Errorf("status (trimmed):\n%s\nwant:\n%s", got, want)
	}
	// Another kind's checkout excludes only the result file.
	other := t.TempDir()
	gitIn(t, other, "init", "--quiet", "--initial-branch=main")
	if err := prepareResult(resultPath(other), "claude-code", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".aider.input.history"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := gitIn(t, other, "status", "--porcelain"); got != "?? .aider.input.history" {
		t.Errorf("claude-code checkout status %q, want the .aider file shown", got)
	}
}
