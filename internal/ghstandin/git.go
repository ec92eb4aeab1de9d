package ghstandin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// gitRepo runs the real git binary in one bare repository.
type gitRepo struct{ dir string }

// gitEnv isolates git from the machine's configuration so that the stand-in
// behaves the same everywhere.
var gitEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
	"GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
}

// objectAnswers memoizes the output of read-only queries whose every
// operand is a full object id. Objects never change, so neither do those
// answers; the stand-in asks the same ones on every API read of a pull
// request, and each is a git process. Queries that name refs are never
// memoized, and neither are failures: an object may arrive with a later
// push.
var objectAnswers = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// maxObjectAnswers bounds the memo for a long-running sandbox; it is
// emptied when full.
const maxObjectAnswers = 4096

var (
	objectOperandRE = regexp.MustCompile(`^[0-9a-f]{40}(\^\{commit\})?$|^[0-9a-f]{40}\.\.[0-9a-f]{40}$`)
	objectQueryCmds = map[string]bool{"rev-parse": true, "show": true, "log": true, "rev-list": true, "merge-base": true, "diff": true}
)

// memoKey returns the memo key of a query about objects only, or "".
func (g gitRepo) memoKey(stdin []byte, env []string, args []string) string {
	if stdin != nil || env != nil || len(args) == 0 || !objectQueryCmds[args[0]] {
		return ""
	}
	operands := 0
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if !objectOperandRE.MatchString(a) {
			return ""
		}
		operands++
	}
	if operands == 0 {
		return ""
	}
	return g.dir + "\x00" + strings.Join(args, "\x00")
}

func (g gitRepo) run(stdin []byte, env []string, args ...string) (string, error) {
	key := g.memoKey(stdin, env, args)
	if key != "" {
		objectAnswers.Lock()
		out, ok := objectAnswers.m[key]
		objectAnswers.Unlock()
		if ok {
			return out, nil
		}
	}
	out, err := g.exec(stdin, env, args...)
	if key != "" && err == nil {
		objectAnswers.Lock()
		if len(objectAnswers.m) >= maxObjectAnswers {
			clear(objectAnswers.m)
		}
		objectAnswers.m[key] = out
		objectAnswers.Unlock()
	}
	return out, err
}

func (g gitRepo) exec(stdin []byte, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", g.dir}, args...)...)
	cmd.Env = append(append(os.Environ(), gitEnv...), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func (g gitRepo) out(args ...string) (string, error) {
	s, err := g.run(nil, nil, args...)
	return strings.TrimSpace(s), err
}

// initBare creates a bare repository whose default branch holds one commit.
func initBare(dir, branch, who string, when time.Time) (gitRepo, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return gitRepo{}, err
	}
	if _, err := (gitRepo{dir: "."}).run(nil, nil, "init", "--quiet", "--bare", "--initial-branch="+branch, "--", dir); err != nil {
		return gitRepo{}, err
	}
	g := gitRepo{dir: dir}
	// Anonymous smart-HTTP pushes are allowed: the sandbox binds loopback only.
	if _, err := g.out("config", "http.receivepack", "true"); err != nil {
		return g, err
	}
	blob, err := g.run([]byte("# "+filepath.Base(strings.TrimSuffix(dir, ".git"))+"\n"), nil, "hash-object", "-w", "--stdin")
	if err != nil {
		return g, err
	}
	tree, err := g.run([]byte("100644 blob "+strings.TrimSpace(blob)+"\tREADME.md\n"), nil, "mktree")
	if err != nil {
		return g, err
	}
	sha, err := g.commitTree(strings.TrimSpace(tree), nil, "Initial commit", who, when)
	if err != nil {
		return g, err
	}
	_, err = g.out("update-ref", "refs/heads/"+branch, sha)
	return g, err
}

func (g gitRepo) commitTree(tree string, parents []string, msg, who string, when time.Time) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	date := when.UTC().Format(time.RFC3339)
	email := who + "@users.noreply.github.com"
	env := []string{"GIT_AUTHOR_NAME=" + who, "GIT_AUTHOR_EMAIL=" + email, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + who, "GIT_COMMITTER_EMAIL=" + email, "GIT_COMMITTER_DATE=" + date}
	s, err := g.run([]byte(msg), env, args...)
	return strings.TrimSpace(s), err
}

