package ghstandin

import (
	"hash/fnv"
	"strings"
	"time"
)

// The JSON shapes below follow GitHub's REST responses for the fields
// gallivant and go-github read; nullable fields are pointers so that they
// render as null.

type userJSON struct {
	Login             string `json:"login"`
	ID                int64  `json:"id"`
	NodeID            string `json:"node_id"`
	AvatarURL         string `json:"avatar_url"`
	GravatarID        string `json:"gravatar_id"`
	URL               string `json:"url"`
	HTMLURL           string `json:"html_url"`
	FollowersURL      string `json:"followers_url"`
	FollowingURL      string `json:"following_url"`
	GistsURL          string `json:"gists_url"`
	StarredURL        string `json:"starred_url"`
	SubscriptionsURL  string `json:"subscriptions_url"`
	OrganizationsURL  string `json:"organizations_url"`
	ReposURL          string `json:"repos_url"`
	EventsURL         string `json:"events_url"`
	ReceivedEventsURL string `json:"received_events_url"`
	Type              string `json:"type"`
	UserViewType      string `json:"user_view_type"`
	SiteAdmin         bool   `json:"site_admin"`
}

func (s *Server) user(login string) *userJSON {
	if login == "" {
		return nil
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(login))
	id := int64(h.Sum64()%90000000) + 1000000
	typ := "User"
	if len(login) > 5 && login[len(login)-5:] == "[bot]" {
		typ = "Bot"
	}
	api := s.url + "/api/v3/users/" + login
	return &userJSON{Login: login, ID: id, NodeID: "U_" + login, AvatarURL: s.url + "/avatars/" + login, URL: api, HTMLURL: s.url + "/" + login,
		FollowersURL: api + "/followers", FollowingURL: api + "/following{/other_user}", GistsURL: api + "/gists{/gist_id}",
		StarredURL: api + "/starred{/owner}{/repo}", SubscriptionsURL: api + "/subscriptions", OrganizationsURL: api + "/orgs",
		ReposURL: api + "/repos", EventsURL: api + "/events{/privacy}", ReceivedEventsURL: api + "/received_events", Type: typ, UserViewType: "public"}
}

// privateUserJSON is GET /user: the authenticated user's own profile.
type privateUserJSON struct {
	*userJSON
	Name                    *string   `json:"name"`
	Company                 *string   `json:"company"`
	Blog                    *string   `json:"blog"`
	Location                *string   `json:"location"`
	Email                   *string   `json:"email"`
	Hireable                *bool     `json:"hireable"`
	Bio                     *string   `json:"bio"`
	PublicRepos             int       `json:"public_repos"`
	PublicGists             int       `json:"public_gists"`
	Followers               int       `json:"followers"`
	Following               int       `json:"following"`
	CreatedAt               time.Time `json:"created_at"`
	UpdatedAt               time.Time `json:"updated_at"`
	PrivateGists            int       `json:"private_gists"`
	TotalPrivateRepos       int       `json:"total_private_repos"`
	OwnedPrivateRepos       int       `json:"owned_private_repos"`
	DiskUsage               int       `json:"disk_usage"`
	Collaborators           int       `json:"collaborators"`
	TwoFactorAuthentication bool      `json:"two_factor_authentication"`
}

func (s *Server) privateUser(login string) privateUserJSON {
	epoch := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	return privateUserJSON{userJSON: s.user(login), CreatedAt: epoch, UpdatedAt: epoch}
}

// repoJSON renders a repository as GitHub's full-repository and
// repository schemas describe it: every required field, with the counters
// and URLs a real repository has, null where GitHub sends null.
// minimalRepoJSON is the repository as GitHub embeds it in a combined
// status (minimal-repository): without the counts that change with every
// pull request, so that a commit's combined status keeps its ETag while
// nothing about the commit changes.
func (s *Server) minimalRepoJSON(r *repo) map[string]any {
	out := s.repoJSON(r)
	delete(out, "open_issues")
	delete(out, "open_issues_count")
	return out
}

