package agent

import (
	"fmt"
	"math/rand"
	"os/exec"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/gitopen"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// fent is a file of a generated tree: its mode and object.
type fent struct {
	mode filemode.FileMode
	hash plumbing.Hash
}

// putBlob stores a blob of data.
func putBlob(t testing.TB, s storer.EncodedObjectStorer, data string) plumbing.Hash {
	o := s.NewEncodedObject()
	o.SetType(plumbing.BlobObject)
	w, err := o.Writer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, err := s.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// putTree stores the tree of the files under prefix, subtrees first.
func putTree(t testing.TB, s storer.EncodedObjectStorer, files map[string]fent, prefix string) plumbing.Hash {
	children := map[string]bool{}
	var entries []object.TreeEntry
	for p, e := range files {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := p[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			children[rest[:i]] = true
			continue
		}
		entries = append(entries, object.TreeEntry{Name: rest, Mode: e.mode, Hash: e.hash})
	}
	for c := range children {
		entries = append(entries, object.TreeEntry{Name: c, Mode: filemode.Dir, Hash: putTree(t, s, files, prefix+c+"/")})
	}
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i].Name, entries[j].Name
		if entries[i].Mode == filemode.Dir {
			a += "/"
		}
		if entries[j].Mode == filemode.Dir {
			b += "/"
		}
		return a < b
	})
	return putObject(t, s, &object.Tree{Entries: entries})
}

// putObject stores a tree or commit as go-git encodes it.
func putObject(t testing.TB, s storer.EncodedObjectStorer, v interface {
	Encode(plumbing.EncodedObject) error
}) plumbing.Hash {
	o := s.NewEncodedObject()
	if err := v.Encode(o); err != nil {
		t.Fatal(err)
	}
	h, err := s.SetEncodedObject(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// putCommit stores a commit.
func putCommit(t testing.TB, s storer.EncodedObjectStorer, tree plumbing.Hash, parents []plumbing.Hash, when time.Time, msg string) plumbing.Hash {
	sig := object.Signature{Name: "a", Email: "a@x", When: when}
	return putObject(t, s, &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents})
}

// copyMap is a copy of a generated tree.
func copyMap(m map[string]fent) map[string]fent {
	n := make(map[string]fent, len(m))
	for k, v := range m {
		n[k] = v
	}
	return n
}

// setPath puts a file at p, removing anything that conflicts (a file at a
// prefix directory, a directory at p).
func setPath(files map[string]fent, p string, e fent) {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		delete(files, d)
	}
	for k := range files {
		if strings.HasPrefix(k, p+"/") {
			delete(files, k)
		}
	}
	files[p] = e
}

