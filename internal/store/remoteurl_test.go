package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// Issue 29: a same-user agent can write the cache clone's config. The
// fetch goes to the URL the store was opened with, not to whatever
// remote.origin.url says now, so that gallivant's credentials never follow
// a rewritten URL.
func TestFetchIgnoresARewrittenOriginURL(t *testing.T) {
	bare := func(content string) string {
		src := t.TempDir()
		testserver.Git(t, src, "init", "--quiet", "-b", "main")
		if err := os.WriteFile(filepath.Join(src, "f.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		testserver.Git(t, src, "add", "-A")
		testserver.Git(t, src, "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "--quiet", "-m", content)
		remote := filepath.Join(t.TempDir(), "control.git")
		testserver.Git(t, src, "clone", "--quiet", "--bare", src, remote)
		return remote
	}
	trusted, attacker := bare("trusted\n"), bare("attacker\n")
	ctx := context.Background()
	st, err := Open(ctx, Options{Control: "file://" + trusted, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	testserver.Git(t, st.Dir(), "config", "remote.origin.url", "file://"+attacker)
	if err := st.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, ok, err := st.ReadFile(context.Background(), st.Head(), "f.md")
	if err != nil || !ok {
		t.Fatalf("ReadFile: %v, %v", ok, err)
	}
	if string(got) != "trusted\n" {
		t.Errorf("after origin's url was rewritten, the store read %q; want the repository it was opened with", got)
	}
}
