package agent

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"path"
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
)

// FuzzObjectSizer feeds the header readers hostile bytes: as a loose
// object (raw, and deflated), and as the pack entry a one-object pack
// index points at. They may refuse anything; they never panic and never
// report a size over the limit without refusing it. The object stores are
// in memory: three temporary directories per input held it to a few
// dozen inputs in 30 s on a busy machine (issue 33), and the readers see
// only the billy.Filesystem either way.
func FuzzObjectSizer(f *testing.F) {
	f.Add([]byte("blob 5\x00hello"))
	f.Add([]byte{0x3f, 0x01, 0x02})
	f.Add([]byte{0x65, 0x78, 0x9c, 0x00})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	const h = "0123456789abcdef0123456789abcdef01234567"
	index := oneObjectIndex(h, 0)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, form := range []string{"raw", "deflated", "packed"} {
			dotgit := memfs.New()
			write := func(name string, b []byte) {
				if err := util.WriteFile(dotgit, name, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			switch form {
			case "raw", "deflated":
				content := data
				if form == "deflated" {
					var b bytes.Buffer
					z := zlib.NewWriter(&b)
					z.Write(data)
					z.Close()
					content = b.Bytes()
				}
				write(path.Join("objects", h[:2], h[2:]), content)
			case "packed":
				write("objects/pack/pack-x.pack", data)
				write("objects/pack/pack-x.idx", index)
			}
			s, err := newObjectSizer(dotgit, 1<<20)
			if err != nil {
				continue
			}
			if _, size, err := s.size(h); err == nil && size > 1<<20 {
				t.Errorf("%s: size %d over the limit accepted", form, size)
			}
			s.close()
		}
	})
}

// oneObjectIndex is a version 2 pack index of one object at off.
func oneObjectIndex(h string, off uint32) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	raw := make([]byte, 20)
	for i := range raw {
		var v byte
		for _, c := range h[2*i : 2*i+2] {
			v <<= 4
			if c >= 'a' {
				v |= byte(c-'a') + 10
			} else {
				v |= byte(c - '0')
			}
		}
		raw[i] = v
	}
	for i := 0; i < 256; i++ {
		n := uint32(0)
		if i >= int(raw[0]) {
			n = 1
		}
		binary.Write(&b, binary.BigEndian, n)
	}
	b.Write(raw)
	b.Write(make([]byte, 4))
	binary.Write(&b, binary.BigEndian, off)
	b.Write(make([]byte, 40))
	return b.Bytes()
}
