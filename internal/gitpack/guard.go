package gitpack

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// TooLargeError reports an object in an incoming pack larger than the
// limit: the blob at Path (when the pack's trees name it) of Size bytes,
// the Index-th object of the pack, at byte Offset.
type TooLargeError struct {
	Path  string
	ID    plumbing.Hash // zero for a delta, whose id needs its base
	Size  int64
	Limit int64
	Index uint32
	// Offset is where the object starts in the pack.
	Offset int64
	// Delta is set when the object is a delta making Size bytes.
	Delta bool
}

func (e *TooLargeError) Error() string {
	what := "an object"
	switch {
	case e.Path != "":
		what = strconv.Quote(e.Path)
	case !e.ID.IsZero():
		what = "blob " + e.ID.String()
	case e.Delta:
		what = "a delta-compressed object"
	}
	return fmt.Sprintf("%s is %d bytes, over the %d-byte limit on a control repository's files (object %d of the pack, at byte %d); remove it from the control branch's history or keep it elsewhere",
		what, e.Size, e.Limit, e.Index, e.Offset)
}

// Guard returns a writer for an incoming pack that refuses it at the
// first object larger than limit, before anything but this scan holds a
// byte of it: the pack goes to a temporary file in dir as it comes while
// a scan reads each object's header (and inflates it through a bounded
// buffer, to find where the next begins); an object over the limit stops
// the writes (its bytes are hashed and dropped, to name its path) and the
// next Write or Close returns a *TooLargeError. A pack that passes is
// copied on Close into the writer next opens (the repository's own,
// which indexes it), and the temporary file is removed either way. Memory
// stays a few buffers plus the largest commit or tree, each at most limit.
// A pack the scan cannot read is passed on as it is, for next's reader to
// judge.
func Guard(dir string, limit int64, next func() (io.WriteCloser, error)) (io.WriteCloser, error) {
	f, err := os.CreateTemp(dir, "tmp_gallivant_fetch_")
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	g := &guard{f: f, pw: pw, next: next, sc: &packScan{limit: limit, dirs: map[plumbing.Hash]string{}, paths: map[plumbing.Hash]string{}}}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.sc.run(pr)
		_, _ = io.Copy(io.Discard, pr) // what follows a refusal or damage
	}()
	return g, nil
}

type guard struct {
	f    *os.File
	pw   *io.PipeWriter
	next func() (io.WriteCloser, error)
	sc   *packScan
	wg   sync.WaitGroup
	err  error // a write to the file failed
}

func (g *guard) Write(p []byte) (int, error) {
	if err := g.sc.failed(); err != nil {
		return 0, err
	}
	if g.err != nil {
		return 0, g.err
	}
	_, _ = g.pw.Write(p) // returns once the scan has read all of p
	if err := g.sc.failed(); err != nil {
		return 0, err
	}
	if g.sc.refusing.Load() {
		return len(p), nil // the oversized object: scanned, not kept
	}
	if _, err := g.f.Write(p); err != nil {
		g.err = err
		return 0, err
	}
	return len(p), nil
}

// Close ends the scan and hands a pack that passed to next.
func (g *guard) Close() (err error) {
	_ = g.pw.Close()
	g.wg.Wait()
	defer func() {
		_ = g.f.Close()
		_ = os.Remove(g.f.Name())
	}()
	if err := g.sc.failed(); err != nil {
		return err
	}
	if g.sc.refusing.Load() {
		// Refused, but the stream ended before the object did.
		return g.sc.tooLarge
	}
	if g.err != nil {
		return g.err
	}
	if _, err := g.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	w, err := g.next()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, g.f)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// packScan reads a pack's objects as they stream in.
type packScan struct {
	limit int64
	// refusing is set at the header of an object over the limit; err
	// once the object has been read (hashed, for its id) or the stream
	// ended.
	refusing atomic.Bool
	mu       sync.Mutex
	err      error
	tooLarge *TooLargeError
	// dirs are the paths of the trees seen named, by id (commits' root
	// trees are ""); paths those of the blobs their trees name.
	dirs, paths map[plumbing.Hash]string
}

func (s *packScan) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// countingReader counts the bytes read through it, for object offsets.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

