package ghstandin_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The contract test checks the stand-in against GitHub's own OpenAPI
// description. CI machines are offline, so the repository carries a subset
// of it: the served operations' responses with their schemas, descriptions
// and examples removed. testdata/openapi/regenerate.sh rebuilds the subset
// from the pinned, checksum-verified npm package through -openapi-source.

var openapiSource = flag.String("openapi-source", "", "path to api.github.com.deref.json; TestOpenAPISubset rewrites testdata/openapi/subset.json from it")

const subsetPath = "testdata/openapi/subset.json"

// servedOperations are the operations the stand-in serves, as the
// description names them ("METHOD path").
var servedOperations = []string{
	"GET /user",
	"GET /rate_limit",
	"GET /repos/{owner}/{repo}",
	"GET /repos/{owner}/{repo}/branches",
	"GET /repos/{owner}/{repo}/branches/{branch}",
	"GET /repos/{owner}/{repo}/branches/{branch}/protection",
	"GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks",
	"GET /repos/{owner}/{repo}/rules/branches/{branch}",
	"GET /repos/{owner}/{repo}/contents/{path}",
	"GET /repos/{owner}/{repo}/git/ref/{ref}",
	"GET /repos/{owner}/{repo}/git/matching-refs/{ref}",
	"POST /repos/{owner}/{repo}/git/refs",
	"PATCH /repos/{owner}/{repo}/git/refs/{ref}",
	"DELETE /repos/{owner}/{repo}/git/refs/{ref}",
	"GET /repos/{owner}/{repo}/commits/{ref}",
	"GET /repos/{owner}/{repo}/commits/{ref}/status",
	"GET /repos/{owner}/{repo}/commits/{ref}/statuses",
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
	"GET /repos/{owner}/{repo}/compare/{basehead}",
	"GET /repos/{owner}/{repo}/pulls",
	"POST /repos/{owner}/{repo}/pulls",
	"GET /repos/{owner}/{repo}/pulls/{pull_number}",
	"PATCH /repos/{owner}/{repo}/pulls/{pull_number}",
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/files",
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch",
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission",
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews",
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/dismissals",
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/comments",
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/comments",
	"GET /repos/{owner}/{repo}/issues",
	"POST /repos/{owner}/{repo}/issues",
	"GET /repos/{owner}/{repo}/issues/{issue_number}",
	"PATCH /repos/{owner}/{repo}/issues/{issue_number}",
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}",
	"GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
	"POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions",
	"GET /repos/{owner}/{repo}/issues/{issue_number}/labels",
	"POST /repos/{owner}/{repo}/issues/{issue_number}/labels",
	"DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
	"POST /repos/{owner}/{repo}/statuses/{sha}",
	"POST /repos/{owner}/{repo}/check-runs",
	"PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
	"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
	"GET /repos/{owner}/{repo}/actions/runs",
	"GET /app",
	"GET /repos/{owner}/{repo}/installation",
	"POST /app/installations/{installation_id}/access_tokens",
	"GET /repos/{owner}/{repo}/hooks",
	"POST /repos/{owner}/{repo}/hooks",
	"DELETE /repos/{owner}/{repo}/hooks/{hook_id}",
	"POST /repos/{owner}/{repo}/forks",
}

// subset is the committed extract of the description.
type subset struct {
	Source     string                `json:"source"`
	Version    string                `json:"version"`
	Operations map[string]*operation `json:"operations"`
}

type operation struct {
	ID        string               `json:"operation_id"`
	Responses map[string]*response `json:"responses"`
}

type response struct {
	// Headers are the response headers the description documents.
	Headers []string `json:"headers,omitempty"`
	// Schema is the application/json body's schema; nil for no body.
	Schema map[string]any `json:"schema,omitempty"`
}

