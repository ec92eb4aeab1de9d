package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// cmdYAMLGet prints what a YAML file holds at a dotted path of mapping
// keys: a mapping's keys one a line, a list's items one a line (a
// mapping item as its keys joined by commas), or a scalar. It fails when
// the file is not YAML or the path is missing, so a script can assert that
// a file parses and holds what it should: `yamlget FILE [KEY.KEY...]`.
func cmdYAMLGet(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: yamlget FILE [KEY.KEY...]")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("%s is not YAML: %v", args[0], err)
	}
	if len(doc.Content) == 0 {
		ts.Fatalf("%s is empty", args[0])
	}
	n := doc.Content[0]
	if len(args) == 2 {
		for _, k := range strings.Split(args[1], ".") {
			n = yamlChild(n, k)
			if n == nil {
				if neg {
					return
				}
				ts.Fatalf("%s has no %s", args[0], args[1])
			}
		}
	}
	if neg {
		ts.Fatalf("%s has %s", args[0], args[1])
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			ts.Stdout().Write([]byte(n.Content[i].Value + "\n"))
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind == yaml.MappingNode {
				var keys []string
				for i := 0; i+1 < len(c.Content); i += 2 {
					keys = append(keys, c.Content[i].Value+"="+c.Content[i+1].Value)
				}
				ts.Stdout().Write([]byte(strings.Join(keys, ",") + "\n"))
				continue
			}
			ts.Stdout().Write([]byte(c.Value + "\n"))
		}
	default:
		ts.Stdout().Write([]byte(n.Value + "\n"))
	}
}

func yamlChild(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// schemaKeys returns every key path (a.b) the JSON Schema of gallivant.yaml
// describes.
func schemaKeys(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "gallivant.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		Properties map[string]*node `json:"properties"`
	}
	var root node
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(prefix string, n *node)
	walk = func(prefix string, n *node) {
		for k, c := range n.Properties {
			keys = append(keys, prefix+k)
			walk(prefix+k+".", c)
		}
	}
	walk("", &root)
	sort.Strings(keys)
	return keys
}

// Every key of gallivant.yaml that the schema describes appears in the
// scaffolded configuration, set or commented, under its parent, for every
// executor choice: the scaffold is where a newcomer learns the keys. (The
// schema test in specs holds the schema to the parser's keys, so a key
// added to ParseConfig fails one of the two until both know it.)
func TestInitConfigShowsEveryKey(t *testing.T) {
	keys := schemaKeys(t)
	if len(keys) < 20 {
		t.Fatalf("the schema describes only %d keys; the walk is broken", len(keys))
	}
	c := jsonschema.NewCompiler()
	schema, err := c.Compile(filepath.Join("..", "..", "docs", "schema", "gallivant.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range initExecutorNames() {
		t.Run(name, func(t *testing.T) {
			files := scaffold(&initOptions{Executor: name, Repo: "acme/api", Branch: "main"}, initExecutors[name])
			cfg := files[0].body
			// Uncommented, the file must be one YAML document whose
			// structure holds every key.
			uncommented := regexp.MustCompile(`(?m)^(\s*)# ?(\s*[a-z_]+:(?:\s|$))`).ReplaceAllString(cfg, "$1$2")
			var doc map[string]any
			if err := yaml.Unmarshal([]byte(uncommented), &doc); err != nil {
				t.Fatalf("the scaffolded gallivant.yaml, uncommented, is not YAML: %v\n%s", err, uncommented)
			}
			var missing []string
			for _, k := range keys {
				if _, ok := lookup(doc, k); !ok {
					missing = append(missing, k)
				}
			}
			// As written, editors' schema validation accepts it.
			j, err := json.Marshal(yamlValue(t, cfg))
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
			if err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(inst); err != nil {
				t.Errorf("the schema rejects the scaffolded gallivant.yaml: %v", err)
			}
			if diff := cmp.Diff([]string(nil), missing); diff != "" {
				t.Errorf("scaffolded gallivant.yaml (--executor %s) lacks keys (-want +got):\n%s", name, diff)
			}
		})
	}
}

func yamlValue(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// lookup reports whether the dotted key path exists in doc, even when its
// value is null.
func lookup(doc map[string]any, key string) (any, bool) {
	var cur any = doc
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// gallivant init --executor offers every executor kind the schema (and so
// the parser, specs.TestSchemaExecutorKindsMatchParser) knows.
func TestInitOffersEveryExecutorKind(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "gallivant.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	kinds := s.Properties["executor"].Properties["kind"].Enum
	sort.Strings(kinds)
	if len(kinds) == 0 {
		t.Fatal("the schema lists no executor kinds")
	}
	for _, k := range kinds {
		if _, ok := initExecutors[k]; !ok {
			t.Errorf("executor kind %s has no block in initExecutors (gallivant init --executor %s)", k, k)
		}
	}
}
