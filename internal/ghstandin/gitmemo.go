package ghstandin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// This file memoizes the git answers that list references: the protocol
// v2 capability advertisement, a v2 ls-refs command and a v0 reference
// advertisement (of upload-pack or receive-pack). Real git computes each
// one the first time; the same request against a repository in the same
// state is answered with those bytes again, without a process. A pass
// lists references on every fetch and push, most often of a repository
// nothing has moved since (or a copy of the same template), so most of
// them are answered here.
//
// The key is everything such an answer is computed from: the request
// (service, Git-Protocol, body) and the environment of the git that
// answers it, the repository's config file, and for a listing of
// references every file git reads them from (HEAD, packed-refs, each file
// under refs/, shallow). Objects never change under their ids, so a peeled
// tag reads the same. A repository with alternates (whose references
// receive-pack advertises as .have), or whose configuration includes other
// files or advertises a session id (a new one per answer), is never
// memoized. An answer is kept only when the key read after git ran is the
// key read before: nothing moved meanwhile.

// listingMemo holds git's answers by key.
type listingMemo struct {
	sync.Mutex
	m    map[string][]byte
	hits int // answers given from the memo, for the tests
}

// listings is the memo, shared by every Server of the process.
var listings = &listingMemo{m: map[string][]byte{}}

// maxListings bounds the memo for a long-running sandbox; it is emptied
// when full.
const maxListings = 4096

func (l *listingMemo) get(key string) ([]byte, bool) {
	l.Lock()
	defer l.Unlock()
	out, ok := l.m[key]
	if ok {
		l.hits++
	}
	return out, ok
}

func (l *listingMemo) put(key string, out []byte) {
	l.Lock()
	defer l.Unlock()
	if len(l.m) >= maxListings {
		clear(l.m)
	}
	l.m[key] = bytes.Clone(out)
}

// lsRefsCommand is the first pkt-line of a v2 ls-refs request.
const lsRefsCommand = "0014command=ls-refs\n"

// mayList reports whether a call may be a listing of references, decided
// from its headers: any advertisement, or a v2 upload-pack request (whose
// body says whether it is ls-refs).
func mayList(call smartCall, proto string) bool {
	return call.advertise || (call.service == "upload-pack" && protocolVersion([]string{proto}) == 2)
}

// listingKey returns the memo key of a call that lists references, and
// false for one that does not or that is never memoized (see above).
func (b *gitBackend) listingKey(call smartCall, dir, proto string, body []byte, extra []string) (string, bool) {
	v2 := protocolVersion([]string{proto}) == 2
	capsOnly := call.advertise && call.service == "upload-pack" && v2
	if !call.advertise && !bytes.HasPrefix(body, []byte(lsRefsCommand)) {
		return "", false // a fetch or a push: it reads objects
	}
	h := sha256.New()
	field := func(name string, data []byte) {
		h.Write([]byte(name))
		h.Write([]byte{0})
		fmt.Fprintf(h, "%d\x00", len(data))
		h.Write(data)
	}
	field("service", []byte(call.service))
	if call.advertise {
		field("advertise", nil)
	}
	field("protocol", []byte(proto))
	field("body", body)
	for _, kv := range lastWins(append(append([]string(nil), b.env...), extra...)) {
		// The two directories http-backend is told of are read by no
		// listing: the repositories' root (http-backend's own) and the
		// hooks (run by a push only). Without them the key holds across
		// Servers, whose repositories are often copies of one template.
		if strings.HasPrefix(kv, "GIT_PROJECT_ROOT=") || strings.HasPrefix(kv, "GIT_CONFIG_VALUE_0=") {
			continue
		}
		field("env", []byte(kv))
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return "", false
	}
	lower := strings.ToLower(string(cfg))
	if strings.Contains(lower, "[include") || strings.Contains(lower, "advertisesid") {
		return "", false
	}
	field("config", cfg)
	if _, err := os.Lstat(filepath.Join(dir, "objects", "info", "alternates")); !os.IsNotExist(err) {
		return "", false
	}
	if capsOnly {
		return hex.EncodeToString(h.Sum(nil)), true
	}
	for _, name := range []string{"HEAD", "packed-refs", "shallow"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err == nil:
			field(name, data)
		case !os.IsNotExist(err):
			return "", false
		}
	}
	ok := true
	err = filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			ok = false // a symbolic link: left to git
			return fs.SkipAll
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		field(filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil || !ok {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