// commit is what the API shows of one commit.
type commitInfo struct {
	SHA, Tree      string
	Parents        []string
	AuthorName     string
	AuthorEmail    string
	AuthorDate     time.Time
	CommitterName  string
	CommitterEmail string
	CommitterDate  time.Time
	Message        string
}

const logFormat = "%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cn%x1f%ce%x1f%cI%x1f%B%x1e"

func parseLog(s string) []commitInfo {
	var out []commitInfo
	for _, rec := range strings.Split(s, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		f := strings.Split(rec, "\x1f")
		if len(f) < 10 {
			continue
		}
		ad, _ := time.Parse(time.RFC3339, f[5])
		cd, _ := time.Parse(time.RFC3339, f[8])
		out = append(out, commitInfo{SHA: f[0], Tree: f[1], Parents: strings.Fields(f[2]), AuthorName: f[3], AuthorEmail: f[4],
			AuthorDate: ad, CommitterName: f[6], CommitterEmail: f[7], CommitterDate: cd, Message: strings.TrimRight(f[9], "\n")})
	}
	return out
}

func (g gitRepo) commit(sha string) (commitInfo, error) {
	s, err := g.run(nil, nil, "show", "-s", "--format="+logFormat, sha)
	if err != nil {
		return commitInfo{}, err
	}
	cs := parseLog(s)
	if len(cs) != 1 {
		return commitInfo{}, errors.New("commit not found")
	}
	return cs[0], nil
}

// commitsBetween returns base..head, oldest first.
func (g gitRepo) commitsBetween(base, head string) ([]commitInfo, error) {
	s, err := g.run(nil, nil, "log", "--reverse", "--format="+logFormat, base+".."+head)
	if err != nil {
		return nil, err
	}
	return parseLog(s), nil
}

func (g gitRepo) count(rng string) int {
	s, err := g.out("rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(s, &n)
	return n
}

func (g gitRepo) mergeBase(a, b string) (string, bool) {
	s, err := g.out("merge-base", a, b)
	return s, err == nil && s != ""
}

func (g gitRepo) isAncestor(a, b string) bool {
	_, err := g.out("merge-base", "--is-ancestor", a, b)
	return err == nil
}

// fileChange is one file of a diff.
type fileChange struct {
	Filename, Status        string
	Additions, Deletions    int
	PreviousFilename, Patch string
}

// diff returns the files changed between two commits.
func (g gitRepo) diff(base, head string) ([]fileChange, error) {
	s, err := g.out("diff", "--numstat", "-z", "--no-renames", base, head)
	if err != nil {
		return nil, err
	}
	st, err := g.out("diff", "--name-status", "--no-renames", base, head)
	if err != nil {
		return nil, err
	}
	status := map[string]string{}
	for _, line := range strings.Split(st, "\n") {
		if k, name, ok := strings.Cut(line, "\t"); ok {
			status[name] = map[string]string{"A": "added", "D": "removed", "M": "modified"}[k[:1]]
		}
	}
	var out []fileChange
	for _, rec := range strings.Split(s, "\x00") {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			continue
		}
		var a, d int
		fmt.Sscan(f[0], &a)
		fmt.Sscan(f[1], &d)
		st := status[f[2]]
		if st == "" {
			st = "modified"
		}
		out = append(out, fileChange{Filename: f[2], Status: st, Additions: a, Deletions: d})
	}
	return out, nil
}

// mergeTree merges head into base without touching any ref. It returns the
// merged tree, or conflict when the merge does not apply cleanly.
func (g gitRepo) mergeTree(base, head string) (tree string, conflict bool, err error) {
	s, err := g.run(nil, nil, "merge-tree", "--write-tree", "--no-messages", base, head)
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			return "", true, nil
		}
		return "", false, err
	}
	return strings.TrimSpace(strings.SplitN(s, "\n", 2)[0]), false, nil
}