// FuzzSendable builds a random history from each seed (merges, committer
// dates out of order and equal, files put back, a file turned into a
// directory and back, symlinks, submodules, mode changes) and checks that
// what a push of a random head would send against random tips (some the
// repository lacks, the zero id) holds every object
// `git rev-list --objects head --not tips` lists: a pack that missed one
// would be refused by GitHub on every try. A reverted change made
// sendable miss the trees it put back before it read commits parents
// first.
func FuzzSendable(f *testing.F) {
	for seed := range int64(24) {
		f.Add(seed)
	}
	names := []string{"a", "b", "c", "a/x", "a/y", "a/x/z", "b/q", "d/e/f", "d/e", "d", "c/c"}
	f.Fuzz(func(t *testing.T, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		dir := t.TempDir()
		if _, err := git.PlainInit(dir, true); err != nil {
			t.Fatal(err)
		}
		repo, err := gitopen.PlainOpen(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := repo.Storer
		var commits []plumbing.Hash
		var states []map[string]fent
		blobs := []plumbing.Hash{putBlob(t, s, "")}
		base := time.Unix(1_800_000_000, 0)
		n := 5 + rng.Intn(25)
		for i := 0; i < n; i++ {
			var files map[string]fent
			var parents []plumbing.Hash
			if i > 0 {
				p := rng.Intn(len(commits))
				if rng.Intn(3) > 0 {
					p = len(commits) - 1 - rng.Intn(min(3, len(commits)))
				}
				parents = append(parents, commits[p])
				files = copyMap(states[p])
				if len(commits) > 1 && rng.Intn(4) == 0 {
					q := rng.Intn(len(commits))
					if q != p {
						parents = append(parents, commits[q])
						// take some entries from q
						var ks []string
						for k := range states[q] {
							ks = append(ks, k)
						}
						sort.Strings(ks)
						for _, k := range ks {
							v := states[q][k]
							if rng.Intn(2) == 0 {
								setPath(files, k, v)
							}
						}
					}
				}
			} else {
				files = map[string]fent{}
			}
			for k := 0; k < 1+rng.Intn(3); k++ {
				p := names[rng.Intn(len(names))]
				switch rng.Intn(7) {
				case 0:
					delete(files, p)
				case 1: // reuse an old blob (file put back)
					setPath(files, p, fent{filemode.Regular, blobs[rng.Intn(len(blobs))]})
				case 2:
					b := putBlob(t, s, fmt.Sprintf("link-%d-%d", seed, rng.Intn(5)))
					blobs = append(blobs, b)
					setPath(files, p, fent{filemode.Symlink, b})
				case 3:
					setPath(files, p, fent{filemode.Submodule, plumbing.NewHash(fmt.Sprintf("%040x", rng.Int63()))})
				case 4: // mode change only
					if e, ok := files[p]; ok && e.mode == filemode.Regular {
						files[p] = fent{filemode.Executable, e.hash}
					}
				default:
					b := putBlob(t, s, fmt.Sprintf("content %d %d", seed, rng.Intn(1000)))
					blobs = append(blobs, b)
					setPath(files, p, fent{filemode.Regular, b})
				}
			}
			tree := putTree(t, s, files, "")
			skew := time.Duration(rng.Intn(5)-2) * time.Hour
			if rng.Intn(3) == 0 {
				skew = 0
			}
			when := base.Add(time.Duration(i)*time.Minute + skew)
			if rng.Intn(4) == 0 && i > 0 {
				when = base // same second as many others
			}
			commits = append(commits, putCommit(t, s, tree, parents, when, fmt.Sprint(i)))
			states = append(states, files)
		}
		for trial := 0; trial < 5; trial++ {
			head := commits[rng.Intn(len(commits))]
			var tips []plumbing.Hash
			for k := 0; k < rng.Intn(4); k++ {
				tips = append(tips, commits[rng.Intn(len(commits))])
			}
			if rng.Intn(3) == 0 {
				tips = append(tips, plumbing.NewHash(fmt.Sprintf("%040x", rng.Int63()))) // a tip the repo lacks
			}
			if rng.Intn(3) == 0 {
				tips = append(tips, plumbing.ZeroHash)
			}
			objs, err := sendable(repo, head, tips)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			have := map[string]bool{}
			for _, o := range objs {
				have[o.String()] = true
			}
			args := []string{"rev-list", "--objects", head.String()}
			var not []string
			for _, tp := range tips {
				if tp.IsZero() {
					continue
				}
				if _, err := repo.Storer.EncodedObject(plumbing.AnyObject, tp); err != nil {
					continue
				}
				not = append(not, "^"+tp.String())
			}
			args = append(args, not...)
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("seed %d rev-list: %v", seed, err)
			}
			for _, ln := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if ln == "" {
					continue
				}
				id, _, _ := strings.Cut(ln, " ")
				if !have[id] {
					t.Errorf("seed %d trial %d: sendable misses %s (head %s tips %v)", seed, trial, ln, head, tips)
				}
			}
		}
	})
}

// A commit dated before its parent on the tip's side (clock skew) is
// found the tip's after the walk took it for new: what the walk already
// took below it is the tip's too (git's walk passes the mark on), so the
// walk returns git's three commits, not the history below the skew.
func TestNewCommitsPastSkewStaysSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}
	repo, err := gitopen.PlainOpen(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := repo.Storer
	t0 := time.Unix(1_700_000_000, 0)
	files := map[string]fent{}
	var prev []plumbing.Hash
	mk := func(i int, when time.Time) plumbing.Hash {
		files[fmt.Sprintf("f%d", i%50)] = fent{filemode.Regular, putBlob(t, s, fmt.Sprint(i))}
		h := putCommit(t, s, putTree(t, s, files, ""), prev, when, fmt.Sprint(i))
		prev = []plumbing.Hash{h}
		return h
	}
	const n = 300
	for i := 0; i < n; i++ {
		mk(i, t0.Add(time.Duration(i)*time.Minute))
	}
	tEnd := t0.Add(n * time.Minute)
	P := mk(n, tEnd.Add(2*time.Second))
	mk(n+1, tEnd.Add(1*time.Second)) // Q, dated before its parent P
	B := mk(n+2, tEnd.Add(3*time.Second))
	W := mk(n+3, tEnd.Add(10*time.Second))
	prev = []plumbing.Hash{P}
	S := mk(n+4, tEnd.Add(5*time.Second))
	prev = []plumbing.Hash{W, S}
	H := mk(n+5, tEnd.Add(20*time.Second))
	cs, err := newCommits(repo, H, []plumbing.Hash{B})
	if err != nil {
		t.Fatal(err)
	}
	var got []plumbing.Hash
	for _, c := range cs {
		got = append(got, c.Hash)
	}
	if want := []plumbing.Hash{H, W, S}; !slices.Equal(got, want) {
		t.Errorf("newCommits = %d commits %v, want %v (git rev-list H --not B)", len(got), got, want)
	}
}
