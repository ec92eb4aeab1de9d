package testserver

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"strconv"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-github/v66/github"
)

// InstallationToken registers App id (its slug makes the bot user
// "<slug>[bot]") with a fresh key, installs it on account and mints an
// installation token through the API, as the App would. The token lives in
// the server's memory only, never in state.json, and expires in an hour.
func InstallationToken(tb testing.TB, s *ghstandin.Server, id int64, slug, account string) string {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	s.RegisterApp(id, slug, &key.PublicKey)
	inst := s.InstallApp(id, account)
	now := time.Now()
	signed, err := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.RegisteredClaims{Issuer: strconv.FormatInt(id, 10),
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), ExpiresAt: jwt.NewNumericDate(now.Add(9 * time.Minute))}).SignedString(key)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := github.NewClient(nil).WithAuthToken(signed).WithEnterpriseURLs(s.APIURL(), s.APIURL())
	if err != nil {
		tb.Fatal(err)
	}
	tok, _, err := c.Apps.CreateInstallationToken(context.Background(), inst, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return tok.GetToken()
}
