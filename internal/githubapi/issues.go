package githubapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// This file reads and writes the control repository's dashboard issue
// (docs/requests.md): found by a marker in its body among the issues
// gallivant's login opened, created once, its body rewritten, and the
// history of its body read through GraphQL, since GitHub's REST issue
// object does not say who edited a body.

// Issue is an issue (not a pull request) as gallivant reads it.
type Issue struct {
	Number  int
	Title   string
	Body    string
	User    string
	State   string
	HTMLURL string
}

// IssueEdit is one version of an issue's body: who left it, when, and
// the body it left (GraphQL's UserContentEdit; diff is the body).
type IssueEdit struct {
	Editor   string
	EditedAt time.Time
	Body     string
}

// maxIssueEdits bounds the edits IssueEdits reads: the newest ones.
const maxIssueEdits = 50

func issueOf(is *github.Issue) Issue {
	return Issue{Number: is.GetNumber(), Title: is.GetTitle(), Body: is.GetBody(), User: is.GetUser().GetLogin(), State: is.GetState(), HTMLURL: is.GetHTMLURL()}
}

// FindIssue finds the issue creator opened in repo whose body carries
// marker, open or closed (the lowest number when several do); ok is false
// when there is none. Pull requests, which GitHub lists as issues too, are
// skipped.
func (g *Client) FindIssue(ctx context.Context, repo, creator, marker string) (Issue, bool, error) {
	o, n := splitRepo(repo)
	all, err := readPages(fmt.Sprintf("list the issues %s opened in %s", creator, repo), func(page int) ([]*github.Issue, *github.Response, error) {
		return g.c.Issues.ListByRepo(ctx, o, n, &github.IssueListByRepoOptions{Creator: creator, State: "all", ListOptions: github.ListOptions{PerPage: perPage, Page: page}})
	}, nil)
	if err != nil {
		return Issue{}, false, err
	}
	var found []Issue
	for _, is := range all {
		if !is.IsPullRequest() && strings.Contains(is.GetBody(), marker) {
			found = append(found, issueOf(is))
		}
	}
	if len(found) == 0 {
		return Issue{}, false, nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Number < found[j].Number })
	return found[0], true, nil
}

// CreateIssue opens an issue.
func (g *Client) CreateIssue(ctx context.Context, repo, title, body string) (Issue, error) {
	o, n := splitRepo(repo)
	is, _, err := g.c.Issues.Create(ctx, o, n, &github.IssueRequest{Title: &title, Body: &body})
	if err != nil {
		return Issue{}, classify(fmt.Sprintf("open an issue in %s", repo), err)
	}
	return issueOf(is), nil
}

// GetIssue reads an issue.
func (g *Client) GetIssue(ctx context.Context, repo string, number int) (Issue, error) {
	o, n := splitRepo(repo)
	is, _, err := g.c.Issues.Get(ctx, o, n, number)
	if err != nil {
		return Issue{}, classify(fmt.Sprintf("read %s#%d", repo, number), err)
	}
	return issueOf(is), nil
}

// EditIssueBody replaces an issue's body.
func (g *Client) EditIssueBody(ctx context.Context, repo string, number int, body string) error {
	o, n := splitRepo(repo)
	_, _, err := g.c.Issues.Edit(ctx, o, n, number, &github.IssueRequest{Body: &body})
	return classify(fmt.Sprintf("edit the body of %s#%d", repo, number), err)
}

// IssueEdits reads the newest versions of an issue's body, oldest first
// (GraphQL repository.issue.userContentEdits: editor, editedAt, diff).
// An issue never edited has none.
func (g *Client) IssueEdits(ctx context.Context, repo string, number int) ([]IssueEdit, error) {
	op := fmt.Sprintf("read the edits of %s#%d", repo, number)
	o, n := splitRepo(repo)
	var out struct {
		Data struct {
			Repository *struct {
				Issue *struct {
					UserContentEdits *struct {
						Nodes []*struct {
							Editor *struct {
								Login string `json:"login"`
							} `json:"editor"`
							EditedAt time.Time `json:"editedAt"`
							Diff     *string   `json:"diff"`
						} `json:"nodes"`
					} `json:"userContentEdits"`
				} `json:"issue"`
			} `json:"repository"`
		} `json:"data"`
	}
	const query = `query($owner: String!, $name: String!, $number: Int!, $n: Int!) {
  repository(owner: $owner, name: $name) { issue(number: $number) { userContentEdits(first: $n) { nodes { editor { login } editedAt diff } } } } }`
	if err := g.graphql(ctx, op, query, map[string]any{"owner": o, "name": n, "number": number, "n": maxIssueEdits}, &out); err != nil {
		return nil, err
	}
	var edits []IssueEdit
	if r := out.Data.Repository; r != nil && r.Issue != nil && r.Issue.UserContentEdits != nil {
		for _, e := range r.Issue.UserContentEdits.Nodes {
			if e == nil {
				continue
			}
			x := IssueEdit{EditedAt: e.EditedAt}
			if e.Editor != nil {
				x.Editor = e.Editor.Login
			}
			if e.Diff != nil {
				x.Body = *e.Diff
			}
			edits = append(edits, x)
		}
	}
	// GitHub lists the newest first; edits made in the same second keep
	// that order, reversed.
	slices.Reverse(edits)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].EditedAt.Before(edits[j].EditedAt) })
	return edits, nil
}

// graphql posts one query and decodes its data into out; an error in the
// answer is the call's error.
func (g *Client) graphql(ctx context.Context, op, query string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := g.c.NewRequest(http.MethodPost, graphQLURL(g.c.BaseURL.String()), json.RawMessage(body))
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var buf bytes.Buffer
	if _, err := g.c.Do(ctx, req, &buf); err != nil {
		return classify(op, err)
	}
	data := buf.Bytes()
	var errs struct {
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(io.LimitReader(bytes.NewReader(data), 4<<20)).Decode(&errs); err != nil {
		return fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(errs.Errors) > 0 {
		return fmt.Errorf("%s: %s", op, errs.Errors[0].Message)
	}
	if err := json.NewDecoder(io.LimitReader(bytes.NewReader(data), 4<<20)).Decode(out); err != nil {
		return fmt.Errorf("%s: read the answer: %w", op, err)
	}
	return nil
}
