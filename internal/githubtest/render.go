package githubtest

import (
	"hash/fnv"
	"time"
)

// The JSON shapes below follow GitHub's REST responses for the fields
// gallivant and go-github read; nullable fields are pointers so that they
// render as null.

type userJSON struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	Type      string `json:"type"`
	SiteAdmin bool   `json:"site_admin"`
	HTMLURL   string `json:"html_url"`
	URL       string `json:"url"`
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
	return &userJSON{Login: login, ID: id, NodeID: "U_" + login, Type: typ, HTMLURL: s.url + "/" + login, URL: s.url + "/api/v3/users/" + login}
}

type repoJSON struct {
	ID            int64     `json:"id"`
	NodeID        string    `json:"node_id"`
	Name          string    `json:"name"`
	FullName      string    `json:"full_name"`
	Private       bool      `json:"private"`
	Owner         *userJSON `json:"owner"`
	HTMLURL       string    `json:"html_url"`
	URL           string    `json:"url"`
	CloneURL      string    `json:"clone_url"`
	DefaultBranch string    `json:"default_branch"`
}

func (s *Server) repoJSON(r *repo) *repoJSON {
	full := r.Owner + "/" + r.Name
	return &repoJSON{ID: r.ID, NodeID: "R_" + full, Name: r.Name, FullName: full, Owner: s.user(r.Owner),
		HTMLURL: s.url + "/" + full, URL: s.url + "/api/v3/repos/" + full, CloneURL: s.url + "/" + full + ".git", DefaultBranch: r.DefaultBranch}
}

type branchRefJSON struct {
	Label string    `json:"label"`
	Ref   string    `json:"ref"`
	SHA   string    `json:"sha"`
	User  *userJSON `json:"user"`
	Repo  *repoJSON `json:"repo"`
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
	URL               string        `json:"url"`
	ID                int64         `json:"id"`
	NodeID            string        `json:"node_id"`
	HTMLURL           string        `json:"html_url"`
	Number            int           `json:"number"`
	State             string        `json:"state"`
	Locked            bool          `json:"locked"`
	Title             string        `json:"title"`
	User              *userJSON     `json:"user"`
	Body              *string       `json:"body"`
	Labels            []labelJSON   `json:"labels"`
	CreatedAt         time.Time     `json:"created_at"`
	UpdatedAt         time.Time     `json:"updated_at"`
	ClosedAt          *time.Time    `json:"closed_at"`
	MergedAt          *time.Time    `json:"merged_at"`
	MergeCommitSHA    *string       `json:"merge_commit_sha"`
	Draft             bool          `json:"draft"`
	Head              branchRefJSON `json:"head"`
	Base              branchRefJSON `json:"base"`
	AuthorAssociation string        `json:"author_association"`
	Merged            *bool         `json:"merged,omitempty"`
	Mergeable         *bool         `json:"mergeable,omitempty"`
	MergeableState    string        `json:"mergeable_state,omitempty"`
	MergedBy          *userJSON     `json:"merged_by,omitempty"`
	Commits           int           `json:"commits,omitempty"`
	ChangedFiles      int           `json:"changed_files,omitempty"`
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
	PullRequestReviewID *int64  `json:"pull_request_review_id,omitempty"`
	Path                string  `json:"path,omitempty"`
	Line                *int    `json:"line,omitempty"`
	OriginalLine        *int    `json:"original_line,omitempty"`
	CommitID            string  `json:"commit_id,omitempty"`
	OriginalCommitID    string  `json:"original_commit_id,omitempty"`
	DiffHunk            string  `json:"diff_hunk,omitempty"`
	PullRequestURL      string  `json:"pull_request_url,omitempty"`
	Position            *int    `json:"position,omitempty"`
	SubjectType         *string `json:"subject_type,omitempty"`
}

type reviewJSON struct {
	ID                int64      `json:"id"`
	NodeID            string     `json:"node_id"`
	User              *userJSON  `json:"user"`
	Body              string     `json:"body"`
	State             string     `json:"state"`
	HTMLURL           string     `json:"html_url"`
	PullRequestURL    string     `json:"pull_request_url"`
	CommitID          string     `json:"commit_id"`
	SubmittedAt       *time.Time `json:"submitted_at,omitempty"`
	AuthorAssociation string     `json:"author_association"`
}

type statusJSON struct {
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
	ID          int64          `json:"id"`
	NodeID      string         `json:"node_id"`
	HeadSHA     string         `json:"head_sha"`
	ExternalID  string         `json:"external_id"`
	URL         string         `json:"url"`
	HTMLURL     string         `json:"html_url"`
	DetailsURL  string         `json:"details_url"`
	Status      string         `json:"status"`
	Conclusion  *string        `json:"conclusion"`
	StartedAt   time.Time      `json:"started_at"`
	CompletedAt *time.Time     `json:"completed_at"`
	Name        string         `json:"name"`
	App         map[string]any `json:"app"`
	CheckSuite  map[string]any `json:"check_suite"`
	Output      map[string]any `json:"output"`
}

type gitUserJSON struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	Date  time.Time `json:"date"`
}

type commitJSON struct {
	SHA     string `json:"sha"`
	NodeID  string `json:"node_id"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
	Commit  struct {
		Author    gitUserJSON       `json:"author"`
		Committer gitUserJSON       `json:"committer"`
		Message   string            `json:"message"`
		Tree      map[string]string `json:"tree"`
		URL       string            `json:"url"`
	} `json:"commit"`
	Author    *userJSON           `json:"author"`
	Committer *userJSON           `json:"committer"`
	Parents   []map[string]string `json:"parents"`
	Files     []fileJSON          `json:"files,omitempty"`
	Stats     map[string]int      `json:"stats,omitempty"`
}

type fileJSON struct {
	SHA       string `json:"sha"`
	Filename  string `json:"filename"`
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Changes   int    `json:"changes"`
	BlobURL   string `json:"blob_url"`
	RawURL    string `json:"raw_url"`
}

func (s *Server) commitJSON(full string, c commitInfo, files []fileChange) commitJSON {
	var j commitJSON
	j.SHA, j.NodeID = c.SHA, "C_"+c.SHA
	j.URL = s.url + "/api/v3/repos/" + full + "/commits/" + c.SHA
	j.HTMLURL = s.url + "/" + full + "/commit/" + c.SHA
	j.Commit.Author = gitUserJSON{c.AuthorName, c.AuthorEmail, c.AuthorDate.UTC()}
	j.Commit.Committer = gitUserJSON{c.CommitterName, c.CommitterEmail, c.CommitterDate.UTC()}
	j.Commit.Message = c.Message
	j.Commit.Tree = map[string]string{"sha": c.Tree}
	j.Commit.URL = j.URL
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
			Changes: f.Additions + f.Deletions, BlobURL: base + "/" + full + "/blob/" + f.Filename, RawURL: base + "/" + full + "/raw/" + f.Filename})
	}
	return out
}