// run scans the pack; on a refusal it records the error; on damage it
// stops and lets the bytes through.
func (s *packScan) run(r io.Reader) {
	cr := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	var hdr [12]byte
	if _, err := io.ReadFull(cr, hdr[:]); err != nil || !bytes.Equal(hdr[:4], []byte("PACK")) {
		return
	}
	count := binary.BigEndian.Uint32(hdr[8:])
	var zr io.ReadCloser
	buf := make([]byte, 32<<10)
	for i := uint32(0); i < count; i++ {
		off := cr.n
		c := &packCursorOf{cr}
		typ, size, err := c.header()
		if err != nil {
			return
		}
		switch typ {
		case packOfsDelta:
			if _, err := c.ofs(); err != nil {
				return
			}
		case packRefDelta:
			if _, err := io.CopyN(io.Discard, cr, 20); err != nil {
				return
			}
		}
		if zr == nil {
			zr, err = zlib.NewReader(cr)
		} else {
			err = zr.(zlib.Resetter).Reset(cr, nil)
		}
		if err != nil {
			return
		}
		tl := &TooLargeError{Size: size, Limit: s.limit, Index: i + 1, Offset: off}
		switch typ {
		case packCommit, packTree:
			if size > s.limit {
				s.refuse(tl, zr, nil)
				return
			}
			data := make([]byte, size)
			if _, err := io.ReadFull(zr, data); err != nil {
				return
			}
			if typ == packCommit {
				if bytes.HasPrefix(data, []byte("tree ")) && len(data) >= 45 {
					s.dirs[plumbing.NewHash(string(data[5:45]))] = ""
				}
			} else {
				s.tree(HashObject(plumbing.TreeObject, data), data)
			}
		case packBlob:
			if size > s.limit {
				h := sha1.New()
				fmt.Fprintf(h, "blob %d\x00", size)
				s.refuse(tl, zr, h)
				return
			}
		case packOfsDelta, packRefDelta:
			// The delta's header says what it makes: the base's size,
			// then the target's.
			head := buf[:min(len(buf), 20)]
			n, _ := io.ReadFull(zr, head)
			_, k := binary.Uvarint(head[:n])
			if k > 0 {
				if target, j := binary.Uvarint(head[k:n]); j > 0 && target > uint64(s.limit) {
					tl.Size, tl.Delta = int64(min(target, 1<<62)), true
					s.refuse(tl, zr, nil)
					return
				}
			}
		}
		if _, err := io.CopyBuffer(io.Discard, zr, buf); err != nil {
			return
		}
	}
}

// refuse stops the writes, reads the rest of the object (into h, for the
// blob's id and so its path), and records the refusal.
func (s *packScan) refuse(tl *TooLargeError, zr io.Reader, h interface {
	io.Writer
	Sum([]byte) []byte
}) {
	s.refusing.Store(true)
	s.mu.Lock()
	s.tooLarge = tl
	s.mu.Unlock()
	if h != nil {
		if n, err := io.Copy(h, zr); err == nil && n == tl.Size {
			copy(tl.ID[:], h.Sum(nil))
			tl.Path = s.paths[tl.ID]
		}
	}
	s.mu.Lock()
	s.err = tl
	s.mu.Unlock()
}

// tree records the paths tree id names, when its own path is known.
func (s *packScan) tree(id plumbing.Hash, raw []byte) {
	dir, ok := s.dirs[id]
	if !ok {
		return
	}
	for len(raw) > 0 {
		sp := bytes.IndexByte(raw, ' ')
		nul := bytes.IndexByte(raw, 0)
		if sp < 0 || nul < sp || len(raw) < nul+21 {
			return
		}
		name := string(raw[sp+1 : nul])
		if dir != "" {
			name = dir + "/" + name
		}
		var h plumbing.Hash
		copy(h[:], raw[nul+1:nul+21])
		if string(raw[:sp]) == "40000" {
			if _, seen := s.dirs[h]; !seen {
				s.dirs[h] = name
			}
		} else if _, seen := s.paths[h]; !seen {
			s.paths[h] = name
		}
		raw = raw[nul+21:]
	}
}

// packCursorOf reads an object's header from a stream.
type packCursorOf struct{ r io.ByteReader }

func (c *packCursorOf) header() (typ int, size int64, err error) {
	b, err := c.r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	typ, size = int(b>>4)&7, int64(b&0x0f)
	for shift := 4; b&0x80 != 0; shift += 7 {
		if shift > 56 {
			return 0, 0, errCorruptHeader
		}
		if b, err = c.r.ReadByte(); err != nil {
			return 0, 0, err
		}
		size |= int64(b&0x7f) << shift
	}
	return typ, size, nil
}

func (c *packCursorOf) ofs() (int64, error) {
	b, err := c.r.ReadByte()
	if err != nil {
		return 0, err
	}
	rel := int64(b & 0x7f)
	for b&0x80 != 0 {
		if rel > 1<<55 {
			return 0, errCorruptHeader
		}
		if b, err = c.r.ReadByte(); err != nil {
			return 0, err
		}
		rel = (rel+1)<<7 | int64(b&0x7f)
	}
	return rel, nil
}

var errCorruptHeader = errors.New("corrupt object header")
