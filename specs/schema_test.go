package specs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaPath is the JSON Schema of gallivant.yaml that editors use (the
// scaffolded config names it in a yaml-language-server comment).
const schemaPath = "../docs/schema/gallivant.schema.json"

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s is not JSON: %v", schemaPath, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("gallivant.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("gallivant.schema.json")
	if err != nil {
		t.Fatalf("%s does not compile: %v", schemaPath, err)
	}
	return s
}

// yamlInstance turns a YAML document into the JSON value an editor's YAML
// language server validates.
func yamlInstance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("YAML with no JSON form: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// Every configuration ParseConfig accepts in the repository validates
// against the schema.
func TestSchemaAcceptsValidConfigs(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	cases := map[string][]byte{
		"empty":                 nil,
		"empty sections":        []byte("control:\ngithub:\nexecutor:\n"),
		"workflow executor":     []byte("executor:\n  kind: workflow\n  workflow: agent.yml\n"),
		"durations":             []byte("executor:\n  timeout: 1h30m\n  grace: 90s\n  replay_budget: 2m\nchecks:\n  wait: 1.5h\n"),
		"numeric run_as":        []byte("executor:\n  run_as: \"1001\"\n"),
		"reviewer with a login": []byte("reviewer:\n  login: bob\n"),
		"learning":              []byte("learning:\n  control_repo: acme/control\n  repos: [acme/api]\n"),
		"learning on its own":   []byte("learning:\n"),
		"notify targets":        []byte("notify:\n  - name: chat\n    url_env: SLACK_URL\n    format: slack\n    on: [stops, ready]\n  - name: hook\n    url: https://hooks.example.com/g\n    on: [done]\n"),
	}
	for _, p := range []string{"testdata/config-full.yaml", "../docs/examples/control/gallivant.yaml", "../cmd/gallivant/demo/gallivant.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases[p] = data
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, diags := ParseConfig(ConfigFile, data); diags.HasErrors() {
				t.Fatalf("the fixture is not valid: %v", diags)
			}
			if err := s.Validate(yamlInstance(t, data)); err != nil {
				t.Errorf("ParseConfig accepts it, the schema rejects it: %v", err)
			}
		})
	}
}

// Every configuration ParseConfig rejects for a structural reason — an
// unknown key, a value of the wrong type, a value out of an enumeration or
// a range, a missing required key — the schema rejects too, so an editor
// underlines what check would report.
func TestSchemaRejectsStructurallyInvalidConfigs(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	cases := []struct{ name, yaml, rule string }{
		{"top level is a list", "- a\n", "config/type"},
		{"unknown top-level key", "shedule: '@every 5m'\n", "config/unknown-key"},
		{"unknown nested key", "defaults:\n  allowence: 3\n", "config/unknown-key"},
		{"section is a scalar", "control: main\n", "config/type"},
		{"empty branch", "control:\n  branch: ' '\n", "config/invalid"},
		{"specs not a list", "control:\n  specs: specs\n", "config/type"},
		{"specs empty", "control:\n  specs: []\n", "config/invalid"},
		{"api_url not http", "github:\n  api_url: ftp://x/\n", "config/invalid"},
		{"token_env not a name", "github:\n  token_env: MY-TOKEN\n", "config/invalid"},
		{"repo not owner/name", "defaults:\n  repo: acme\n", "config/invalid"},
		{"allowance a word", "defaults:\n  allowance: many\n", "config/type"},
		{"allowance zero", "defaults:\n  allowance: 0\n", "config/invalid"},
		{"max_rounds a float", "defaults:\n  max_rounds: 2.5\n", "config/type"},
		{"reviewer without login", "reviewer:\n  stall_hours: 4\n", "config/invalid"},
		{"reviewer null", "reviewer:\n", "config/invalid"},
		{"learning unknown key", "learning:\n  enabled: true\n", "config/unknown-key"},
		{"learning control_repo not owner/name", "learning:\n  control_repo: control\n", "config/invalid"},
		{"learning repos not owner/name", "learning:\n  repos: [api]\n", "config/invalid"},
		{"learning a scalar", "learning: yes\n", "config/type"},
		{"executor kind unknown", "executor:\n  kind: robot\n", "config/invalid"},
		{"command without argv", "executor:\n  kind: command\n", "config/invalid"},
		{"command with empty argv", "executor:\n  kind: command\n  command: []\n", "config/invalid"},
		{"workflow without file", "executor:\n  kind: workflow\n", "config/invalid"},
		{"command not a list", "executor:\n  command: claude -p\n", "config/type"},
		{"timeout without unit", "executor:\n  timeout: 60\n", "config/invalid"},
		{"grace a word", "executor:\n  grace: soon\n", "config/invalid"},
		{"replay_budget a word", "executor:\n  replay_budget: soon\n", "config/invalid"},
		{"verify a word", "executor:\n  verify: yes please\n", "config/type"},
		{"env not names", "executor:\n  env: [\"A B\"]\n", "config/invalid"},
		{"run_as a command", "executor:\n  run_as: \"root; id\"\n", "config/invalid"},
		{"max_prs zero", "gatekeep:\n  max_prs: 0\n", "config/invalid"},
		{"checks.none not repos", "checks:\n  none: [docs]\n", "config/invalid"},
		{"checks.wait a list", "checks:\n  wait: [1m]\n", "config/type"},
		{"schedule a list", "schedule: [daily]\n", "config/type"},
		{"notify not a list", "notify: chat\n", "config/type"},
		{"notify target without url", "notify:\n  - name: chat\n    on: [stops]\n", "config/invalid"},
		{"notify target with both urls", "notify:\n  - name: chat\n    url: https://x.example/\n    url_env: X\n    on: [stops]\n", "config/invalid"},
		{"notify on unknown", "notify:\n  - name: chat\n    url: https://x.example/\n    on: [everything]\n", "config/invalid"},
		{"notify format unknown", "notify:\n  - name: chat\n    url: https://x.example/\n    format: xml\n    on: [stops]\n", "config/invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, diags := ParseConfig(ConfigFile, []byte(c.yaml))
			var rules []string
			for _, d := range diags {
				rules = append(rules, d.Rule)
			}
			if !slices.Contains(rules, c.rule) {
				t.Fatalf("ParseConfig reports %v, want %s: the fixture does not test what it says", rules, c.rule)
			}
			if err := s.Validate(yamlInstance(t, []byte(c.yaml))); err == nil {
				t.Errorf("ParseConfig rejects it (%s), the schema accepts it", c.rule)
			}
		})
	}
}

