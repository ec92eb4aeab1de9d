package ghstandin

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The stand-in answers every ref read (a branch, matching-refs, a pull
// request's head) from the bare repository's files instead of forking git:
// a process per request under the server's lock made the stand-in's own
// cost dominate benchmarks of gallivant. Pushes still go through the real
// git (smart HTTP) and ref writes through git update-ref, so only reading
// is reimplemented, and only for the files backend `git init` creates.

var hexID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// readRefs returns every ref under refs/ with the object it names: the
// packed-refs file overlaid with the loose ref files, as git resolves them.
// Loose refs are read before packed-refs: git's pack-refs writes the packed
// file before it deletes the loose ones, and a deletion rewrites packed-refs
// before it removes the loose file, so this order never misses a ref that
// existed throughout the read. Symbolic refs are skipped; branches are
// never symbolic here.
func readRefs(gitDir string) (map[string]string, error) {
	loose := map[string]string{}
	root := filepath.Join(gitDir, "refs")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				// Deleted while walking (a ref removed, an empty
				// directory pruned): it is simply not there.
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sha := string(bytes.TrimSpace(data))
		if !hexID.MatchString(sha) {
			return nil
		}
		rel, err := filepath.Rel(gitDir, path)
		if err != nil {
			return err
		}
		loose[filepath.ToSlash(rel)] = sha
		return nil
	})
	if err != nil {
		return nil, err
	}
	out, err := readPackedRefs(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return nil, err
	}
	for name, sha := range loose {
		out[name] = sha
	}
	return out, nil
}

// readPackedRefs parses a packed-refs file: "<sha> <refname>" lines, a
// "# pack-refs" header, and "^<sha>" lines peeling the tag above them.
func readPackedRefs(path string) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		sha, name, ok := strings.Cut(line, " ")
		if ok && hexID.MatchString(sha) && strings.HasPrefix(name, "refs/") {
			out[name] = sha
		}
	}
	return out, sc.Err()
}

// branches returns every branch and its head.
func (g gitRepo) branches() (map[string]string, error) {
	refs, err := readRefs(g.dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for name, sha := range refs {
		if b, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			out[b] = sha
		}
	}
	return out, nil
}

// resolve returns the commit a ref or SHA names. A full object id, a full
// ref name and a name that git would take for a branch are answered
// without git; anything else (an abbreviated id, a short tag name, ref^
// syntax) asks git rev-parse.
func (g gitRepo) resolve(ref string) (string, bool) {
	if strings.HasPrefix(ref, "-") || ref == "" {
		return "", false
	}
	if g.objs != nil && hexID.MatchString(ref) {
		if sha, err := g.objs.resolveID(ref); answered(err) {
			return sha, err == nil
		}
	}
	if !hexID.MatchString(ref) && !strings.ContainsAny(ref, "^~:@{}") {
		if refs, err := readRefs(g.dir); err == nil {
			// gitrevisions: refs/<name>, then refs/tags/<name>, then
			// refs/heads/<name>. A tag is left to git (it may be
			// annotated and need peeling).
			_, full := refs["refs/"+ref]
			_, tag := refs["refs/tags/"+ref]
			if !full && !tag {
				if sha, ok := refs["refs/heads/"+ref]; ok {
					return sha, true
				}
			}
			if sha, ok := refs[ref]; ok && strings.HasPrefix(ref, "refs/heads/") {
				return sha, true
			}
			if sha, ok := refs[ref]; ok && strings.HasPrefix(ref, "refs/") && g.objs != nil {
				// A full ref name (a tag, refs/pull/N/head): its object,
				// peeled in process.
				if c, err := g.objs.resolveID(sha); answered(err) {
					return c, err == nil
				}
			}
		}
	}
	s, err := g.out("rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	return s, err == nil && s != ""
}
