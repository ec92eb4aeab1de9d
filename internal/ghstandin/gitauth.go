package ghstandin

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file makes git over HTTP authenticate and authorise as GitHub does:
// anyone may fetch a public repository, but a wrong token is 401 even for
// a fetch; a push needs a token (401 without one), push access (403 for a
// read-only user) and must pass the branch's protection or ruleset, which
// a pre-receive hook enforces with GitHub's messages.

// maxGitBody bounds one buffered git request body: a push larger than this
// is answered 413, as GitHub refuses pushes above its own limit.
const maxGitBody = 2 << 30

// maxPushCommands bounds the ref updates read from one push.
const maxPushCommands = 10000

const zeroSHA = "0000000000000000000000000000000000000000"

// gitRequest returns the repository a smart-HTTP request names (owner/name,
// as spelled in the path) and whether it is part of a push.
func gitRequest(r *http.Request) (full, rest string, push bool) {
	m := gitPathRE.FindStringSubmatch(r.URL.Path)
	if m == nil {
		return "", "", false
	}
	full, rest = m[1], m[2]
	push = rest == "/git-receive-pack" || (rest == "/info/refs" && r.URL.Query().Get("service") == "git-receive-pack")
	return full, rest, push
}

// gitLogin reads a git request's credentials: HTTP Basic with the token as
// the password (any user name, x-access-token by convention) or a bearer
// token. It returns the login, whether credentials were sent, and whether
// they are valid.
func (s *Server) gitLogin(r *http.Request) (login string, sent, ok bool) {
	_, tok, basic := r.BasicAuth()
	if !basic {
		var bearer bool
		tok, bearer = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !bearer {
			return "", r.Header.Get("Authorization") != "", false
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, known := s.st.Tokens[tok]; known && tok != "" {
		return l, true, true
	}
	l, valid := s.authenticateApp(r, tok)
	if strings.HasPrefix(l, appLoginPrefix) {
		// An App's JWT is not a git credential.
		return "", true, false
	}
	return l, true, valid
}

// gitDenied answers a refused git request as GitHub does: plain text,
// which git shows after "remote:" or in its fatal message.
func gitDenied(w http.ResponseWriter, status int, msg string) {
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

// serveGit serves git's smart HTTP as GitHub does: anyone fetches a
// repository, a push needs a token with push access and passes the
// branch's protection, and a push is announced to the repository's hooks.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) {
	full, rest, push := gitRequest(r)
	login, sent, ok := s.gitLogin(r)
	if sent && !ok {
		gitDenied(w, http.StatusUnauthorized, "Invalid username or token. Password authentication is not supported for Git operations.")
		return
	}
	name, rp, role := s.gitAccess(r, full, login)
	if status, msg := s.gitRefusal(name, rp, role, push, login); status != 0 {
		gitDenied(w, status, msg)
		return
	}
	f := s.gitFault(r, push)
	if f != nil && failGitEarly(f, w, r) {
		return
	}
	// Names match regardless of case, as on GitHub; the directory has the
	// repository's own spelling.
	r.URL.Path = "/" + name + ".git" + rest
	r.URL.RawPath = ""
	rules := ""
	if r.Method == http.MethodPost {
		body, err := bufferBody(r)
		if err != nil {
			gitDenied(w, http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		defer body.Close()
		if push {
			var status int
			if rules, status, err = s.pushRulesOf(body, r, rp, name, login); err != nil {
				gitDenied(w, status, err.Error())
				return
			}
		}
	}
	var before *repoMark
	var c *ctx
	if push && r.Method == http.MethodPost {
		s.mu.Lock()
		c = &ctx{s: s, repo: rp, full: name, git: s.repoGit(name), login: login}
		before = c.mark()
		s.mu.Unlock()
	}
	extra := []string{"STANDIN_RULES=" + rules}
	if rules == "" {
		// No rule applies: the hook would decline nothing and print
		// nothing, so git runs none (a shell, awk and git per ref less).
		extra = append(extra, "GIT_CONFIG_VALUE_0=/dev/null")
	}
	var out http.ResponseWriter = w
	var rec *recorder
	if f != nil {
		// A lost answer or a reset mid-body: git's answer is kept back.
		rec = &recorder{header: http.Header{}, status: http.StatusOK}
		out = rec
	}
	s.git.serve(out, r, name, rest, extra)
	if before != nil {
		// A push is announced as GitHub announces it: the push, and the
		// pull requests it moved, closed or merged.
		s.mu.Lock()
		c.sync()
		c.announce(before)
		s.mu.Unlock()
	}
	if rec != nil {
		finishGitFault(f, w, rec)
	} else if fl, ok := w.(http.Flusher); ok && before != nil {
		fl.Flush()
	}
	if before != nil {
		s.deliver(r.Context())
	}
}

// gitAccess looks up the repository full names: its own spelling of the
// name, the repository (nil when there is none) and login's role in it
// for this request. A token narrowed to other repositories reads this
// public one and pushes nothing to it.
func (s *Server) gitAccess(r *http.Request, full, login string) (name string, rp *repo, role string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name, rp = s.lookupRepo(full)
	role = RoleNone
	if rp != nil {
		role = s.roleOf(rp, login)
		if s.outOfScope(r, name) || s.readOnlyToken(r) {
			// A token narrowed to other repositories, or granted only
			// read, reads this public one and pushes nothing to it.
			role = RoleRead
		}
	}
	return name, rp, role
}

// gitRefusal is the status and message GitHub refuses a git request
// with, 0 when it serves it: an unknown repository, or a push without a
// login or without push access. A reader of a fork pushes only as a
// maintainer of a pull request from it that allows edits (pushRules
// decides per ref).
func (s *Server) gitRefusal(name string, rp *repo, role string, push bool, login string) (int, string) {
	switch {
	case rp == nil:
		return http.StatusNotFound, "Repository not found."
	case push && login == "":
		return http.StatusUnauthorized, "Invalid username or token. Password authentication is not supported for Git operations."
	case push && role != RoleAdmin && role != RoleWrite && !(role == RoleRead && s.maintainerAny(name, rp, login)):
		return http.StatusForbidden, fmt.Sprintf("Permission to %s.git denied to %s.", name, login)
	}
	return 0, ""
}

// pushRulesOf reads the ref updates of a push's buffered body (and
// rewinds it for git) and returns the rules the stand-in's pre-receive
// hook applies to them; an error comes with the status to refuse with.
func (s *Server) pushRulesOf(body *os.File, r *http.Request, rp *repo, name, login string) (string, int, error) {
	cmds, err := readPushCommands(body, r.Header.Get("Content-Encoding"))
	if err != nil {
		return "", http.StatusBadRequest, fmt.Errorf("ghstandin: %w", err)
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return "", http.StatusInternalServerError, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &ctx{s: s, repo: rp, full: name, git: s.repoGit(name), login: login}
	return c.pushRules(cmds), 0, nil
}

// bufferBody reads a request body whole into a temporary file and sets the
// request's length: Go's CGI host refuses chunked bodies, which git sends
// for every push above http.postBuffer (1 MB by default).
func bufferBody(r *http.Request) (*os.File, error) {
	f, err := os.CreateTemp("", "ghstandin-body-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	n, err := io.Copy(f, io.LimitReader(r.Body, maxGitBody+1))
	if err == nil && n > maxGitBody {
		err = fmt.Errorf("ghstandin: a git request body is limited to %d bytes", int64(maxGitBody))
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	r.Body, r.ContentLength, r.TransferEncoding = io.NopCloser(f), n, nil
	r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
	return f, nil
}

// pushCommand is one ref update of a push.
type pushCommand struct{ Old, New, Ref string }

// readPushCommands reads the ref updates at the start of a receive-pack
// request: pkt-lines "old new ref" (the first one followed by NUL and the
// capabilities), optional "shallow" lines, up to a flush packet.
func readPushCommands(body io.Reader, encoding string) ([]pushCommand, error) {
	if encoding == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("push body: %w", err)
		}
		body = zr
	}
	br := bufio.NewReader(body)
	var out []pushCommand
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return nil, fmt.Errorf("push body: pkt-line length: %w", err)
		}
		n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
		if err != nil {
			return nil, fmt.Errorf("push body: pkt-line length %q is not hexadecimal", hdr[:])
		}
		if n == 0 {
			return out, nil
		}
		if n < 4 {
			return nil, fmt.Errorf("push body: pkt-line length %d is below 4", n)
		}
		line := make([]byte, n-4)
		if _, err := io.ReadFull(br, line); err != nil {
			return nil, fmt.Errorf("push body: pkt-line: %w", err)
		}
		text, _, _ := strings.Cut(strings.TrimSuffix(string(line), "\n"), "\x00")
		if strings.HasPrefix(text, "shallow ") || strings.HasPrefix(text, "push-cert") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 3 || len(f[0]) != 40 || len(f[1]) != 40 {
			return nil, fmt.Errorf("push body: %q is not \"old new ref\"", text)
		}
		if len(out) == maxPushCommands {
			return nil, fmt.Errorf("push body: more than %d ref updates", maxPushCommands)
		}
		out = append(out, pushCommand{Old: f[0], New: f[1], Ref: f[2]})
	}
}

// Kinds of a protection row the pre-receive hook reads: a header printed
// before any refusal of the ref, a refusal of any update, and a refusal of
// an update that is not a fast-forward (which only the hook can tell, with
// the pushed objects at hand).
const (
	ruleHeader = "hdr"
	ruleAlways = "push"
	ruleNFF    = "nff"
)

// pushRules returns the rows the pre-receive hook enforces for a push by
// c.login: for each updated branch under protection the pusher does not
// bypass, GitHub's refusals (GH006 for classic protection, GH013 for a
// ruleset). Rows are tab-separated: ref, kind, message line. The caller
// holds s.mu.
func (c *ctx) pushRules(cmds []pushCommand) string {
	var b strings.Builder
	row := func(ref, kind, msg string) {
		msg = strings.NewReplacer("\t", " ", "\n", " ").Replace(msg)
		fmt.Fprintf(&b, "%s\t%s\t%s\n", ref, kind, msg)
	}
	maintainer := c.repo.Parent != "" && c.s.roleOf(c.repo, c.login) == RoleRead
	for _, cmd := range cmds {
		if strings.HasPrefix(cmd.Ref, "refs/pull/") {
			// GitHub keeps refs/pull/* itself.
			row(cmd.Ref, ruleAlways, "deny updating a hidden ref")
			continue
		}
		branch, ok := strings.CutPrefix(cmd.Ref, "refs/heads/")
		if maintainer && (!ok || !c.s.maintainerPush(c.full, c.repo, branch, c.login)) {
			row(cmd.Ref, ruleAlways, "Permission to "+c.full+".git denied to "+c.login+".")
			continue
		}
		if !ok {
			continue
		}
		p := c.repo.Protection[branch]
		if p == nil || c.bypasses(p) {
			continue
		}
		bullet := ""
		if p.Ruleset {
			row(cmd.Ref, ruleHeader, "GH013: Repository rule violations found for "+cmd.Ref+".")
			row(cmd.Ref, ruleHeader, "Review all repository rules at "+c.s.url+"/"+c.full+"/rules?ref="+strings.ReplaceAll(cmd.Ref, "/", "%2F"))
			bullet = "- "
		} else {
			row(cmd.Ref, ruleHeader, "GH006: Protected branch update failed for "+cmd.Ref+".")
		}
		if cmd.New == zeroSHA {
			if !p.AllowForcePushes {
				row(cmd.Ref, ruleAlways, bullet+"Cannot delete this protected branch")
			}
			continue
		}
		if p.RequiredReviews > 0 {
			row(cmd.Ref, ruleAlways, bullet+"Changes must be made through a pull request.")
		}
		var missing []string
		for _, name := range p.RequiredContexts {
			if !c.requiredPass(cmd.New, []string{name}) {
				missing = append(missing, name)
			}
		}
		switch {
		case len(missing) == 1:
			row(cmd.Ref, ruleAlways, bullet+fmt.Sprintf("Required status check %q is expected.", missing[0]))
		case len(missing) > 1:
			row(cmd.Ref, ruleAlways, bullet+fmt.Sprintf("%d of %d required status checks are expected.", len(missing), len(p.RequiredContexts)))
		}
		if !p.AllowForcePushes && cmd.Old != zeroSHA {
			row(cmd.Ref, ruleNFF, bullet+"Cannot force-push to this branch")
		}
	}
	return b.String()
}

// bypasses reports whether c.login pushes past p: an App on a ruleset's
// bypass list, or an administrator under classic protection that does not
// enforce admins. The caller holds s.mu.
func (c *ctx) bypasses(p *Protection) bool {
	if p.Ruleset {
		for _, slug := range p.BypassApps {
			if c.login == slug+"[bot]" && c.s.isInstallationLogin(c.login) {
				return true
			}
		}
		return false
	}
	return !p.EnforceAdmins && c.s.roleOf(c.repo, c.login) == RoleAdmin
}

// preReceive is the hook every push runs: it prints the rows of
// STANDIN_RULES that apply to each update (rows of kind nff only when the
// update is not a fast-forward) after their header, and declines the push
// when any applied. git shows the lines after "remote: error:".
const preReceive = `#!/bin/sh
# ghstandin: branch protection and rulesets, decided per push by the
# stand-in and passed in STANDIN_RULES (ref TAB kind TAB message).
zero=0000000000000000000000000000000000000000
status=0
while read -r old new ref; do
	ff=1
	if [ "$old" != "$zero" ] && [ "$new" != "$zero" ] && ! git merge-base --is-ancestor "$old" "$new" 2>/dev/null; then
		ff=0
	fi
	out=$(printf '%s' "$STANDIN_RULES" | awk -F '\t' -v r="$ref" -v ff="$ff" '
		$1 == r && $2 == "hdr" { hdr = hdr "error: " $3 "\n" }
		$1 == r && ($2 == "push" || ($2 == "nff" && ff == "0")) { why = why "error: " $3 "\n" }
		END { if (why != "") printf "%s%s", hdr, why }')
	if [ -n "$out" ]; then
		printf '%s\n' "$out" >&2
		status=1
	fi
done
exit $status
`

// writeHooks writes the hooks directory every repository uses
// (core.hooksPath, set by the git handler's environment).
func writeHooks(dir string) error {
	hooks := filepath.Join(dir, "hooks")
	if err := os.MkdirAll(hooks, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(hooks, "pre-receive"), []byte(preReceive), 0o755)
}
