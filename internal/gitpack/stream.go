package gitpack

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// StreamPack writes a pack (version 2) of n whole objects to w, as git's
// receive-pack reads one, asking next for object i in turn: its type, its
// size and its content, which is read once and closed. Memory stays at one
// object's compression buffers whatever the pack's size; a content that is
// not size bytes long fails the pack, as does an error of next or of w.
func StreamPack(w io.Writer, n int, next func(i int) (plumbing.ObjectType, int64, io.ReadCloser, error)) error {
	if n < 0 || int64(n) > 1<<32-1 {
		return fmt.Errorf("a pack of %d objects", n)
	}
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 64<<10)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], 2)
	binary.BigEndian.PutUint32(head[8:], uint32(n))
	if _, err := bw.Write(head[:]); err != nil {
		return err
	}
	zw, _ := zlib.NewWriterLevel(bw, zlib.BestSpeed)
	for i := 0; i < n; i++ {
		typ, size, r, err := next(i)
		if err != nil {
			return err
		}
		err = streamObject(bw, zw, typ, size, r)
		if cerr := r.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// streamObject writes one object's pack header and its compressed content.
func streamObject(bw *bufio.Writer, zw *zlib.Writer, typ plumbing.ObjectType, size int64, r io.Reader) error {
	switch typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
	default:
		return fmt.Errorf("a pack object of type %s", typ)
	}
	if size < 0 {
		return fmt.Errorf("a pack object of %d bytes", size)
	}
	s := size
	c := byte(typ)<<4 | byte(s&0x0f)
	s >>= 4
	for s > 0 {
		if err := bw.WriteByte(c | 0x80); err != nil {
			return err
		}
		c = byte(s & 0x7f)
		s >>= 7
	}
	if err := bw.WriteByte(c); err != nil {
		return err
	}
	zw.Reset(bw)
	copied, err := io.CopyN(zw, r, size)
	if err != nil {
		return fmt.Errorf("an object of %d bytes ended at %d: %w", size, copied, err)
	}
	var one [1]byte
	if k, _ := r.Read(one[:]); k > 0 {
		return fmt.Errorf("an object of %d bytes is longer", size)
	}
	return zw.Close()
}
