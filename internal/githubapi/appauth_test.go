package githubapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
)

var (
	testAppKeyOnce sync.Once
	testAppKey     *rsa.PrivateKey
)

func appTestKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	testAppKeyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		testAppKey = k
	})
	return testAppKey
}

// appRig is the stand-in with App 42 ("shipper") installed on acme and a
// token source for it.
func appRig(t *testing.T, repos ...string) (*ghstandin.Server, *AppTokens, *testserver.Clock) {
	t.Helper()
	clock := testserver.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, repos...)
	key := appTestKey(t)
	s.RegisterApp(42, "shipper", &key.PublicKey)
	s.InstallApp(42, "acme")
	apps, err := NewAppTokens(AppOptions{APIURL: s.APIURL(), AppID: 42, Key: key, Repo: "acme/control", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s, apps, clock
}

// appClient is the adapter authenticated as the App's installation, with
// the App's bot login.
func appClient(t *testing.T, apps *AppTokens) *Client {
	t.Helper()
	login, err := apps.Login(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gh, err := New(Options{APIURL: appsAPI(apps), Transport: apps.Transport(nil), Login: login})
	if err != nil {
		t.Fatal(err)
	}
	return gh
}

// An installation token is minted once, reused while it has more than
// refreshMargin left, and replaced before it expires.
func TestAppTokensRefreshBeforeExpiry(t *testing.T) {
	s, apps, clock := appRig(t, "acme/control")
	ctx := context.Background()
	first, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour - refreshMargin - time.Minute)
	again, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again != first || s.InstallationTokens() != 1 {
		t.Errorf("with %v left the token was replaced (%d minted)", refreshMargin+time.Minute, s.InstallationTokens())
	}
	clock.Advance(2 * time.Minute)
	next, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next == first || s.InstallationTokens() != 2 {
		t.Errorf("with %v left the token was kept (%d minted)", refreshMargin-time.Minute, s.InstallationTokens())
	}
	login, err := apps.Login(ctx)
	if diff := cmp.Diff("shipper[bot]", login); diff != "" || err != nil {
		t.Errorf("Login: %v (-want +got):\n%s", err, diff)
	}
	// A holder that cannot refresh gets a token that outlives its need.
	clock.Advance(20 * time.Minute) // next has 40 minutes left
	if tok, err := apps.TokenFor(ctx, 30*time.Minute); err != nil || tok != next {
		t.Errorf("TokenFor(30m) with 40m left: a new token (%v)", err)
	}
	long, err := apps.TokenFor(ctx, 50*time.Minute)
	if err != nil || long == next || s.InstallationTokens() != 3 {
		t.Errorf("TokenFor(50m) with 40m left kept the token (%v, %d minted)", err, s.InstallationTokens())
	}
}

// The adapter authenticates as the App through its transport, across a
// refresh, and knows its bot login without GET /user (which GitHub refuses
// an installation token).
func TestAppTokensAuthenticateTheAdapter(t *testing.T) {
	_, apps, clock := appRig(t, "acme/control", "acme/api")
	ctx := context.Background()
	gh := appClient(t, apps)
	self, err := gh.CurrentUser(ctx)
	if diff := cmp.Diff("shipper[bot]", self); diff != "" || err != nil {
		t.Errorf("CurrentUser: %v (-want +got):\n%s", err, diff)
	}
	for _, step := range []time.Duration{0, 55 * time.Minute, 55 * time.Minute} {
		clock.Advance(step)
		if _, ok, err := gh.BranchHead(ctx, "acme/api", "main"); err != nil || !ok {
			t.Fatalf("after %v: BranchHead = %v, %v", step, ok, err)
		}
	}
	// Without Login the adapter asks GET /user, which the installation
	// token may not call: the reason Login exists.
	asking, err := New(Options{APIURL: appsAPI(apps), Transport: apps.Transport(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asking.CurrentUser(ctx); err == nil {
		t.Errorf("GET /user with an installation token succeeded; the stand-in should refuse it as GitHub does")
	}
}

func appsAPI(a *AppTokens) string { return a.opts.APIURL }

func TestParseAppKey(t *testing.T) {
	key := appTestKey(t)
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	tests := []struct {
		name string
		pem  string
		ok   bool
	}{
		{"PKCS#1 as GitHub hands it out", string(pkcs1), true},
		{"PKCS#8", string(pkcs8), true},
		{"flattened with literal \\n", strings.ReplaceAll(string(pkcs1), "\n", `\n`), true},
		{"not PEM", "ghp_abc", false},
		{"PEM of something else", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseAppKey([]byte(tc.pem))
			if tc.ok != (err == nil) {
				t.Fatalf("ParseAppKey: %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrAppAuth) {
				t.Errorf("error %v is not ErrAppAuth", err)
			}
			if tc.ok && !k.Equal(key) {
				t.Errorf("a different key came back")
			}
		})
	}
}

// A missing installation is an ErrAppAuth that says what to do, and the
// key never appears in it.
func TestAppTokensNotInstalled(t *testing.T) {
	s, _, clock := appRig(t, "other/control")
	apps, err := NewAppTokens(AppOptions{APIURL: s.APIURL(), AppID: 42, Key: appTestKey(t), Repo: "other/control", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	_, err = apps.Token(context.Background())
	if !errors.Is(err, ErrAppAuth) || !strings.Contains(err.Error(), "install the app on it") || !strings.Contains(err.Error(), "404") {
		t.Errorf("Token on a repository without the app: %v", err)
	}
}

// ParseAppKey reads a secret from the environment or a file a person
// pasted: it never panics, and only ever returns an RSA key or ErrAppAuth.
func FuzzParseAppKey(f *testing.F) {
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n"))
	f.Add([]byte(`-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----`))
	f.Add([]byte("not a key"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseAppKey(data)
		if (k == nil) == (err == nil) || (err != nil && !errors.Is(err, ErrAppAuth)) {
			t.Fatalf("ParseAppKey = %v, %v", k != nil, err)
		}
	})
}

// Issue 29 (suspected, confirmed: tokens were minted with every
// permission of the installation): a token asks only for what gallivant
// uses, at no more than the installation was granted (the stand-in grants
// checks and statuses read only), whether the installation is found on
// the repository or named by its id.
func TestAppTokensAskOnlyForNeededPermissions(t *testing.T) {
	want := map[string]string{"contents": "write", "pull_requests": "write", "issues": "write", "checks": "read",
		"statuses": "read", "actions": "write", "metadata": "read"}
	for _, byID := range []bool{false, true} {
		s, apps, clock := appRig(t, "acme/control")
		if byID {
			key := appTestKey(t)
			id := s.InstallApp(42, "other")
			var err error
			if apps, err = NewAppTokens(AppOptions{APIURL: s.APIURL(), AppID: 42, Key: key, InstallationID: id, Now: clock.Now}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := apps.Token(context.Background()); err != nil {
			t.Fatalf("by id %v: %v", byID, err)
		}
		got := s.InstallationTokenPermissions()
		if len(got) != 1 {
			t.Fatalf("by id %v: %d tokens minted", byID, len(got))
		}
		if diff := cmp.Diff(want, got[0]); diff != "" {
			t.Errorf("by id %v: the token asked for (-want +got):\n%s", byID, diff)
		}
	}
}
