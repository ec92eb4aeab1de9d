package agent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/config"
)

// mirrorConfig is the whole configuration of a mirror: what `git init
// --bare` writes. gallivant fetches and pushes with explicit URLs and
// refspecs, so a mirror needs nothing else.
const mirrorConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

// sealMirror makes sure the mirror's configuration is gallivant's own
// before its git runs there with the credential: anything else in it (a
// url.<base>.insteadOf that sends the next authenticated fetch to another
// host, a credential helper, an include) is refused and the file
// rewritten, and files that make git read configuration from elsewhere
// (commondir, config.worktree) are removed. It returns what it refused,
// for the log. A run_as agent cannot reach the mirror (0700); an agent of
// gallivant's own user can, and could race this between the check and
// git's read (docs/security.md).
func sealMirror(mirror string) ([]string, error) {
	var refused []string
	for _, name := range []string{"commondir", "config.worktree", "gitdir"} {
		p := filepath.Join(mirror, name)
		if _, err := os.Lstat(p); err == nil {
			refused = append(refused, name)
			if err := os.RemoveAll(p); err != nil {
				return refused, err
			}
		}
	}
	p := filepath.Join(mirror, "config")
	data, err := os.ReadFile(p)
	fi, lerr := os.Lstat(p)
	if err == nil && lerr == nil && fi.Mode().IsRegular() && string(data) == mirrorConfig {
		return refused, nil
	}
	if err == nil {
		refused = append(refused, foreignKeys(data)...)
	} else if !os.IsNotExist(err) {
		refused = append(refused, "config (unreadable)")
	}
	if lerr == nil && !fi.Mode().IsRegular() {
		refused = append(refused, "config (not a regular file)")
	}
	tmp := p + ".gallivant"
	if err := os.WriteFile(tmp, []byte(mirrorConfig), 0o600); err != nil {
		return refused, err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return refused, err
	}
	return refused, nil
}

// foreignKeys lists the keys of a git config file that are not the
// mirror's own (section.subsection.key), or the file's parse error.
func foreignKeys(data []byte) []string {
	cfg := config.New()
	if err := config.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return []string{"config (does not parse)"}
	}
	own := []string{"core.repositoryformatversion", "core.filemode", "core.bare"}
	var out []string
	add := func(section, sub string, opts config.Options) {
		for _, o := range opts {
			k := strings.ToLower(section)
			if sub != "" {
				k += "." + sub
			}
			k += "." + strings.ToLower(o.Key)
			if !slices.Contains(own, k) {
				out = append(out, fmt.Sprintf("%s=%q", k, o.Value))
			}
		}
	}
	for _, s := range cfg.Sections {
		add(s.Name, "", s.Options)
		for _, ss := range s.Subsections {
			add(s.Name, ss.Name, ss.Options)
		}
	}
	return out
}
