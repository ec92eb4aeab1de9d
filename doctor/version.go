package doctor

import (
	"fmt"
	"regexp"
	"strconv"
)

// Version is a CLI's major.minor.patch.
type Version struct{ Major, Minor, Patch int }

// String returns major.minor.patch.
func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseVersion finds the first major.minor[.patch] in what a CLI's
// --version printed ("2.0.14 (Claude Code)", "codex-cli 0.58.0",
// "aider 0.86.1").
func ParseVersion(s string) (Version, bool) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	var v Version
	var err error
	if v.Major, err = strconv.Atoi(m[1]); err != nil {
		return Version{}, false
	}
	if v.Minor, err = strconv.Atoi(m[2]); err != nil {
		return Version{}, false
	}
	if m[3] != "" {
		if v.Patch, err = strconv.Atoi(m[3]); err != nil {
			return Version{}, false
		}
	}
	return v, true
}

// Less reports whether a is older than b.
func Less(a, b Version) bool {
	if a.Major != b.Major {
		return a.Major < b.Major
	}
	if a.Minor != b.Minor {
		return a.Minor < b.Minor
	}
	return a.Patch < b.Patch
}
