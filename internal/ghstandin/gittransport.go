package ghstandin

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// This file serves git's smart HTTP the way `git http-backend` does, but
// without it: the reference advertisement (GET info/refs?service=…) and the
// two RPCs (POST git-upload-pack, git-receive-pack) run
// `git upload-pack|receive-pack --stateless-rpc [--advertise-refs] .` in
// the repository directly (http-backend spells --advertise-refs as its
// alias --http-backend-info-refs), with the headers, the "# service=" preamble,
// the gzip handling, the content-type check and the environment
// http-backend gives them. Every answer is still real git's; what goes is
// one process (http-backend itself) per git request. Anything else —
// the dumb protocol's files, a method http-backend refuses, a repository
// whose configuration turns a service off or that is not on disk — is
// left to http-backend (gitBackend.cgi), so it is answered as before.

// gitBackend serves the stand-in's repositories over smart HTTP.
type gitBackend struct {
	root string       // the repositories' directory (GIT_PROJECT_ROOT)
	env  []string     // the environment http-backend gets (cgi.Handler.Env)
	cgi  *cgi.Handler // git http-backend, for what gitBackend does not serve itself
}

// smartCall is one smart-HTTP request gitBackend serves itself.
type smartCall struct {
	service   string // "upload-pack" or "receive-pack"
	advertise bool   // info/refs rather than the RPC
}

// smartCallOf returns the smart-HTTP call a request for rest (the path
// after owner/name.git) makes, and false for a request http-backend
// answers otherwise (dumb HTTP, a wrong method, an unknown service).
func smartCallOf(method, rest, service string) (smartCall, bool) {
	switch {
	case method == http.MethodGet && rest == "/info/refs":
		svc, ok := strings.CutPrefix(service, "git-")
		if ok && (svc == "upload-pack" || svc == "receive-pack") {
			return smartCall{service: svc, advertise: true}, true
		}
	case method == http.MethodPost && rest == "/git-upload-pack":
		return smartCall{service: "upload-pack"}, true
	case method == http.MethodPost && rest == "/git-receive-pack":
		return smartCall{service: "receive-pack"}, true
	}
	return smartCall{}, false
}

// serve answers r, whose path is /<name>.git<rest>, with extra added to
// the environment of the git it runs (the protection hook's settings).
func (b *gitBackend) serve(w http.ResponseWriter, r *http.Request, name, rest string, extra []string) {
	dir := filepath.Join(b.root, filepath.FromSlash(name)+".git")
	call, ok := smartCallOf(r.Method, rest, r.URL.Query().Get("service"))
	if !ok || !serviceEnabled(dir, call.service) {
		h := *b.cgi
		h.Env = append(append([]string(nil), h.Env...), extra...)
		h.ServeHTTP(w, r)
		return
	}
	hdr := w.Header()
	// http-backend's hdr_nocache.
	hdr.Set("Expires", "Fri, 01 Jan 1980 00:00:00 GMT")
	hdr.Set("Pragma", "no-cache")
	hdr.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	args := []string{call.service, "--stateless-rpc"}
	var stdin io.Reader
	if call.advertise {
		hdr.Set("Content-Type", "application/x-git-"+call.service+"-advertisement")
		args = append(args, "--advertise-refs")
	} else {
		want := "application/x-git-" + call.service + "-request"
		if got := r.Header.Get("Content-Type"); got != want {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			fmt.Fprintf(w, "Expected POST with Content-Type '%s', but received '%s' instead.\n", want, got)
			return
		}
		hdr.Set("Content-Type", "application/x-git-"+call.service+"-result")
		stdin = r.Body
		if enc := r.Header.Get("Content-Encoding"); enc == "gzip" || enc == "x-gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				// http-backend dies after its headers: an empty answer.
				w.WriteHeader(http.StatusOK)
				return
			}
			defer zr.Close()
			stdin = zr
		}
	}
	cmd := exec.Command("git", append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = b.childEnv(r, call, extra)
	cmd.Stderr = os.Stderr // where http-backend's stderr went (cgi.Handler.Stderr nil)
	w.WriteHeader(http.StatusOK)
	if call.advertise && protocolVersion(r.Header.Values("Git-Protocol")) != 2 {
		_, _ = w.Write(pktLine("# service=git-" + call.service + "\n"))
		_, _ = w.Write([]byte("0000"))
	}
	proto := strings.Join(r.Header.Values("Git-Protocol"), ", ")
	if mayList(call, proto) {
		// Perhaps a listing of references, which git answers from the
		// repository's configuration and references alone (gitmemo.go).
		// http-backend reads an upload-pack request whole too.
		var body []byte
		if stdin != nil {
			var err error
			if body, err = io.ReadAll(stdin); err != nil {
				return // http-backend dies: an empty answer
			}
		}
		key, ok := b.listingKey(call, dir, proto, body, extra)
		if ok {
			if out, hit := listings.get(key); hit {
				_, _ = w.Write(out)
				return
			}
		}
		var out bytes.Buffer
		cmd.Stdin, cmd.Stdout = bytes.NewReader(body), &out
		err := cmd.Run()
		if ok && err == nil {
			// Kept only when nothing it depends on moved while git ran.
			if after, still := b.listingKey(call, dir, proto, body, extra); still && after == key {
				listings.put(key, out.Bytes())
			}
		}
		_, _ = w.Write(out.Bytes())
		return
	}
	cmd.Stdin = stdin
	cmd.Stdout = w
	// As with http-backend, the status is sent: a git that fails has
	// said why in its answer (or on stderr), and the client reads it.
	_ = cmd.Run()
}

