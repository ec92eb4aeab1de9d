package gitpack

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"path"
	"sort"
	"strconv"
	"sync"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Object is one object of a pack to write: its content, or, when Base is
// set, a git delta that makes it from the object Base (earlier in the same
// pack, or already in the repository it is sent to).
type Object struct {
	Hash plumbing.Hash
	Type plumbing.ObjectType
	Data []byte
	Base plumbing.Hash
}

// HashObject is git's id of an object of type t with content.
func HashObject(t plumbing.ObjectType, content []byte) plumbing.Hash {
	hw := sha1.New()
	hw.Write(t.Bytes())
	hw.Write([]byte{' '})
	hw.Write(strconv.AppendInt(nil, int64(len(content)), 10))
	hw.Write([]byte{0})
	hw.Write(content)
	var h plumbing.Hash
	copy(h[:], hw.Sum(nil))
	return h
}

// Delta is the git delta that turns a base of baseLen bytes into a target
// of targetLen bytes by replacing cut bytes at off with ins.
func Delta(baseLen, targetLen, off, cut int, ins []byte) []byte {
	d := binary.AppendUvarint(nil, uint64(baseLen))
	d = binary.AppendUvarint(d, uint64(targetLen))
	d = appendCopy(d, 0, off)
	for len(ins) > 0 {
		n := min(len(ins), 127)
		d = append(d, byte(n))
		d = append(d, ins[:n]...)
		ins = ins[n:]
	}
	return appendCopy(d, off+cut, baseLen-off-cut)
}

// appendCopy appends copy instructions for size bytes of the base at off.
func appendCopy(d []byte, off, size int) []byte {
	for size > 0 {
		n := min(size, 0xffffff)
		op := byte(0x80)
		var args []byte
		for i := 0; i < 4; i++ {
			if b := byte(off >> (8 * i)); b != 0 {
				op |= 1 << i
				args = append(args, b)
			}
		}
		for i := 0; i < 3; i++ {
			if b := byte(n >> (8 * i)); b != 0 {
				op |= 1 << (4 + i)
				args = append(args, b)
			}
		}
		d = append(append(d, op), args...)
		off += n
		size -= n
	}
	return d
}

// packZlib is one compressor for every pack this process writes: a
// compressor's state is hundreds of kilobytes, which a sync.Pool would
// give back to every garbage collection.
var packZlib struct {
	sync.Mutex
	w *zlib.Writer
}

// Encode returns objs as a packfile (version 2, deltas by reference),
// its index (version 2) and its checksum, writing the pack into buf's
// memory when it is large enough.
func Encode(buf []byte, objs []Object) (pack, idx []byte, sum plumbing.Hash, err error) {
	size := 12 + sha1.Size
	for _, o := range objs {
		size += len(o.Data) + 64
	}
	if cap(buf) < size {
		buf = make([]byte, 0, size)
	}
	b := bytes.NewBuffer(buf[:0])
	b.WriteString("PACK")
	b.Write(binary.BigEndian.AppendUint32(nil, 2))
	b.Write(binary.BigEndian.AppendUint32(nil, uint32(len(objs))))
	type at struct {
		hash plumbing.Hash
		off  int
		crc  uint32
	}
	ats := make([]at, 0, len(objs))
	packZlib.Lock()
	defer packZlib.Unlock()
	if packZlib.w == nil {
		packZlib.w, _ = zlib.NewWriterLevel(nil, zlib.BestSpeed)
	}
	zw := packZlib.w
	for _, o := range objs {
		start := b.Len()
		if start >= 1<<31 {
			return nil, nil, plumbing.ZeroHash, errors.New("the pack's objects exceed 2 GiB")
		}
		typ := o.Type
		if !o.Base.IsZero() {
			typ = plumbing.REFDeltaObject
		}
		size := len(o.Data)
		c := byte(typ)<<4 | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			b.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		b.WriteByte(c)
		if !o.Base.IsZero() {
			b.Write(o.Base[:])
		}
		zw.Reset(b)
		if _, err := zw.Write(o.Data); err != nil {
			return nil, nil, plumbing.ZeroHash, err
		}
		if err := zw.Close(); err != nil {
			return nil, nil, plumbing.ZeroHash, err
		}
		ats = append(ats, at{hash: o.Hash, off: start, crc: crc32.ChecksumIEEE(b.Bytes()[start:])})
	}
	copy(sum[:], sha1Sum(b.Bytes()))
	b.Write(sum[:])
	pack = b.Bytes()

	sort.Slice(ats, func(i, j int) bool { return bytes.Compare(ats[i].hash[:], ats[j].hash[:]) < 0 })
	var x bytes.Buffer
	x.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fan [256]uint32
	for _, a := range ats {
		fan[a.hash[0]]++
	}
	var n uint32
	for i := range fan {
		n += fan[i]
		x.Write(binary.BigEndian.AppendUint32(nil, n))
	}
	for _, a := range ats {
		x.Write(a.hash[:])
	}
	for _, a := range ats {
		x.Write(binary.BigEndian.AppendUint32(nil, a.crc))
	}
	for _, a := range ats {
		x.Write(binary.BigEndian.AppendUint32(nil, uint32(a.off)))
	}
	x.Write(sum[:])
	x.Write(sha1Sum(x.Bytes()))
	return pack, x.Bytes(), sum, nil
}

func sha1Sum(b []byte) []byte { s := sha1.Sum(b); return s[:] }

// WritePack writes a pack and its index, as Encode returns them, into the
// objects/pack directory of the git directory fs. The index is written
// before the pack and each is written aside and renamed: git ignores an
// index without its pack, and go-git lists packs by their .pack file, so a
// process killed at any point leaves either no pack or a whole one (and
// perhaps a temporary file, which neither reads).
func WritePack(fs billy.Filesystem, pack, idx []byte, sum plumbing.Hash) error {
	dir := path.Join("objects", "pack")
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := path.Join(dir, "pack-"+sum.String())
	for _, f := range []struct {
		ext  string
		data []byte
	}{{".idx", idx}, {".pack", pack}} {
		if err := writeAside(fs, dir, name+f.ext, f.data); err != nil {
			return err
		}
	}
	return nil
}

// writeAside writes data to a temporary file in dir and renames it to
// name. Like go-git's loose objects it is not synced: a killed process
// leaves the file whole in the page cache; a power loss is not guarded.
func writeAside(fs billy.Filesystem, dir, name string, data []byte) error {
	f, err := fs.TempFile(dir, "tmp_gallivant_")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.Rename(tmp, name)
	}
	if err != nil {
		_ = fs.Remove(tmp)
	}
	return err
}