// updateRef moves a branch with compare-and-swap on its old value.
func (g gitRepo) updateRef(branch, newSHA, oldSHA string) error {
	_, err := g.out("update-ref", "refs/heads/"+branch, newSHA, oldSHA)
	return err
}

// treeEntry is one path in a commit's tree.
type treeEntry struct {
	Path, Type, SHA string
	Size            int
}

func parseTree(s, dir string) []treeEntry {
	var out []treeEntry
	for _, line := range strings.Split(s, "\x00") {
		meta, name, ok := strings.Cut(line, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) < 4 {
			continue
		}
		var size int
		fmt.Sscan(f[3], &size)
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		out = append(out, treeEntry{Path: p, Type: f[1], SHA: f[2], Size: size})
	}
	return out
}

// entry returns the tree entry at path in a commit; the root is a tree.
func (g gitRepo) entry(commit, path string) (treeEntry, bool) {
	if path == "" {
		sha, err := g.out("rev-parse", commit+"^{tree}")
		return treeEntry{Type: "tree", SHA: sha}, err == nil
	}
	if strings.HasPrefix(path, "-") || strings.Contains(path, "..") {
		return treeEntry{}, false
	}
	s, err := g.run(nil, nil, "ls-tree", "-z", "-l", "--full-tree", commit, "--", path)
	if err != nil {
		return treeEntry{}, false
	}
	for _, e := range parseTree(s, "") {
		if e.Path == path {
			return e, true
		}
	}
	return treeEntry{}, false
}

// list returns a directory's entries.
func (g gitRepo) list(commit, dir string) ([]treeEntry, error) {
	s, err := g.run(nil, nil, "ls-tree", "-z", "-l", commit+":"+dir)
	if err != nil {
		return nil, err
	}
	return parseTree(s, dir), nil
}

// blob returns a blob's bytes.
func (g gitRepo) blob(sha string) ([]byte, error) {
	s, err := g.run(nil, nil, "cat-file", "blob", sha)
	return []byte(s), err
}

// hunks returns the new-side line ranges (start, count) of one file's diff
// between two commits, with git's default three lines of context; nil when
// the diff does not touch the file.
func (g gitRepo) hunks(base, head, file string) ([][2]int, error) {
	if strings.HasPrefix(file, "-") {
		return nil, nil
	}
	s, err := g.out("diff", "--no-renames", "-U3", base, head, "--", file)
	if err != nil {
		return nil, err
	}
	var out [][2]int
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "@@ ") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[2], "+") {
			continue
		}
		start, count, ok := strings.Cut(f[2][1:], ",")
		h := [2]int{0, 1}
		fmt.Sscan(start, &h[0])
		if ok {
			fmt.Sscan(count, &h[1])
		}
		out = append(out, h)
	}
	return out, nil
}

// withFile returns the tree of commit with path set to content, through a
// temporary index so that no work tree is needed.
func (g gitRepo) withFile(commit, path string, content []byte) (string, error) {
	if strings.HasPrefix(path, "-") || strings.Contains(path, "..") || strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("ghstandin: bad path %q", path)
	}
	blob, err := g.run(content, nil, "hash-object", "-w", "--stdin")
	if err != nil {
		return "", err
	}
	idx, err := os.CreateTemp("", "ghstandin-index-*")
	if err != nil {
		return "", err
	}
	idx.Close()
	os.Remove(idx.Name())
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	if _, err := g.run(nil, env, "read-tree", commit); err != nil {
		return "", err
	}
	if _, err := g.run(nil, env, "update-index", "--add", "--cacheinfo", "100644,"+strings.TrimSpace(blob)+","+path); err != nil {
		return "", err
	}
	tree, err := g.run(nil, env, "write-tree")
	return strings.TrimSpace(tree), err
}