func (s *Server) repoJSON(r *repo) map[string]any {
	full := r.Owner + "/" + r.Name
	api := s.url + "/api/v3/repos/" + full
	created := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	out := map[string]any{
		"id": r.ID, "node_id": "R_" + full, "name": r.Name, "full_name": full, "private": false, "owner": s.user(r.Owner),
		"html_url": s.url + "/" + full, "description": nil, "fork": r.Parent != "", "url": api,
		"archive_url": api + "/{archive_format}{/ref}", "assignees_url": api + "/assignees{/user}", "blobs_url": api + "/git/blobs{/sha}",
		"branches_url": api + "/branches{/branch}", "collaborators_url": api + "/collaborators{/collaborator}", "comments_url": api + "/comments{/number}",
		"commits_url": api + "/commits{/sha}", "compare_url": api + "/compare/{base}...{head}", "contents_url": api + "/contents/{+path}",
		"contributors_url": api + "/contributors", "deployments_url": api + "/deployments", "downloads_url": api + "/downloads",
		"events_url": api + "/events", "forks_url": api + "/forks", "git_commits_url": api + "/git/commits{/sha}", "git_refs_url": api + "/git/refs{/sha}",
		"git_tags_url": api + "/git/tags{/sha}", "git_url": "git:" + strings.TrimPrefix(s.url, "http:") + "/" + full + ".git",
		"hooks_url": api + "/hooks", "issue_comment_url": api + "/issues/comments{/number}", "issue_events_url": api + "/issues/events{/number}",
		"issues_url": api + "/issues{/number}", "keys_url": api + "/keys{/key_id}", "labels_url": api + "/labels{/name}", "languages_url": api + "/languages",
		"merges_url": api + "/merges", "milestones_url": api + "/milestones{/number}", "notifications_url": api + "/notifications{?since,all,participating}",
		"pulls_url": api + "/pulls{/number}", "releases_url": api + "/releases{/id}", "ssh_url": "git@localhost:" + full + ".git",
		"stargazers_url": api + "/stargazers", "statuses_url": api + "/statuses/{sha}", "subscribers_url": api + "/subscribers",
		"subscription_url": api + "/subscription", "tags_url": api + "/tags", "teams_url": api + "/teams", "trees_url": api + "/git/trees{/sha}",
		"clone_url": s.url + "/" + full + ".git", "mirror_url": nil, "svn_url": s.url + "/" + full, "homepage": nil, "language": nil,
		"forks": 0, "forks_count": 0, "stargazers_count": 0, "watchers_count": 0, "watchers": 0, "size": 0, "default_branch": r.DefaultBranch,
		"open_issues": r.openPulls(), "open_issues_count": r.openPulls(), "is_template": false, "topics": []string{},
		"has_issues": true, "has_projects": false, "has_wiki": false, "has_pages": false, "has_downloads": true, "has_discussions": false,
		"archived": false, "disabled": false, "visibility": "public", "pushed_at": created, "created_at": created, "updated_at": created,
		"allow_rebase_merge": true, "allow_squash_merge": true, "allow_merge_commit": true, "allow_auto_merge": false,
		"delete_branch_on_merge": false, "allow_forking": true, "web_commit_signoff_required": false, "license": nil,
		"network_count": 0, "subscribers_count": 0,
	}
	return out
}

func (r *repo) openPulls() int {
	n := 0
	for _, p := range r.Pulls {
		if p.State == "open" {
			n++
		}
	}
	return n
}

type branchRefJSON struct {
	Label string         `json:"label"`
	Ref   string         `json:"ref"`
	SHA   string         `json:"sha"`
	User  *userJSON      `json:"user"`
	Repo  map[string]any `json:"repo"`
}

type labelJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

func (s *Server) labelJSON(r *repo, name string) labelJSON {
	id, ok := r.LabelIDs[name]
	if !ok {
		id = s.id()
		r.LabelIDs[name] = id
	}
	return labelJSON{ID: id, NodeID: "LA_" + name, URL: s.url + "/api/v3/repos/" + r.Owner + "/" + r.Name + "/labels/" + name, Name: name, Color: "ededed"}
}

