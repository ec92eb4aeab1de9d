package agent

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5"
)

// ingestLimits bound what one return may bring into the mirror, in bytes
// inflated: an object larger than GitHub accepts (100 MiB) and a return
// larger than a push GitHub takes in reasonable time are refused before
// they are inflated.
type ingestLimits struct {
	Object  int64
	Return  int64
	Objects int
}

// defaultIngestLimits are the limits of every return.
var defaultIngestLimits = ingestLimits{Object: 100 << 20, Return: 1 << 30, Objects: 500_000}

// ReturnTooLargeError refuses a return before anything of it is
// inflated: one object, or the return as a whole, is over its limit.
type ReturnTooLargeError struct {
	// Object is the hash of the object that is too large, or that brought
	// the return over its limit.
	Object string
	// Type is the object's type (blob, tree, commit, tag; delta for a
	// packed delta's own data).
	Type string
	// Size is the object's inflated size, or the return's when Whole.
	Size, Limit int64
	// Whole reports the return's total, not one object, over the limit.
	Whole bool
	// Count reports too many objects (Size and Limit are counts).
	Count bool
}

func (e *ReturnTooLargeError) Error() string {
	switch {
	case e.Count:
		return fmt.Sprintf("the return holds more than %d objects (object %s is the %dth): refused", e.Limit, e.Object, e.Size)
	case e.Whole:
		return fmt.Sprintf("the return is %d bytes inflated with object %s (%s), over the limit of %d bytes for one return: refused", e.Size, e.Object, e.Type, e.Limit)
	}
	return fmt.Sprintf("object %s (%s) is %d bytes inflated, over the limit of %d bytes for one object: refused", e.Object, e.Type, e.Size, e.Limit)
}

// objectSizer reads the inflated size of an object of a checkout's .git
// from its header alone, bounded to the .git directory: a loose object's
// zlib header, a packed object's entry header (for a delta, the delta's
// own header, and its base's, each checked against the limit before any
// of it is inflated).
type objectSizer struct {
	fs    billy.Filesystem
	limit int64
	packs []packIndex
}

// packIndex is a version 2 pack index, read through ReadAt.
type packIndex struct {
	name   string // objects/pack/pack-….idx
	idx    billy.File
	pack   billy.File
	count  uint32
	fanout [256]uint32
}

// newObjectSizer checks the checkout's object store before go-git opens
// it: alternates are refused, and every pack index must be a version 2
// index whose size holds the objects its fan-out claims (go-git would
// allocate what the fan-out says).
func newObjectSizer(fs billy.Filesystem, limit int64) (*objectSizer, error) {
	s := &objectSizer{fs: fs, limit: limit}
	for _, alt := range []string{"objects/info/alternates", "objects/info/http-alternates"} {
		if _, err := fs.Lstat(alt); err == nil {
			return nil, fmt.Errorf("the checkout's .git/%s is not read: commit into the checkout's own object store", alt)
		}
	}
	ents, err := fs.ReadDir("objects/pack")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".idx") {
			continue
		}
		p, err := s.openPack(path.Join("objects/pack", e.Name()), e.Size())
		if err != nil {
			s.close()
			return nil, err
		}
		s.packs = append(s.packs, p)
	}
	return s, nil
}

