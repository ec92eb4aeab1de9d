package ghstandin_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// What a person types in a shell must work: docs/quickstart.md merges with
// curl -X PUT "$GITHUB_API_URL/repos/…/merge", with GITHUB_API_URL ending in
// a slash and no body.
func TestPlainHTTPClients(t *testing.T) {
	s := testserver.Start(t, "acme/api")
	gh := client(t, s, ghstandin.DefaultLogin)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(t *testing.T, method, url string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "token "+s.MainToken())
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	for _, tc := range []struct{ name, url string }{
		{"base with slash", s.APIURL() + "repos/acme/api"},
		{"double slash", s.APIURL() + "/repos/acme/api"},
		{"base without slash", strings.TrimSuffix(s.APIURL(), "/") + "/repos/acme/api"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := do(t, http.MethodGet, tc.url)
			if code != http.StatusOK || body["full_name"] != "acme/api" {
				t.Errorf("GET %s = %d %v, want 200 acme/api", tc.url, code, body)
			}
		})
	}
	t.Run("merge with an empty body", func(t *testing.T) {
		pr, sha := openPR(t, s, gh, "feat", "f.txt")
		code, body := do(t, http.MethodPut, s.APIURL()+"/repos/acme/api/pulls/"+strconv.Itoa(pr.GetNumber())+"/merge")
		if code != http.StatusOK || body["merged"] != true {
			t.Fatalf("PUT merge without a body = %d %v, want 200 merged", code, body)
		}
		p, _, _ := gh.PullRequests.Get(t.Context(), "acme", "api", pr.GetNumber())
		if !p.GetMerged() || p.GetHead().GetSHA() != sha {
			t.Errorf("after merge: merged %v", p.GetMerged())
		}
	})
}