// schemaKeys are the JSON-schema keywords the validator reads; everything
// else (descriptions, examples, titles) is dropped from the subset.
var schemaKeys = map[string]bool{"type": true, "required": true, "properties": true, "items": true, "nullable": true,
	"anyOf": true, "oneOf": true, "allOf": true, "enum": true, "additionalProperties": true, "format": true}

func pruneSchema(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			switch {
			case !schemaKeys[k]:
			case k == "properties":
				props := map[string]any{}
				for name, p := range x.(map[string]any) {
					props[name] = pruneSchema(p)
				}
				out[k] = props
			case k == "additionalProperties":
				if m, ok := x.(map[string]any); ok {
					out[k] = pruneSchema(m)
				} else {
					out[k] = x
				}
			case k == "items":
				out[k] = pruneSchema(x)
			case k == "anyOf" || k == "oneOf" || k == "allOf":
				var list []any
				for _, s := range x.([]any) {
					list = append(list, pruneSchema(s))
				}
				out[k] = list
			default:
				out[k] = x
			}
		}
		return out
	default:
		return v
	}
}

// TestOpenAPISubset rewrites the subset from the full description when
// -openapi-source is given, and otherwise checks that the committed subset
// covers every served operation.
func TestOpenAPISubset(t *testing.T) {
	if *openapiSource == "" {
		sub := loadSubset(t)
		for _, op := range servedOperations {
			if sub.Operations[op] == nil {
				t.Errorf("%s is served but missing from %s; run testdata/openapi/regenerate.sh", op, subsetPath)
			}
		}
		return
	}
	data, err := os.ReadFile(*openapiSource)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info  struct{ Version string }
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Responses   map[string]struct {
				Headers map[string]any
				Content map[string]struct {
					Schema map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	sub := subset{Source: "@octokit/openapi " + doc.Info.Version + " generated/api.github.com.deref.json", Version: doc.Info.Version, Operations: map[string]*operation{}}
	for _, op := range servedOperations {
		method, path, _ := strings.Cut(op, " ")
		o, ok := doc.Paths[path][strings.ToLower(method)]
		if !ok {
			t.Fatalf("%s is not in the description", op)
		}
		out := &operation{ID: o.OperationID, Responses: map[string]*response{}}
		for status, r := range o.Responses {
			resp := &response{}
			for h := range r.Headers {
				resp.Headers = append(resp.Headers, h)
			}
			sort.Strings(resp.Headers)
			if c, ok := r.Content["application/json"]; ok && c.Schema != nil {
				resp.Schema = pruneSchema(c.Schema).(map[string]any)
			}
			out.Responses[status] = resp
		}
		sub.Operations[op] = out
	}
	enc, err := json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(subsetPath, append(enc, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d operations, %d bytes", subsetPath, len(sub.Operations), len(enc))
}

func loadSubset(t testing.TB) *subset {
	t.Helper()
	data, err := os.ReadFile(filepath.FromSlash(subsetPath))
	if err != nil {
		t.Fatal(err)
	}
	var sub subset
	if err := json.Unmarshal(data, &sub); err != nil {
		t.Fatalf("%s: %v", subsetPath, err)
	}
	return &sub
}

// schemaErrors validates v against the subset of JSON schema the
// description uses. Each violation names its location in the value.
func schemaErrors(schema map[string]any, v any, at string) []string {
	if schema == nil {
		return nil
	}
	if v == nil {
		if schema["nullable"] == true || len(schema) == 0 {
			return nil
		}
		// A null is also fine where an alternative allows it.
		for _, k := range []string{"anyOf", "oneOf"} {
			if alts, ok := schema[k].([]any); ok {
				for _, a := range alts {
					if schemaErrors(a.(map[string]any), nil, at) == nil {
						return nil
					}
				}
			}
		}
		if t, ok := schema["type"].(string); ok && t == "null" {
			return nil
		}
		if _, typed := schema["type"]; !typed && schema["allOf"] == nil && schema["anyOf"] == nil && schema["oneOf"] == nil {
			return nil
		}
		return []string{at + ": null where the description does not allow it"}
	}
	var errs []string
	if all, ok := schema["allOf"].([]any); ok {
		for _, s := range all {
			errs = append(errs, schemaErrors(s.(map[string]any), v, at)...)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, ok := schema[k].([]any)
		if !ok {
			continue
		}
		var best []string
		matched := false
		for _, a := range alts {
			e := schemaErrors(a.(map[string]any), v, at)
			if e == nil {
				matched = true
				break
			}
			if best == nil || len(e) < len(best) {
				best = e
			}
		}
		if !matched {
			errs = append(errs, best...)
		}
	}
	if typ, ok := schema["type"].(string); ok {
		if !hasType(typ, v) {
			return append(errs, fmt.Sprintf("%s: %s where the description wants %s", at, jsonType(v), typ))
		}
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == v
		}
		if !found {
			errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", at, v, enum))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if _, ok := v[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s.%s: required but missing", at, r))
				}
			}
		}
		props, _ := schema["properties"].(map[string]any)
		for name, x := range v {
			if p, ok := props[name].(map[string]any); ok {
				errs = append(errs, schemaErrors(p, x, at+"."+name)...)
			} else if ap, ok := schema["additionalProperties"].(map[string]any); ok {
				errs = append(errs, schemaErrors(ap, x, at+"."+name)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, schemaErrors(items, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	return errs
}

func hasType(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		return "number"
	}
	return "null"
}

// opPattern turns "GET /repos/{owner}/{repo}" into a regular expression
// over request paths; {name} matches one segment, except the parameters
// GitHub lets span slashes.
func opPattern(op string) *regexp.Regexp {
	method, path, _ := strings.Cut(op, " ")
	re := regexp.QuoteMeta(path)
	re = regexp.MustCompile(`\\\{(\w+)\\\}`).ReplaceAllStringFunc(re, func(m string) string {
		switch m {
		case `\{ref\}`, `\{branch\}`, `\{basehead\}`, `\{path\}`:
			return `.+`
		}
		return `[^/]+`
	})
	return regexp.MustCompile("^" + method + " " + re + "$")
}

// TestSchemaErrors pins the validator itself, so that a lenient validator
// cannot make the contract test pass.
func TestSchemaErrors(t *testing.T) {
	obj := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	val := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	user := `{"type":"object","required":["login","id"],"properties":{"login":{"type":"string"},"id":{"type":"integer"},"email":{"type":"string","nullable":true}}}`
	tests := []struct {
		name, schema, value string
		want                int // violations
	}{
		{"conforming object", user, `{"login":"a","id":1,"email":null}`, 0},
		{"missing required field", user, `{"login":"a"}`, 1},
		{"wrong type", user, `{"login":1,"id":1}`, 1},
		{"integer with a fraction", user, `{"login":"a","id":1.5}`, 1},
		{"null where not nullable", user, `{"login":null,"id":1}`, 1},
		{"nullable object", `{"type":"object","nullable":true}`, `null`, 0},
		{"array items", `{"type":"array","items":` + user + `}`, `[{"login":"a","id":1},{"id":2}]`, 1},
		{"enum member", `{"type":"string","enum":["open","closed"]}`, `"open"`, 0},
		{"enum outsider", `{"type":"string","enum":["open","closed"]}`, `"merged"`, 1},
		{"oneOf either", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `3`, 0},
		{"oneOf neither", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `true`, 1},
		{"anyOf with null", `{"anyOf":[{"type":"null"},{"type":"string"}]}`, `null`, 0},
		{"allOf both apply", `{"allOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1}`, 1},
		{"additionalProperties", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"x":"1","y":2}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := schemaErrors(obj(tc.schema), val(tc.value), "body")
			if len(got) != tc.want {
				t.Errorf("schemaErrors = %q, want %d violations", got, tc.want)
			}
		})
	}
}
