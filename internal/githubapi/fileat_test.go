package githubapi

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// FileAt reads one file at a commit (a learn task's lessons file on the
// control repository's lessons branch): a missing file or a directory is
// not ok, and a file over the limit is an error, never a partial read.
func TestAdapterFileAt(t *testing.T) {
	s := testserver.Start(t, "acme/control")
	g, _ := adapter(t, s, ghstandin.DefaultLogin, nil)
	ctx := t.Context()
	head := testserver.PushBranch(t, s, "acme/control", "gallivant/lessons-acme-api", "a.txt")
	data, ok, err := g.FileAt(ctx, "acme/control", "a.txt", head, 1024)
	if err != nil || !ok || string(data) != "a.txt\n" {
		t.Errorf("FileAt(a.txt) = %q %v %v", data, ok, err)
	}
	if _, ok, err := g.FileAt(ctx, "acme/control", "lessons/acme/api.md", head, 1024); ok || err != nil {
		t.Errorf("a missing file: ok %v err %v", ok, err)
	}
	if _, _, err := g.FileAt(ctx, "acme/control", "a.txt", head, 3); err == nil || !strings.Contains(err.Error(), "6 bytes, over the 3 read") {
		t.Errorf("a file over the limit: %v", err)
	}
}