// childEnv is the environment http-backend gives the git it runs, as Go's
// CGI host builds it (PATH, LD_LIBRARY_PATH, the handler's Env) and
// http-backend extends it: GIT_PROTOCOL from the Git-Protocol header, and
// for a push the committer of the reflog, "anonymous@http.<address>".
func (b *gitBackend) childEnv(r *http.Request, call smartCall, extra []string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/bin:/usr/bin:/usr/ucb:/usr/bsd:/usr/local/bin"
	}
	env := []string{"PATH=" + path}
	if v := os.Getenv("LD_LIBRARY_PATH"); v != "" {
		env = append(env, "LD_LIBRARY_PATH="+v)
	}
	env = append(append(env, b.env...), extra...)
	if v := r.Header.Values("Git-Protocol"); len(v) > 0 {
		env = append(env, "GIT_PROTOCOL="+strings.Join(v, ", "))
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if host == "" {
		host = "(none)"
	}
	env = append(env, "GIT_COMMITTER_NAME=anonymous", "GIT_COMMITTER_EMAIL=anonymous@http."+host)
	return lastWins(env)
}

// lastWins drops every entry of env that a later one for the same
// variable overrides, as Go's CGI host does.
func lastWins(env []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		k, _, _ := strings.Cut(env[i], "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, env[i])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// protocolVersion is the protocol version a Git-Protocol header asks for,
// as git's determine_protocol_version_server reads GIT_PROTOCOL: the
// highest "version=N" among its colon-separated keys, 0 when none.
func protocolVersion(values []string) int {
	v := 0
	for _, item := range strings.Split(strings.Join(values, ", "), ":") {
		n, ok := strings.CutPrefix(item, "version=")
		if !ok {
			continue
		}
		switch n {
		case "1":
			v = max(v, 1)
		case "2":
			v = 2
		}
	}
	return v
}

// pktLine frames s as one pkt-line.
func pktLine(s string) []byte {
	return fmt.Appendf(nil, "%04x%s", len(s)+4, s)
}

// serviceEnabled reports whether http-backend would serve service for the
// repository in dir without refusing it: the directory is there, and its
// configuration enables the service — upload-pack unless http.uploadpack
// says otherwise, receive-pack only when http.receivepack is true (the
// stand-in's pushes are anonymous to http-backend, which then refuses a
// push unless told). A configuration this cannot read with certainty
// (one that includes others) is left to http-backend.
func serviceEnabled(dir, service string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return false
	}
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return false
	}
	if cfg.HasSection("include") || cfg.HasSection("includeIf") {
		return false
	}
	key := strings.ReplaceAll(service, "-", "")
	var value string
	set := false
	for _, o := range cfg.Section("http").Options {
		if strings.EqualFold(o.Key, key) {
			value, set = o.Value, true
		}
	}
	if !set {
		return service == "upload-pack"
	}
	switch strings.ToLower(value) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}
