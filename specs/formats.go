package specs

import (
	"path"
	"strings"
)

// Format is the authoring format of a spec or plan document: gallivant's
// own grammar, GitHub spec-kit's or Kiro's (docs/grammar.md#spec-kit-and-kiro).
// The set is closed.
type Format string

// Formats. The zero value is gallivant's own grammar.
const (
	FormatGallivant Format = ""
	FormatSpecKit   Format = "spec-kit"
	FormatKiro      Format = "kiro"
)

// Fixed file names of the two foreign formats inside a feature folder.
const (
	SpecKitSpecFile = "spec.md"
	KiroSpecFile    = "requirements.md"
	TasksFile       = "tasks.md"
)

// FormatsConfig is gallivant.yaml's `formats:` block: where spec-kit and
// Kiro specs live and how they are read. Empty roots turn a format off.
type FormatsConfig struct {
	// SpecKit are directories holding spec-kit feature folders
	// (<root>/<NNN-feature>/spec.md, tasks.md).
	SpecKit []string
	// Kiro are directories holding Kiro specs (<root>/<feature>/
	// requirements.md, tasks.md); conventionally .kiro/specs.
	Kiro []string
	// SuccessCriteria makes a spec-kit spec's SC-### success criteria
	// acceptance criteria too, after its acceptance scenarios.
	SuccessCriteria bool
	// Verify are the commands of a spec-kit or Kiro spec that has no
	// `## Verify` section of its own.
	Verify []string
}

// roots returns the configured roots with their format, spec-kit first.
func (f FormatsConfig) roots() []formatRoot {
	var out []formatRoot
	for _, r := range f.SpecKit {
		out = append(out, formatRoot{r, FormatSpecKit})
	}
	for _, r := range f.Kiro {
		out = append(out, formatRoot{r, FormatKiro})
	}
	return out
}

type formatRoot struct {
	dir    string
	format Format
}

// specFile is the fixed spec file name of a foreign format.
func (f Format) specFile() string {
	if f == FormatKiro {
		return KiroSpecFile
	}
	return SpecKitSpecFile
}

// FormatOf says which format the file at p is written in and what it is:
// inside a spec-kit root's numbered feature folders (<root>/001-x/) or a
// Kiro root's folders, <root>/<feature>/spec.md (Kiro:
// requirements.md) is a spec, <root>/<feature>/tasks.md its plan and every
// other file of the feature folder (plan.md, design.md, research.md,
// contracts/…) material that is neither. ok is false for a file of no
// foreign root: gallivant's own directories decide.
func (c *Config) FormatOf(p string) (f Format, k Kind, ok bool) {
	for _, r := range c.Formats.roots() {
		if !under(p, r.dir) {
			continue
		}
		rel := p
		if r.dir != "." && r.dir != "" {
			rel = p[len(r.dir)+1:]
		}
		parts := strings.Split(rel, "/")
		if len(parts) < 2 || r.format == FormatSpecKit && !numbered(parts[0]) {
			// spec-kit numbers its feature folders (001-user-auth); any
			// other folder of a shared root stays gallivant's.
			continue
		}
		switch {
		case len(parts) == 2 && parts[1] == r.format.specFile():
			return r.format, KindSpec, true
		case len(parts) == 2 && parts[1] == TasksFile:
			return r.format, KindPlan, true
		}
		return r.format, KindOther, true
	}
	return FormatGallivant, KindOther, false
}

// FeatureSpec returns the spec a foreign-format tasks.md at p plans: the
// spec file of the same feature folder.
func FeatureSpec(f Format, p string) string {
	return path.Join(path.Dir(p), f.specFile())
}

// foreignStem is the stem of a spec-kit or Kiro spec: its feature folder's
// name, since every feature's spec file has the same name. ok is false for
// any other path.
func foreignStem(specPath string) (string, bool) {
	dir, base := path.Split(specPath)
	dir = strings.TrimSuffix(dir, "/")
	feature := path.Base(dir)
	if dir == "" || feature == "." || feature == "" {
		return "", false
	}
	switch base {
	case SpecKitSpecFile:
		if numbered(feature) {
			return feature, true
		}
	case KiroSpecFile:
		if dir == ".kiro/specs/"+feature || strings.HasSuffix(dir, "/.kiro/specs/"+feature) {
			return feature, true
		}
	}
	return "", false
}

// SpecDefaults returns the defaults the spec at p is read with: the
// configuration's repository and base, and the grammar of p's format.
func (c *Config) SpecDefaults(p string) Defaults {
	f, _, _ := c.FormatOf(p)
	return Defaults{Repo: c.Defaults.Repo, Base: c.Defaults.Base, ConfigUnreadable: c.Unreadable}.withFormat(c, f)
}

// numbered reports whether a folder is named as spec-kit numbers its
// feature folders: digits, a dash, a name (001-user-auth).
func numbered(folder string) bool {
	n := len(folder) - len(strings.TrimLeft(folder, "0123456789"))
	return n >= 1 && n+1 < len(folder) && folder[n] == '-'
}
