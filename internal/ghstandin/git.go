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

	"github.com/go-git/go-git/v5/plumbing"
)

// gitRepo runs the real git binary in one bare repository, and reads its
// objects in process when objs is set (objects.go).
type gitRepo struct {
	dir  string
	objs *objectStore
}

// answered reports whether err, from the in-process reader, is its answer
// (nil, or an object that is not there) rather than a query it leaves to
// git: errObjectModel, or a read that failed for another reason.
func answered(err error) bool {
	return err == nil || errors.Is(err, plumbing.ErrObjectNotFound)
}

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
	if g.objs != nil {
		if ci, err := g.objs.commit(sha); answered(err) {
			if err != nil {
				return commitInfo{}, errors.New("commit not found")
			}
			return ci, nil
		}
	}
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
	if cs, ok, err := g.chainBetween(base, head); ok {
		return cs, err
	}
	s, err := g.run(nil, nil, "log", "--reverse", "--format="+logFormat, base+".."+head)
	if err != nil {
		return nil, err
	}
	return parseLog(s), nil
}

// chainBetween is commitsBetween in process, when those commits form one
// line of descent: their order is then the only one git can print. ok is
// false when git is to be asked (a merge inside the range, where git
// orders by dates).
func (g gitRepo) chainBetween(base, head string) (cs []commitInfo, ok bool, err error) {
	if g.objs == nil {
		return nil, false, nil
	}
	nodes, err := g.objs.only(base, head)
	if !answered(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("git log %s..%s: %w", base, head, err)
	}
	in := map[string]*commitNode{}
	for _, n := range nodes {
		in[n.info.SHA] = n
	}
	if len(nodes) > 0 && nodes[0].info.SHA != head {
		return nil, false, nil
	}
	// Highest generation first: on a line of descent, each commit's one
	// parent in the range is the next.
	for i, n := range nodes {
		var next, want *commitNode
		for _, p := range n.info.Parents {
			if pn := in[p]; pn != nil {
				if next != nil {
					return nil, false, nil
				}
				next = pn
			}
		}
		if i+1 < len(nodes) {
			want = nodes[i+1]
		}
		if next != want {
			return nil, false, nil
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		cs = append(cs, nodes[i].info)
	}
	return cs, true, nil
}

func (g gitRepo) count(rng string) int {
	if base, head, ok := strings.Cut(rng, ".."); ok && g.objs != nil {
		if nodes, err := g.objs.only(base, head); answered(err) {
			if err != nil {
				return 0
			}
			return len(nodes)
		}
	}
	s, err := g.out("rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	var n int
	fmt.Sscan(s, &n)
	return n
}

func (g gitRepo) mergeBase(a, b string) (string, bool) {
	if g.objs != nil {
		// More than one best common ancestor is left to git, which
		// prints the one its walk finds first.
		if bases, err := g.objs.mergeBases(a, b); answered(err) && len(bases) <= 1 {
			if err != nil || len(bases) == 0 {
				return "", false
			}
			return bases[0], true
		}
	}
	s, err := g.out("merge-base", a, b)
	return s, err == nil && s != ""
}

func (g gitRepo) isAncestor(a, b string) bool {
	if g.objs != nil {
		if yes, err := g.objs.ancestor(a, b); answered(err) {
			return yes
		}
	}
	_, err := g.out("merge-base", "--is-ancestor", a, b)
	return err == nil
}

// fileChange is one file of a diff.
type fileChange struct {
	Filename, Status        string
	Additions, Deletions    int
	PreviousFilename, Patch string
}

// diff returns the files changed between two commits: read in process
// where the answer is provably git's (objectStore.diff), else one git
// process, whose answer any repository holding both commits shares
// (sharedRun).
func (g gitRepo) diff(base, head string) ([]fileChange, error) {
	if g.objs != nil {
		if out, err := g.objs.diff(base, head); err == nil {
			return out, nil
		}
	}
	s, err := g.sharedRun([]string{base, head}, "diff", "--raw", "--numstat", "-z", "--no-renames", base, head)
	if err != nil {
		return nil, err
	}
	// -z: raw records are ":modes ids status" NUL path NUL; numstat
	// records "added TAB deleted TAB path" NUL, after all raw records.
	status := map[string]string{}
	var out []fileChange
	recs := strings.Split(s, "\x00")
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		if strings.HasPrefix(rec, ":") {
			if i+1 < len(recs) {
				f := strings.Fields(rec)
				if len(f) > 0 {
					status[recs[i+1]] = map[string]string{"A": "added", "D": "removed", "M": "modified"}[f[len(f)-1][:1]]
				}
			}
			i++
			continue
		}
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

// sharedAnswers memoizes, across repositories, answers that depend only on
// the commits named: a diff or a merge between two commits is the same in
// every repository that holds both. The stand-in's many repositories (one
// set per test, built from the same templates) ask the same ones.
var sharedAnswers = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

// sharedRun is run, memoized across repositories when every commit in
// commits is a full id this repository holds (read in process).
func (g gitRepo) sharedRun(commits []string, args ...string) (string, error) {
	key := ""
	if g.objs != nil {
		key = strings.Join(args, "\x00")
		for _, c := range commits {
			if sha, err := g.objs.resolveID(c); err != nil || sha != c {
				key = ""
				break
			}
		}
	}
	if key != "" {
		sharedAnswers.Lock()
		out, ok := sharedAnswers.m[key]
		sharedAnswers.Unlock()
		if ok {
			return out, nil
		}
	}
	out, err := g.run(nil, nil, args...)
	if key != "" && err == nil {
		sharedAnswers.Lock()
		if len(sharedAnswers.m) >= maxObjectAnswers {
			clear(sharedAnswers.m)
		}
		sharedAnswers.m[key] = out
		sharedAnswers.Unlock()
	}
	return out, err
}

// mergeTree merges head into base without touching any ref. It returns the
// merged tree, or conflict when the merge does not apply cleanly.
func (g gitRepo) mergeTree(base, head string) (tree string, conflict bool, err error) {
	// A conflict, or a merged tree this repository already holds, is
	// the same answer in every repository that holds both commits; a
	// tree it does not hold yet is written by running git.
	key := "merge-tree\x00" + base + "\x00" + head
	shared := false
	if g.objs != nil {
		a, errA := g.objs.resolveID(base)
		b, errB := g.objs.resolveID(head)
		shared = errA == nil && errB == nil && a == base && b == head
	}
	if shared {
		sharedAnswers.Lock()
		t, ok := sharedAnswers.m[key]
		sharedAnswers.Unlock()
		if ok && t == "" {
			return "", true, nil
		}
		if ok {
			if typ, err := g.objs.typeOf(t); err == nil && typ == "tree" {
				return t, false, nil
			}
		}
	}
	s, err := g.run(nil, nil, "merge-tree", "--write-tree", "--no-messages", base, head)
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 {
			if shared {
				sharedAnswers.Lock()
				sharedAnswers.m[key] = ""
				sharedAnswers.Unlock()
			}
			return "", true, nil
		}
		return "", false, err
	}
	tree = strings.TrimSpace(strings.SplitN(s, "\n", 2)[0])
	if shared {
		sharedAnswers.Lock()
		if len(sharedAnswers.m) >= maxObjectAnswers {
			clear(sharedAnswers.m)
		}
		sharedAnswers.m[key] = tree
		sharedAnswers.Unlock()
	}
	return tree, false, nil
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
		if g.objs != nil {
			if ci, err := g.objs.commit(commit); answered(err) {
				return treeEntry{Type: "tree", SHA: ci.Tree}, err == nil
			}
		}
		sha, err := g.out("rev-parse", commit+"^{tree}")
		return treeEntry{Type: "tree", SHA: sha}, err == nil
	}
	if strings.HasPrefix(path, "-") || strings.Contains(path, "..") {
		return treeEntry{}, false
	}
	if g.objs != nil {
		if e, ok, err := g.objs.entry(commit, path); answered(err) {
			return e, ok
		}
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
	if g.objs != nil {
		if es, err := g.objs.list(commit, dir); answered(err) {
			if err != nil {
				return nil, fmt.Errorf("git ls-tree %s:%s: %w", commit, dir, err)
			}
			return es, nil
		}
	}
	s, err := g.run(nil, nil, "ls-tree", "-z", "-l", commit+":"+dir)
	if err != nil {
		return nil, err
	}
	return parseTree(s, dir), nil
}

// typeOf returns an object's type as git cat-file -t names it.
func (g gitRepo) typeOf(sha string) (string, error) {
	if g.objs != nil {
		if t, err := g.objs.typeOf(sha); answered(err) {
			return t, err
		}
	}
	t, err := g.exec(nil, nil, "cat-file", "-t", sha)
	return strings.TrimSpace(t), err
}

// blob returns a blob's bytes.
func (g gitRepo) blob(sha string) ([]byte, error) {
	if g.objs != nil {
		name := sha
		if ref, path, ok := strings.Cut(sha, ":"); ok && !hexID.MatchString(ref) {
			// ref:path: the ref resolved as rev-parse would, then the
			// path read in process.
			if c, found := g.resolve(ref); found {
				name = c + ":" + path
			}
		}
		if data, err := g.objs.blob(name); answered(err) {
			if err != nil {
				return nil, fmt.Errorf("git cat-file blob %s: %w", sha, err)
			}
			return data, nil
		}
	}
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