type pullJSON struct {
	URL                string         `json:"url"`
	ID                 int64          `json:"id"`
	NodeID             string         `json:"node_id"`
	HTMLURL            string         `json:"html_url"`
	DiffURL            string         `json:"diff_url"`
	PatchURL           string         `json:"patch_url"`
	IssueURL           string         `json:"issue_url"`
	CommitsURL         string         `json:"commits_url"`
	ReviewCommentsURL  string         `json:"review_comments_url"`
	ReviewCommentURL   string         `json:"review_comment_url"`
	CommentsURL        string         `json:"comments_url"`
	StatusesURL        string         `json:"statuses_url"`
	Number             int            `json:"number"`
	State              string         `json:"state"`
	Locked             bool           `json:"locked"`
	ActiveLockReason   *string        `json:"active_lock_reason"`
	Title              string         `json:"title"`
	User               *userJSON      `json:"user"`
	Body               *string        `json:"body"`
	Labels             []labelJSON    `json:"labels"`
	Milestone          *struct{}      `json:"milestone"`
	Assignee           *userJSON      `json:"assignee"`
	Assignees          []userJSON     `json:"assignees"`
	RequestedReviewers []userJSON     `json:"requested_reviewers"`
	RequestedTeams     []struct{}     `json:"requested_teams"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
	ClosedAt           *time.Time     `json:"closed_at"`
	MergedAt           *time.Time     `json:"merged_at"`
	MergeCommitSHA     *string        `json:"merge_commit_sha"`
	Draft              bool           `json:"draft"`
	Head               branchRefJSON  `json:"head"`
	Base               branchRefJSON  `json:"base"`
	Links              map[string]any `json:"_links"`
	AuthorAssociation  string         `json:"author_association"`
	AutoMerge          *struct{}      `json:"auto_merge"`
	*pullDetailJSON
}

// pullDetailJSON is what a single pull request adds to the list's shape:
// mergeability (null while GitHub computes it) and the counters.
type pullDetailJSON struct {
	Merged              bool      `json:"merged"`
	Mergeable           *bool     `json:"mergeable"`
	Rebaseable          *bool     `json:"rebaseable"`
	MergeableState      string    `json:"mergeable_state"`
	MergedBy            *userJSON `json:"merged_by"`
	Comments            int       `json:"comments"`
	ReviewComments      int       `json:"review_comments"`
	MaintainerCanModify bool      `json:"maintainer_can_modify"`
	Commits             int       `json:"commits"`
	Additions           int       `json:"additions"`
	Deletions           int       `json:"deletions"`
	ChangedFiles        int       `json:"changed_files"`
}

type commentJSON struct {
	ID                int64     `json:"id"`
	NodeID            string    `json:"node_id"`
	URL               string    `json:"url"`
	HTMLURL           string    `json:"html_url"`
	IssueURL          string    `json:"issue_url,omitempty"`
	Body              string    `json:"body"`
	User              *userJSON `json:"user"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
	AuthorAssociation string    `json:"author_association"`
	// Review-comment fields.
	PullRequestReviewID *int64                       `json:"pull_request_review_id,omitempty"`
	Path                string                       `json:"path,omitempty"`
	Line                *int                         `json:"line,omitempty"`
	OriginalLine        *int                         `json:"original_line,omitempty"`
	CommitID            string                       `json:"commit_id,omitempty"`
	OriginalCommitID    string                       `json:"original_commit_id,omitempty"`
	DiffHunk            string                       `json:"diff_hunk,omitempty"`
	PullRequestURL      string                       `json:"pull_request_url,omitempty"`
	Position            *int                         `json:"position,omitempty"`
	SubjectType         *string                      `json:"subject_type,omitempty"`
	Side                string                       `json:"side,omitempty"`
	Links               map[string]map[string]string `json:"_links,omitempty"`
}

type reviewJSON struct {
	ID                int64                        `json:"id"`
	NodeID            string                       `json:"node_id"`
	User              *userJSON                    `json:"user"`
	Body              string                       `json:"body"`
	State             string                       `json:"state"`
	HTMLURL           string                       `json:"html_url"`
	PullRequestURL    string                       `json:"pull_request_url"`
	CommitID          string                       `json:"commit_id"`
	SubmittedAt       *time.Time                   `json:"submitted_at,omitempty"`
	AuthorAssociation string                       `json:"author_association"`
	Links             map[string]map[string]string `json:"_links"`
}

