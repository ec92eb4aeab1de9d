package reconcile

import (
	"errors"
	"fmt"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"go.yaml.in/yaml/v3"
)

// repoSource returns where the repository of a spec's member is set, as
// path:line:col: the leg's heading, the spec's frontmatter `repo:`, or
// defaults.repo in gallivant.yaml. It returns "" when none of them sets
// it. specText and cfgText are the files as committed; a file that does
// not parse simply sets nothing.
func repoSource(sp *specs.Spec, member string, specText, cfgText []byte) string {
	if member != specs.HomeMember {
		for _, l := range sp.Legs {
			if l.Name == member {
				return fmt.Sprintf("%s:%d:%d", sp.Path, l.Pos.Line, l.Pos.Col)
			}
		}
		return ""
	}
	if f := parse.ParseBlocks(sp.Path, specText).Front; f != nil {
		if v := mappingValue(f.Node, "repo"); v != nil {
			at := f.PosOf(v)
			return fmt.Sprintf("%s:%d:%d", sp.Path, at.Line, at.Col)
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal(cfgText, &doc) != nil || len(doc.Content) == 0 {
		return ""
	}
	if v := mappingValue(mappingValue(doc.Content[0], "defaults"), "repo"); v != nil {
		at := parse.NewYAMLPositions(cfgText).Pos(v.Line, v.Column)
		return fmt.Sprintf("%s:%d:%d", specs.ConfigFile, at.Line, at.Col)
	}
	return ""
}

// mappingValue returns the value of key in a YAML mapping node, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// missingRepo notes, as a problem of e, that GitHub has no repository
// for member (or hides it from the token), naming where it is set. It
// reports false when err is not a missing repository.
func (p *passState) missingRepo(e *entry, member string, err error) bool {
	var rnf *githubapi.RepoNotFoundError
	if !errors.As(err, &rnf) {
		return false
	}
	specText, _, _ := p.Store.ReadFile(p.ctx, p.rep.Control, e.specPath)
	cfgText, _, _ := p.Store.ReadFile(p.ctx, p.rep.Control, specs.ConfigFile)
	msg := rnf.Error() + "; the spec is not seeded"
	if at := repoSource(e.spec, member, specText, cfgText); at != "" {
		msg += fmt.Sprintf(" (fix the repository at %s)", at)
	}
	p.note(e.specPath, true, "%s", msg)
	return true
}
