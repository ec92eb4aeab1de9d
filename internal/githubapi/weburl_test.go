package githubapi

import "testing"

// GitHub's web root is derived from the API URL: github.com for its API
// and anything unreadable, the server root for an Enterprise /api/v3/.
func TestWebURL(t *testing.T) {
	t.Parallel()
	for api, want := range map[string]string{
		"https://api.github.com/":            "https://github.com/",
		"":                                   "https://github.com/",
		"::bad":                              "https://github.com/",
		"https://ghe.example.com/api/v3/":    "https://ghe.example.com/",
		"http://127.0.0.1:8123/api/v3":       "http://127.0.0.1:8123/",
		"https://ghe.example.com/sub/api/v3": "https://ghe.example.com/sub/",
	} {
		if got := WebURL(api); got != want {
			t.Errorf("WebURL(%q) = %q, want %q", api, got, want)
		}
	}
}
