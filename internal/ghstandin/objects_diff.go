package ghstandin

import (
	"bytes"
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// diff answers `git diff --raw --numstat --no-renames base head` in
// process where its answer is provably git's, and errObjectModel
// elsewhere (git answers):
//   - only regular files change (no symlink, submodule or type change);
//   - no .gitattributes in either tree (an attribute can make a file
//     binary or give it a diff driver);
//   - a file is binary, as git judges it, when a NUL is in its first 8000
//     bytes: git counts no lines (-), read here as 0;
//   - an added or removed text file counts its lines;
//   - a modified text file counts the lines of a minimal line diff, which
//     is git's count when git's diff is minimal too: after the common
//     prefix and suffix, no line occurs in the other file as often as
//     xdiff's limit for leaving it out (xdl_cleanup_records), and the edit
//     distance stays under the cost at which xdiff gives up looking for
//     the minimum (XDL_MAX_COST_MIN, 256). Any minimal diff has the same
//     additions and deletions: their difference is the change in line
//     count and their sum the edit distance.
//
// Files come in git's order: by path, bytewise.
func (o *objectStore) diff(base, head string) ([]fileChange, error) {
	bh, ok1 := parseID(base)
	hh, ok2 := parseID(head)
	if !ok1 || !ok2 {
		return nil, errObjectModel
	}
	o.lock()
	defer o.mu.Unlock()
	trees := [2]*object.Tree{}
	for i, h := range []plumbing.Hash{bh, hh} {
		t, err := o.tree(h.String(), "")
		if err != nil {
			return nil, errObjectModel
		}
		trees[i] = t
	}
	files := [2]map[string]object.TreeEntry{{}, {}}
	for i, t := range trees {
		if err := o.flatten(t, "", files[i]); err != nil {
			return nil, err
		}
	}
	var paths []string
	for p, e := range files[0] {
		if f, ok := files[1][p]; !ok || f.Hash != e.Hash || f.Mode != e.Mode {
			paths = append(paths, p)
		}
	}
	for p := range files[1] {
		if _, ok := files[0][p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []fileChange
	for _, p := range paths {
		a, inA := files[0][p]
		b, inB := files[1][p]
		fc := fileChange{Filename: p, Status: "modified"}
		var old, new []byte
		var err error
		if inA {
			if old, err = o.blobData(a.Hash); err != nil {
				return nil, err
			}
		}
		if inB {
			if new, err = o.blobData(b.Hash); err != nil {
				return nil, err
			}
		}
		switch {
		case !inA:
			fc.Status = "added"
		case !inB:
			fc.Status = "removed"
		case a.Mode != b.Mode:
			// A mode change of a regular file (executable bit): git
			// still counts the content's lines.
		}
		if !isBinary(old) && !isBinary(new) {
			var exact bool
			if fc.Additions, fc.Deletions, exact = lineCounts(old, new); !exact {
				return nil, errObjectModel
			}
		}
		out = append(out, fc)
	}
	return out, nil
}

// flatten adds the regular files under t (at prefix) to files; a symlink,
// a submodule or a .gitattributes is left to git.
func (o *objectStore) flatten(t *object.Tree, prefix string, files map[string]object.TreeEntry) error {
	for _, e := range t.Entries {
		p := prefix + e.Name
		switch e.Mode {
		case filemode.Dir:
			obj, err := o.object(e.Hash)
			if err != nil {
				return errObjectModel
			}
			sub := &object.Tree{}
			if err := sub.Decode(obj); err != nil {
				return errObjectModel
			}
			if err := o.flatten(sub, p+"/", files); err != nil {
				return err
			}
		case filemode.Regular, filemode.Executable:
			if e.Name == ".gitattributes" {
				return errObjectModel
			}
			files[p] = e
		default:
			return errObjectModel
		}
	}
	return nil
}

// blobData reads a blob's bytes. The caller holds o.mu.
func (o *objectStore) blobData(h plumbing.Hash) ([]byte, error) {
	obj, err := o.object(h)
	if err != nil {
		return nil, errObjectModel
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, errObjectModel
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, errObjectModel
	}
	return data, nil
}

// isBinary is git's buffer_is_binary: a NUL in the first 8000 bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
}

// splitLines splits data into xdiff's records: lines with their newline,
// the last one without when the data does not end in one.
func splitLines(data []byte) []string {
	var out []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, string(data))
			break
		}
		out = append(out, string(data[:i+1]))
		data = data[i+1:]
	}
	return out
}

// xdiffCostMin is XDL_MAX_COST_MIN: below it xdiff's search is exact.
const xdiffCostMin = 256

// lineCounts returns the lines added and deleted from old to new, and
// whether they are git's (see diff).
func lineCounts(old, new []byte) (adds, dels int, ok bool) {
	a, b := splitLines(old), splitLines(new)
	if len(a) == 0 || len(b) == 0 {
		return len(b), len(a), true
	}
	inA, inB := map[string]int{}, map[string]int{}
	for _, l := range a {
		inA[l]++
	}
	for _, l := range b {
		inB[l]++
	}
	mlimA, mlimB := min(bogosqrt(len(a)), 1024), min(bogosqrt(len(b)), 1024)
	// The common prefix and suffix (xdl_trim_ends).
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	for _, l := range a {
		if n := inB[l]; n >= mlimA {
			return 0, 0, false
		}
	}
	for _, l := range b {
		if n := inA[l]; n >= mlimB {
			return 0, 0, false
		}
	}
	d, ok := editDistance(a, b, xdiffCostMin)
	if !ok {
		return 0, 0, false
	}
	// adds - dels = len(b) - len(a) and adds + dels = d.
	adds = (d + len(b) - len(a)) / 2
	return adds, d - adds, true
}

// bogosqrt is xdiff's xdl_bogosqrt.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// editDistance is the number of lines inserted and deleted by a minimal
// diff of a and b (Myers), or false when it is max or more.
func editDistance(a, b []string, max int) (int, bool) {
	n, m := len(a), len(b)
	off := max + 1
	v := make([]int, 2*max+3)
	for d := 0; d < max; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return d, true
			}
		}
	}
	return 0, false
}
