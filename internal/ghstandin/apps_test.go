package ghstandin_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v66/github"
)

var (
	appKeyOnce sync.Once
	appKeyVal  *rsa.PrivateKey
)

// appKey is one RSA key for the package's tests: generating one costs
// tens of milliseconds.
func appKey(t testing.TB) *rsa.PrivateKey {
	t.Helper()
	appKeyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		appKeyVal = k
	})
	return appKeyVal
}

// appJWT signs a JWT for App id as GitHub wants it: RS256, iss the id,
// issued a minute before now, valid nine minutes.
func appJWT(t testing.TB, id int64, key *rsa.PrivateKey, now time.Time) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{
		Issuer: strconv.FormatInt(id, 10), IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute)),
	}).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func appClient(s *ghstandin.Server, auth string) *github.Client {
	c, _ := github.NewClient(nil).WithAuthToken(auth).WithEnterpriseURLs(s.APIURL(), s.APIURL())
	return c
}

func errStatus(err error) int {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return ge.Response.StatusCode
	}
	return 0
}

// The App endpoints take a JWT verified with the App's public key; the
// installation tokens they mint act as the App's bot, expire, and are
// refused GET /user as on GitHub.
func TestAppInstallationTokens(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := testserver.StartWith(t, ghstandin.Options{Clock: clock}, "acme/api")
	key := appKey(t)
	s.RegisterApp(42, "shipper", &key.PublicKey)
	inst := s.InstallApp(42, "acme")
	ctx := context.Background()

	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		jwt  string
		want int
	}{
		{"signed by another key", appJWT(t, 42, other, clock()), 401},
		{"unknown app", appJWT(t, 43, key, clock()), 401},
		{"expired", appJWT(t, 42, key, clock().Add(-20*time.Minute)), 401},
		{"issued in the future", appJWT(t, 42, key, clock().Add(10*time.Minute)), 401},
		{"not a JWT", "ghs_notajwt", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := appClient(s, tc.jwt).Apps.CreateInstallationToken(ctx, inst, nil)
			if got := errStatus(err); got != tc.want {
				t.Errorf("status %d (%v), want %d", got, err, tc.want)
			}
		})
	}

	c := appClient(s, appJWT(t, 42, key, clock()))
	app, _, err := c.Apps.Get(ctx, "")
	if err != nil || app.GetSlug() != "shipper" {
		t.Fatalf("GET /app = %v, %v; want slug shipper", app, err)
	}
	found, _, err := c.Apps.FindRepositoryInstallation(ctx, "acme", "api")
	if err != nil || found.GetID() != inst {
		t.Fatalf("installation on acme/api = %v, %v; want %d", found.GetID(), err, inst)
	}
	// A personal token is not the App's JWT.
	if _, _, err := appClient(s, s.MainToken()).Apps.Get(ctx, ""); errStatus(err) != 401 {
		t.Errorf("GET /app with a personal token: %v, want 401", err)
	}
	// The JWT is the App's, not a user's: repository endpoints refuse it.
	if _, _, err := c.Repositories.Get(ctx, "acme", "api"); errStatus(err) != 401 {
		t.Errorf("GET /repos/acme/api with a JWT: %v, want 401", err)
	}
	s.SetAppTokenTTL(30 * time.Minute)
	it, _, err := c.Apps.CreateInstallationToken(ctx, inst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := clock().Add(30 * time.Minute); !it.GetExpiresAt().Time.Equal(want) {
		t.Errorf("expires_at %v, want %v", it.GetExpiresAt(), want)
	}
	bot := appClient(s, it.GetToken())
	pr, _, err := bot.PullRequests.Create(ctx, "acme", "api", &github.NewPullRequest{Title: github.String("x"), Head: github.String("main"), Base: github.String("main")})
	if errStatus(err) != 422 {
		// 422: head and base are the same; the write itself was admitted.
		t.Errorf("a pull request with the installation token: %v %v, want 422 (no commits between)", pr, err)
	}
	if _, _, err := bot.Issues.CreateComment(ctx, "acme", "api", 1, &github.IssueComment{Body: github.String("x")}); errStatus(err) != 404 {
		t.Errorf("a comment on a missing issue: %v, want 404 (authenticated, then not found)", err)
	}
	if _, _, err := bot.Users.Get(ctx, ""); errStatus(err) != http.StatusForbidden {
		t.Errorf("GET /user with an installation token: %v, want 403", err)
	}
	if _, _, err := bot.Repositories.Get(ctx, "acme", "api"); err != nil {
		t.Errorf("GET /repos/acme/api with a fresh installation token: %v", err)
	}
	advance(30 * time.Minute)
	if _, _, err := bot.Repositories.Get(ctx, "acme", "api"); errStatus(err) != 401 {
		t.Errorf("GET /repos/acme/api with an expired installation token: %v, want 401", err)
	}
	if n := s.InstallationTokens(); n != 1 {
		t.Errorf("%d installation tokens minted, want 1", n)
	}
}
