package reconcile

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/githubapi"
)

// The CLI's exit status 2 rests on these two classifications: a pass stops
// at them instead of noting them entry by entry.
func TestAdapterClassifiesCredentialsAndUnreachable(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	t.Run("rejected token", func(t *testing.T) {
		g, err := githubapi.New(githubapi.Options{APIURL: s.APIURL(), Token: "bogus-token-value", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = g.BranchHead(t.Context(), "acme/api", "main")
		if !errors.Is(err, githubapi.ErrCredentials) {
			t.Fatalf("BranchHead with a bogus token = %v, want ErrCredentials", err)
		}
		var ce *githubapi.CredentialsError
		if !errors.As(err, &ce) || ce.Status != 401 || ce.Message != "Bad credentials" {
			t.Errorf("CredentialsError = %+v, want 401 Bad credentials", ce)
		}
		if strings.Contains(err.Error(), "bogus-token-value") {
			t.Errorf("the error %q shows the token", err)
		}
		if errors.Is(err, githubapi.ErrUnreachable) {
			t.Errorf("a rejected token also matches ErrUnreachable")
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		fs := &fakeSleep{}
		g, err := githubapi.New(githubapi.Options{APIURL: "http://" + addr + "/api/v3/", Token: "t", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Sleep: fs.sleep, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = g.BranchHead(t.Context(), "acme/api", "main")
		if !errors.Is(err, githubapi.ErrUnreachable) {
			t.Fatalf("BranchHead against a closed port = %v, want ErrUnreachable", err)
		}
		if errors.Is(err, githubapi.ErrCredentials) {
			t.Errorf("an unreachable GitHub also matches ErrCredentials")
		}
	})
	t.Run("not found stays an answer", func(t *testing.T) {
		g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
		_, err := g.GetPullRequest(t.Context(), "acme/api", 99)
		if errors.Is(err, githubapi.ErrUnreachable) || errors.Is(err, githubapi.ErrCredentials) {
			t.Errorf("a 404 is classified as %v", err)
		}
	})
}