// What the schema cannot say: rules that need a cron parser, the token
// variable's name or the file system. Pinned, so that a change to either
// side is seen: each case is rejected by ParseConfig and accepted by the
// schema (docs/grammar.md lists them).
func TestSchemaLeavesValueRulesToCheck(t *testing.T) {
	t.Parallel()
	s := compileSchema(t)
	cases := []struct{ name, yaml string }{
		{"schedule cron cannot parse", "schedule: every tuesday\n"},
		{"env passes a secret", "executor:\n  env: [PATH, GH_TOKEN]\n"},
		{"directory leaves the repository", "control:\n  plans: ../elsewhere\n"},
		{"zero duration", "executor:\n  timeout: 0s\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, diags := ParseConfig(ConfigFile, []byte(c.yaml)); !diags.HasErrors() {
				t.Fatalf("ParseConfig accepts it")
			}
			if err := s.Validate(yamlInstance(t, []byte(c.yaml))); err != nil {
				t.Errorf("the schema now rejects it (%v): move it to TestSchemaRejectsStructurallyInvalidConfigs and docs/grammar.md", err)
			}
		})
	}
}

var expectedKeysRE = regexp.MustCompile(`expected one of ([a-z_, ]+)$`)

// parserKeys returns every key path ParseConfig knows, found by asking it:
// an unknown key under a mapping is reported with the list of keys that
// mapping accepts, and a key whose value is a mapping reports an unknown
// key inside it. No list is kept by hand, so a key another change adds to
// ParseConfig is found here without anyone remembering this test.
func parserKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	var probe func(path []string)
	probe = func(path []string) {
		var b strings.Builder
		for i, k := range path {
			fmt.Fprintf(&b, "%s%s:\n", strings.Repeat("  ", i), k)
		}
		fmt.Fprintf(&b, "%szz_probe: 1\n", strings.Repeat("  ", len(path)))
		_, diags := ParseConfig(ConfigFile, []byte(b.String()))
		for _, d := range diags {
			if d.Rule != "config/unknown-key" {
				continue
			}
			m := expectedKeysRE.FindStringSubmatch(d.Message)
			if m == nil {
				t.Fatalf("unknown-key message without the expected keys: %q", d.Message)
			}
			for _, k := range strings.Split(m[1], ", ") {
				full := append(slices.Clone(path), k)
				keys = append(keys, strings.Join(full, "."))
				probe(full)
			}
			return
		}
	}
	probe(nil)
	sort.Strings(keys)
	return keys
}

func schemaKeys(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
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

// The schema describes exactly the keys ParseConfig accepts. A key added to
// the parser without a schema entry (or the reverse) fails here, by name.
func TestSchemaKeysMatchParser(t *testing.T) {
	t.Parallel()
	parser := parserKeys(t)
	if len(parser) < 30 {
		t.Fatalf("probing found only %d keys: %v; the probe is broken", len(parser), parser)
	}
	if diff := cmp.Diff(parser, schemaKeys(t)); diff != "" {
		t.Errorf("%s and ParseConfig disagree on the keys of gallivant.yaml (-parser +schema); add the key to the schema (with its default and a description) and to the config gallivant init writes:\n%s",
			filepath.Base(schemaPath), diff)
	}
}

// The schema's executor.kind enumeration is the parser's, read from its
// own message, so a kind (or agent preset) added to one fails here until
// the other has it.
func TestSchemaExecutorKindsMatchParser(t *testing.T) {
	t.Parallel()
	_, diags := ParseConfig(ConfigFile, []byte("executor:\n  kind: zz_probe\n"))
	var parser []string
	for _, d := range diags {
		if m := regexp.MustCompile(`must be one of (.+), got "zz_probe"`).FindStringSubmatch(d.Message); m != nil {
			parser = strings.Split(m[1], ", ")
		}
	}
	if len(parser) == 0 {
		t.Fatalf("ParseConfig's message names no kinds: %v", diags)
	}
	data, err := os.ReadFile(schemaPath)
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
	schema := s.Properties["executor"].Properties["kind"].Enum
	sort.Strings(parser)
	sort.Strings(schema)
	if diff := cmp.Diff(parser, schema); diff != "" {
		t.Errorf("executor.kind values (-parser +schema):\n%s", diff)
	}
}