type statusJSON struct {
	AvatarURL   *string   `json:"avatar_url"`
	ID          int64     `json:"id"`
	NodeID      string    `json:"node_id"`
	URL         string    `json:"url"`
	State       string    `json:"state"`
	Description *string   `json:"description"`
	TargetURL   *string   `json:"target_url"`
	Context     string    `json:"context"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Creator     *userJSON `json:"creator"`
}

type checkRunJSON struct {
	ID           int64          `json:"id"`
	NodeID       string         `json:"node_id"`
	HeadSHA      string         `json:"head_sha"`
	ExternalID   string         `json:"external_id"`
	URL          string         `json:"url"`
	HTMLURL      string         `json:"html_url"`
	DetailsURL   string         `json:"details_url"`
	Status       string         `json:"status"`
	Conclusion   *string        `json:"conclusion"`
	StartedAt    time.Time      `json:"started_at"`
	CompletedAt  *time.Time     `json:"completed_at"`
	Name         string         `json:"name"`
	App          map[string]any `json:"app"`
	CheckSuite   map[string]any `json:"check_suite"`
	Output       map[string]any `json:"output"`
	PullRequests []any          `json:"pull_requests"`
}

// actionsApp is the GitHub Actions app, which owns the check runs the
// stand-in records.
func (s *Server) actionsApp() map[string]any {
	epoch := time.Date(2018, 7, 30, 9, 30, 17, 0, time.UTC)
	return map[string]any{"id": 15368, "slug": "github-actions", "node_id": "MDM6QXBwMTUzNjg=", "name": "GitHub Actions",
		"owner": s.user("github"), "description": "Automate your workflow from idea to production", "external_url": "https://help.github.com/en/actions",
		"html_url": s.url + "/apps/github-actions", "created_at": epoch, "updated_at": epoch,
		"permissions": map[string]string{"checks": "write", "contents": "write", "metadata": "read"}, "events": []string{"check_run", "check_suite"}}
}

type gitUserJSON struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	Date  time.Time `json:"date"`
}

type commitJSON struct {
	SHA         string `json:"sha"`
	NodeID      string `json:"node_id"`
	URL         string `json:"url"`
	HTMLURL     string `json:"html_url"`
	CommentsURL string `json:"comments_url"`
	Commit      struct {
		Author       gitUserJSON       `json:"author"`
		Committer    gitUserJSON       `json:"committer"`
		Message      string            `json:"message"`
		Tree         map[string]string `json:"tree"`
		URL          string            `json:"url"`
		CommentCount int               `json:"comment_count"`
		Verification map[string]any    `json:"verification"`
	} `json:"commit"`
	Author    *userJSON           `json:"author"`
	Committer *userJSON           `json:"committer"`
	Parents   []map[string]string `json:"parents"`
	Files     []fileJSON          `json:"files,omitempty"`
	Stats     map[string]int      `json:"stats,omitempty"`
}

type fileJSON struct {
	SHA         string `json:"sha"`
	Filename    string `json:"filename"`
	Status      string `json:"status"`
	Additions   int    `json:"additions"`
	Deletions   int    `json:"deletions"`
	Changes     int    `json:"changes"`
	BlobURL     string `json:"blob_url"`
	RawURL      string `json:"raw_url"`
	ContentsURL string `json:"contents_url"`
	Patch       string `json:"patch,omitempty"`
}

func (s *Server) commitJSON(full string, c commitInfo, files []fileChange) commitJSON {
	var j commitJSON
	j.SHA, j.NodeID = c.SHA, "C_"+c.SHA
	j.URL = s.url + "/api/v3/repos/" + full + "/commits/" + c.SHA
	j.HTMLURL = s.url + "/" + full + "/commit/" + c.SHA
	j.Commit.Author = gitUserJSON{c.AuthorName, c.AuthorEmail, c.AuthorDate.UTC()}
	j.Commit.Committer = gitUserJSON{c.CommitterName, c.CommitterEmail, c.CommitterDate.UTC()}
	j.Commit.Message = c.Message
	j.CommentsURL = j.URL + "/comments"
	j.Commit.Tree = map[string]string{"sha": c.Tree, "url": s.url + "/api/v3/repos/" + full + "/git/trees/" + c.Tree}
	j.Commit.URL = s.url + "/api/v3/repos/" + full + "/git/commits/" + c.SHA
	j.Commit.Verification = map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	j.Parents = []map[string]string{}
	for _, p := range c.Parents {
		j.Parents = append(j.Parents, map[string]string{"sha": p, "url": s.url + "/api/v3/repos/" + full + "/commits/" + p})
	}
	if files != nil {
		j.Files = filesJSON(full, s.url, files)
		a, d := 0, 0
		for _, f := range files {
			a += f.Additions
			d += f.Deletions
		}
		j.Stats = map[string]int{"additions": a, "deletions": d, "total": a + d}
	}
	return j
}

func filesJSON(full, base string, files []fileChange) []fileJSON {
	out := []fileJSON{}
	for _, f := range files {
		out = append(out, fileJSON{Filename: f.Filename, Status: f.Status, Additions: f.Additions, Deletions: f.Deletions,
			Changes: f.Additions + f.Deletions, BlobURL: base + "/" + full + "/blob/" + f.Filename, RawURL: base + "/" + full + "/raw/" + f.Filename,
			ContentsURL: base + "/api/v3/repos/" + full + "/contents/" + f.Filename})
	}
	return out
}
