package ghstandin

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr, which must be a loopback address, and serves until
// ctx ends; then it shuts down cleanly. ready is called with the address
// it listens at (http://host:port) once the listener is up; answers use
// Options.PublicURL instead when it is set.
func (s *Server) Serve(ctx context.Context, addr string, ready func(url string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return errors.New("ghstandin: the sandbox binds loopback addresses only, got " + addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	listen := "http://" + ln.Addr().String()
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls)
		listen = "https://" + ln.Addr().String()
	}
	if s.publicURL == "" {
		s.SetURL(listen)
	}
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(listen)
	}
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(shutdown)
	case err := <-errc:
		return err
	}
}