func (s *objectSizer) openPack(name string, size int64) (packIndex, error) {
	p := packIndex{name: name}
	f, err := s.fs.Open(name)
	if err != nil {
		return p, err
	}
	var head [8 + 256*4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		f.Close()
		return p, fmt.Errorf("%s: not a pack index: %w", name, err)
	}
	if !bytes.Equal(head[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		f.Close()
		return p, fmt.Errorf("%s: not a version 2 pack index", name)
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
		if i > 0 && p.fanout[i] < p.fanout[i-1] {
			f.Close()
			return p, fmt.Errorf("%s: corrupt fan-out", name)
		}
	}
	p.count = p.fanout[255]
	if want := int64(len(head)) + int64(p.count)*28 + 40; size < want {
		f.Close()
		return p, fmt.Errorf("%s claims %d objects but is %d bytes, short of %d", name, p.count, size, want)
	}
	pack, err := s.fs.Open(strings.TrimSuffix(name, ".idx") + ".pack")
	if err != nil {
		f.Close()
		return p, fmt.Errorf("%s: its pack: %w", name, err)
	}
	p.idx, p.pack = f, pack
	return p, nil
}

func (s *objectSizer) close() {
	for _, p := range s.packs {
		p.idx.Close()
		p.pack.Close()
	}
}

// size returns the type and inflated size of object h, failing with a
// *ReturnTooLargeError for an object over the limit.
func (s *objectSizer) size(h string) (string, int64, error) {
	return s.sizeAt(h, 0)
}

func (s *objectSizer) sizeAt(h string, depth int) (string, int64, error) {
	if depth > 64 {
		return "", 0, fmt.Errorf("object %s: delta chain deeper than 64", h)
	}
	if len(h) != 40 {
		return "", 0, fmt.Errorf("object %q: not a hash", h)
	}
	typ, size, err := s.loose(h)
	if errors.Is(err, os.ErrNotExist) {
		typ, size, err = s.packed(h, depth)
	}
	if err != nil {
		return "", 0, err
	}
	if size > s.limit {
		return typ, size, &ReturnTooLargeError{Object: h, Type: typ, Size: size, Limit: s.limit}
	}
	return typ, size, nil
}

// loose reads a loose object's header: at most 32 inflated bytes.
func (s *objectSizer) loose(h string) (string, int64, error) {
	f, err := s.fs.Open(path.Join("objects", h[:2], h[2:]))
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	z, err := zlib.NewReader(bufio.NewReaderSize(f, 512))
	if err != nil {
		return "", 0, fmt.Errorf("object %s: %w", h, err)
	}
	var buf [32]byte
	n, err := io.ReadFull(z, buf[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", 0, fmt.Errorf("object %s: %w", h, err)
	}
	header, _, ok := bytes.Cut(buf[:n], []byte{0})
	if !ok {
		return "", 0, fmt.Errorf("object %s: no header", h)
	}
	typ, sz, ok := strings.Cut(string(header), " ")
	size, err := strconv.ParseInt(sz, 10, 64)
	if !ok || err != nil || size < 0 {
		return "", 0, fmt.Errorf("object %s: bad header %q", h, header)
	}
	return typ, size, nil
}

// packed finds h in the packs and reads its entry's header.
func (s *objectSizer) packed(h string, depth int) (string, int64, error) {
	raw, err := hex.DecodeString(h)
	if err != nil {
		return "", 0, fmt.Errorf("object %q: not a hash", h)
	}
	for _, p := range s.packs {
		off, ok, err := p.find(raw)
		if err != nil {
			return "", 0, err
		}
		if ok {
			return s.entry(p, h, off, depth)
		}
	}
	return "", 0, fmt.Errorf("object %s: %w", h, os.ErrNotExist)
}

// find binary-searches the index for raw, returning its pack offset.
func (p packIndex) find(raw []byte) (int64, bool, error) {
	lo := uint32(0)
	if raw[0] > 0 {
		lo = p.fanout[raw[0]-1]
	}
	hi := p.fanout[raw[0]]
	var name [20]byte
	for lo < hi {
		mid := lo + (hi-lo)/2
		if _, err := p.idx.ReadAt(name[:], int64(8+256*4)+int64(mid)*20); err != nil {
			return 0, false, fmt.Errorf("%s: %w", p.name, err)
		}
		switch c := bytes.Compare(name[:], raw); {
		case c == 0:
			return p.offset(mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

func (p packIndex) offset(i uint32) (int64, bool, error) {
	base := int64(8+256*4) + int64(p.count)*24
	var b [8]byte
	if _, err := p.idx.ReadAt(b[:4], base+int64(i)*4); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.name, err)
	}
	off := binary.BigEndian.Uint32(b[:4])
	if off&0x80000000 == 0 {
		return int64(off), true, nil
	}
	large := base + int64(p.count)*4 + int64(off&0x7fffffff)*8
	if _, err := p.idx.ReadAt(b[:], large); err != nil {
		return 0, false, fmt.Errorf("%s: %w", p.name, err)
	}
	return int64(binary.BigEndian.Uint64(b[:]) & (1<<63 - 1)), true, nil
}

var packTypes = map[byte]string{1: "commit", 2: "tree", 3: "blob", 4: "tag", 6: "delta", 7: "delta"}

// entry reads the pack entry at off: its own header and, for a delta,
// the delta's source and target sizes and its base's size, each checked.
func (s *objectSizer) entry(p packIndex, h string, off int64, depth int) (string, int64, error) {
	r := bufio.NewReaderSize(io.NewSectionReader(p.pack, off, 1<<62), 512)
	kind, size, err := entryHeader(r)
	if err != nil {
		return "", 0, fmt.Errorf("object %s in %s: %w", h, p.name, err)
	}
	typ, ok := packTypes[kind]
	if !ok {
		return "", 0, fmt.Errorf("object %s in %s: bad entry type %d", h, p.name, kind)
	}
	if size > s.limit {
		return typ, size, &ReturnTooLargeError{Object: h, Type: typ, Size: size, Limit: s.limit}
	}
	if typ != "delta" {
		return typ, size, nil
	}
	baseSize, err := s.deltaBase(r, p, h, off, kind, depth)
	if err != nil {
		return "", 0, err
	}
	src, target, err := deltaSizes(r)
	if err != nil {
		return "", 0, fmt.Errorf("object %s in %s: %w", h, p.name, err)
	}
	if src > s.limit {
		return "delta base", src, &ReturnTooLargeError{Object: h, Type: "delta base", Size: src, Limit: s.limit}
	}
	btyp, bsize, err := baseSize()
	if err != nil {
		return "", 0, err
	}
	if bsize != src {
		return "", 0, fmt.Errorf("object %s in %s: delta of a %d-byte base whose size is %d", h, p.name, src, bsize)
	}
	return btyp, target, nil
}

// entryHeader reads a pack entry's header: its type number and its size.
func entryHeader(r *bufio.Reader) (kind byte, size int64, err error) {
	c, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	kind = (c >> 4) & 7
	size = int64(c & 15)
	for shift := uint(4); c&0x80 != 0; shift += 7 {
		if shift > 56 {
			return 0, 0, errors.New("bad entry header")
		}
		if c, err = r.ReadByte(); err != nil {
			return 0, 0, err
		}
		size |= int64(c&0x7f) << shift
	}
	return kind, size, nil
}

// deltaBase reads where the base of the delta entry h at off is (an
// offset back in the same pack for kind 6, an object id for kind 7) and
// returns how to size it, one level deeper.
func (s *objectSizer) deltaBase(r *bufio.Reader, p packIndex, h string, off int64, kind byte, depth int) (func() (string, int64, error), error) {
	if kind != 6 {
		var base [20]byte
		if _, err := io.ReadFull(r, base[:]); err != nil {
			return nil, err
		}
		return func() (string, int64, error) { return s.sizeAt(hex.EncodeToString(base[:]), depth+1) }, nil
	}
	c, err := r.ReadByte()
	if err != nil {
		return nil, err
	}
	back := int64(c & 0x7f)
	for c&0x80 != 0 {
		if back > 1<<50 {
			return nil, fmt.Errorf("object %s in %s: bad delta offset", h, p.name)
		}
		if c, err = r.ReadByte(); err != nil {
			return nil, err
		}
		back = (back+1)<<7 | int64(c&0x7f)
	}
	if back <= 0 || back > off {
		return nil, fmt.Errorf("object %s in %s: bad delta offset", h, p.name)
	}
	return func() (string, int64, error) { return s.entry(p, h+"^base", off-back, depth+1) }, nil
}

// deltaSizes reads a delta's source and target sizes from the start of
// its deflated data: at most 20 inflated bytes.
func deltaSizes(r io.Reader) (src, target int64, err error) {
	z, err := zlib.NewReader(r)
	if err != nil {
		return 0, 0, err
	}
	var head [20]byte
	n, _ := io.ReadFull(z, head[:])
	src, rest, err := leb128(head[:n])
	if err != nil {
		return 0, 0, err
	}
	target, _, err = leb128(rest)
	if err != nil {
		return 0, 0, err
	}
	return src, target, nil
}

// leb128 decodes a delta header's size.
func leb128(b []byte) (int64, []byte, error) {
	var v int64
	for i, shift := 0, uint(0); i < len(b); i, shift = i+1, shift+7 {
		if shift > 56 {
			break
		}
		v |= int64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errors.New("bad delta header")
}
