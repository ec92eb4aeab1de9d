package ghstandin_test

import (
	"net/http"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// PUT …/update-branch takes an empty body, as GitHub does and as Octokit
// sends it without expected_head_sha: the answer is about the branch (422,
// its head already contains the base), not 400 for the JSON.
func TestUpdateBranchTakesAnEmptyBody(t *testing.T) {
	t.Parallel()
	s := testserver.Start(t, "acme/api")
	w := clone(t, s, "acme/api")
	pushFile(t, w, "f", "f.txt", "f\n")
	n := openPull(t, s, "f", nil)
	req, err := http.NewRequest(http.MethodPut, s.URL()+"/api/v3/repos/acme/api/pulls/"+itoa(n)+"/update-branch", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.Token(ghstandin.DefaultLogin))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("update-branch with no body on an up-to-date head: %d, want 422", resp.StatusCode)
	}
}
