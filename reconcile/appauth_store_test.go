package reconcile

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
)

// storeAppRig is the stand-in with App 42 installed on acme, a control
// repository, and a token source for the App.
func storeAppRig(t *testing.T) (*ghstandin.Server, *githubapi.AppTokens, *testserver.Clock) {
	t.Helper()
	clock := testserver.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s := testserver.StartWith(t, ghstandin.Options{Clock: clock.Now}, "acme/control")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s.RegisterApp(42, "shipper", &key.PublicKey)
	s.InstallApp(42, "acme")
	apps, err := githubapi.NewAppTokens(githubapi.AppOptions{APIURL: s.APIURL(), AppID: 42, Key: key, Repo: "acme/control", Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	return s, apps, clock
}

// The control store pushes over HTTPS with the App's tokens, refreshed:
// a push after the first token expired still lands, where a store holding
// that token as a string is refused.
func TestAppTokensAuthenticateGitPushes(t *testing.T) {
	t.Parallel()
	s, apps, clock := storeAppRig(t)
	ctx := context.Background()
	first, err := apps.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	open := func(cache string) *store.Store {
		st, err := store.Open(ctx, store.Options{Control: s.GitURL("acme/control"), Branch: "main", CacheDir: cache, Token: first})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	app := open(t.TempDir())
	app.UseGitAuth(apps.GitAuth())
	static := open(t.TempDir())
	push := func(st *store.Store, name string) error {
		if _, err := st.Commit(context.Background(), "plans/"+name+".md", []byte(name+"\n"), "loop: "+name, clock.Now()); err != nil {
			t.Fatal(err)
		}
		return st.Push(ctx)
	}
	if err := push(app, "one"); err != nil {
		t.Fatalf("first push: %v", err)
	}
	clock.Advance(61 * time.Minute) // the first token has expired
	if err := app.Sync(ctx); err != nil {
		t.Fatalf("fetch after expiry: %v", err)
	}
	if err := push(app, "two"); err != nil {
		t.Fatalf("push after the first token expired: %v", err)
	}
	if err := static.Sync(ctx); err == nil {
		t.Errorf("a fetch with the expired token succeeded; the stand-in does not check git credentials")
	}
	if strings.Contains(fmt.Sprint(static.Sync(ctx)), first) {
		t.Errorf("the error carries the token")
	}
}
