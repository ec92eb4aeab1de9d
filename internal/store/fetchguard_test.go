package store

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// A control repository that holds a file over the limit is refused by
// the fetch, naming the file, its size and the limit, and is not taken for
// a damaged cache (which would fetch it all again); under a limit above
// it, the same repository opens.
func TestFetchRefusesAFileOverTheLimit(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	testserver.Git(t, src, "init", "--quiet", "-b", "main")
	for p, data := range map[string][]byte{
		"gallivant.yaml": []byte("defaults:\n  repo: acme/api\n"),
		"assets/big.bin": bytes.Repeat([]byte("gallivant\n"), 300_000),
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testserver.Git(t, src, "add", "-A")
	testserver.Git(t, src, "commit", "--quiet", "-m", "start")
	remote := filepath.Join(t.TempDir(), "control.git")
	testserver.Git(t, src, "clone", "--quiet", "--bare", src, remote)

	var log bytes.Buffer
	cache := t.TempDir()
	_, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: cache, MaxObject: 1 << 20, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if !errors.Is(err, ErrObjectTooLarge) {
		t.Fatalf("Open = %v, want ErrObjectTooLarge", err)
	}
	if want := `fetch the control repository: "assets/big.bin" is 3000000 bytes, over the 1048576-byte limit`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error:\n%s\nwant it to start\n%s", err, want)
	}
	if strings.Contains(log.String(), "re-cloning") {
		t.Errorf("the refusal was taken for damage:\n%s", log.String())
	}
	st, err := Open(context.Background(), Options{Control: "file://" + remote, CacheDir: cache})
	if err != nil {
		t.Fatalf("under the default limit: %v", err)
	}
	if data, ok, err := st.ReadFile(context.Background(), st.Head(), "assets/big.bin"); err != nil || !ok || len(data) == 0 {
		t.Errorf("read the file back: %d bytes, %v, %v", len(data), ok, err)
	}
}
