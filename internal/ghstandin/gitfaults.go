package ghstandin

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// This file fails git's smart HTTP (info/refs, git-upload-pack,
// git-receive-pack) as a network and GitHub's git front end fail it: a
// 5xx, a request held until it times out, a push that lands while its
// client sees 502, and a connection reset in the middle of a body.

// The git kinds of FaultRates: they fail git requests, never API ones.
const (
	// RateGit5xx answers 500, 502 or 503 in plain text, as git shows it.
	RateGit5xx RateKind = "git-5xx"
	// RateGitTimeout holds the request for FaultRates.Hold (or until the
	// client gives up), then answers 504.
	RateGitTimeout RateKind = "git-timeout"
	// RateGitLost performs a push and then answers 502: the push landed,
	// the client never learns it. Pushes only.
	RateGitLost RateKind = "git-lost"
	// RateGitReset serves the request (a push lands) and resets the
	// connection after half of its answer. A reset before any answer
	// would not do: curl sends the request again on a fresh connection.
	RateGitReset RateKind = "git-reset"
)

// git reports whether k fails git requests rather than API requests.
func (k RateKind) git() bool { return strings.HasPrefix(string(k), "git-") }

// gitFault returns the fault of a git request: one switched on with
// InjectFault (Git) first, then the random mix's draw; nil when the
// request is served. push is whether it is part of a push.
func (s *Server) gitFault(r *http.Request, push bool) *activeFault {
	path := r.URL.Path
	if svc := r.URL.Query().Get("service"); svc != "" {
		// info/refs for a fetch and for a push are told apart.
		path += "?service=" + svc
	}
	if f := s.matchFault(r.Method, path, true); f != nil {
		return f
	}
	f := s.draw(r.Method, path, true, push && r.Method == http.MethodPost)
	if f != nil && f.Kind == FaultTimeout && f.Hold == 0 {
		f.Hold = 10 * time.Second
	}
	return f
}

// failGitEarly answers a git request whose fault needs no answer from
// git: a status or a timeout. It reports whether it answered; a lost
// response and a reset are answered after git ran (finishGitFault).
func failGitEarly(f *activeFault, w http.ResponseWriter, r *http.Request) bool {
	switch f.Kind {
	case FaultLostResponse, FaultReset:
		return false
	case FaultTimeout:
		hold := f.Hold
		if hold == 0 {
			hold = 30 * time.Second
		}
		t := time.NewTimer(hold)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C:
		}
		gitDenied(w, http.StatusGatewayTimeout, "Gateway Timeout")
		return true
	default:
		status := f.Status
		if status == 0 || f.Kind != FaultStatus {
			status = http.StatusBadGateway
		}
		gitDenied(w, status, http.StatusText(status))
		return true
	}
}

// finishGitFault answers a request git has served into rec: 502 for a
// lost response, half of git's answer and a reset connection otherwise.
func finishGitFault(f *activeFault, w http.ResponseWriter, rec *recorder) {
	if f.Kind != FaultReset {
		gitDenied(w, http.StatusBadGateway, http.StatusText(http.StatusBadGateway))
		return
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	body := rec.body.Bytes()
	// The full length is announced, so the client knows the body was cut.
	w.Header().Del("Transfer-Encoding")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.status)
	_, _ = w.Write(body[:len(body)/2])
	if err := http.NewResponseController(w).Flush(); err != nil {
		panic(http.ErrAbortHandler)
	}
	resetConn(w)
}

// resetConn resets the request's connection: a TCP RST where the
// connection can be taken over (HTTP/1), the stream's reset otherwise.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2: aborting the handler resets the stream.
		panic(http.ErrAbortHandler)
	}
	raw := conn
	if tc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close() // the client sees the reset; nothing else to tell
}
