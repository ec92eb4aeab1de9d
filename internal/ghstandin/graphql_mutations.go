package ghstandin

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	graphqlgo "github.com/graph-gophers/graphql-go"
)

// The mutations of github.graphql. Each one that REST can do goes through
// the REST handler (restCall), so GraphQL and REST refuse the same things
// with the same reasons, change the same records and send the same
// webhooks. markPullRequestReadyForReview has no REST equivalent and
// changes the record itself.

// pullTarget finds the repository and number of the pull request a node
// ID names.
func (q *gqlReq) pullTarget(id graphqlgo.ID) (string, int, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(string(id), "PR_"), 10, 64)
	if strings.HasPrefix(string(id), "PR_") && err == nil {
		q.s.mu.Lock()
		defer q.s.mu.Unlock()
		for full, r := range q.s.st.Repos {
			for _, p := range r.Pulls {
				if p.ID == n {
					return full, p.Number, nil
				}
			}
		}
	}
	return "", 0, notFoundNode(id)
}

// AddComment comments on a pull request (POST …/issues/{n}/comments).
func (gqlRoot) AddComment(cx context.Context, args struct {
	Input struct {
		Body             string
		ClientMutationID *string
		SubjectID        graphqlgo.ID
	}
}) (*gqlAddComment, error) {
	q := reqOf(cx)
	full, n, err := q.pullTarget(args.Input.SubjectID)
	if err != nil {
		return nil, err
	}
	status, body := q.restCall(cx, http.MethodPost, "/repos/"+full+"/issues/"+strconv.Itoa(n)+"/comments", map[string]string{"body": args.Input.Body})
	if status != http.StatusCreated {
		return nil, restError(status, body)
	}
	var made struct{ ID int64 }
	_ = json.Unmarshal(body, &made)
	cm, _ := q.byID("IC", made.ID).(*gqlComment)
	out := &gqlAddComment{id: args.Input.ClientMutationID, comment: cm, subject: q.pullByID(strconv.FormatInt(mustPRID(args.Input.SubjectID), 10))}
	return out, nil
}

func mustPRID(id graphqlgo.ID) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(string(id), "PR_"), 10, 64)
	return n
}

// gqlAddComment is AddCommentPayload.
type gqlAddComment struct {
	id      *string
	comment *gqlComment
	subject *gqlPull
}

// ClientMutationID echoes the input's.
func (p *gqlAddComment) ClientMutationID() *string { return p.id }

// CommentEdge is the new comment.
func (p *gqlAddComment) CommentEdge() *gqlCommentEdge {
	if p.comment == nil {
		return nil
	}
	return &gqlCommentEdge{p.comment}
}

// Subject is the pull request commented on.
func (p *gqlAddComment) Subject() *gqlNode {
	if p.subject == nil {
		return nil
	}
	return &gqlNode{p.subject}
}

// gqlCommentEdge is IssueCommentEdge.
type gqlCommentEdge struct{ c *gqlComment }

// Cursor is the edge's cursor.
func (e *gqlCommentEdge) Cursor() string { return cursor(int(e.c.ic.ID)) }

// Node is the comment.
func (e *gqlCommentEdge) Node() *gqlComment { return e.c }

// reviewEvents maps GraphQL's review events to REST's.
var reviewEvents = map[string]string{"APPROVE": "APPROVE", "REQUEST_CHANGES": "REQUEST_CHANGES", "COMMENT": "COMMENT"}

// AddPullRequestReview reviews a pull request (POST …/pulls/{n}/reviews):
// without an event the review stays pending, as on GitHub.
func (gqlRoot) AddPullRequestReview(cx context.Context, args struct {
	Input struct {
		Body             *string
		ClientMutationID *string
		CommitOID        *gqlText
		Event            *string
		PullRequestID    graphqlgo.ID
	}
}) (*gqlAddReview, error) {
	q := reqOf(cx)
	in := args.Input
	full, n, err := q.pullTarget(in.PullRequestID)
	if err != nil {
		return nil, err
	}
	req := map[string]string{}
	if in.Body != nil {
		req["body"] = *in.Body
	}
	if in.Event != nil {
		ev, ok := reviewEvents[*in.Event]
		if !ok {
			return nil, &gqlError{"UNPROCESSABLE", "A pending review can only be dismissed once it is submitted."}
		}
		req["event"] = ev
	}
	if in.CommitOID != nil {
		req["commit_id"] = string(*in.CommitOID)
	}
	status, body := q.restCall(cx, http.MethodPost, "/repos/"+full+"/pulls/"+strconv.Itoa(n)+"/reviews", req)
	if status != http.StatusOK {
		return nil, restError(status, body)
	}
	var made struct{ ID int64 }
	_ = json.Unmarshal(body, &made)
	rv, _ := q.byID("PRR", made.ID).(*gqlReview)
	return &gqlAddReview{id: in.ClientMutationID, review: rv}, nil
}

// gqlAddReview is AddPullRequestReviewPayload.
type gqlAddReview struct {
	id     *string
	review *gqlReview
}

// ClientMutationID echoes the input's.
func (p *gqlAddReview) ClientMutationID() *string { return p.id }

// PullRequestReview is the new review.
func (p *gqlAddReview) PullRequestReview() *gqlReview { return p.review }

// MergePullRequest merges a pull request (PUT …/pulls/{n}/merge), with
// REST's refusals: protection, conflicts, a moved head.
func (gqlRoot) MergePullRequest(cx context.Context, args struct {
	Input struct {
		AuthorEmail      *string
		ClientMutationID *string
		CommitBody       *string
		CommitHeadline   *string
		ExpectedHeadOid  *gqlText
		MergeMethod      string
		PullRequestID    graphqlgo.ID
	}
}) (*gqlMerge, error) {
	q := reqOf(cx)
	in := args.Input
	full, n, err := q.pullTarget(in.PullRequestID)
	if err != nil {
		return nil, err
	}
	req := map[string]string{"merge_method": strings.ToLower(in.MergeMethod)}
	if in.CommitHeadline != nil {
		req["commit_title"] = *in.CommitHeadline
	}
	if in.CommitBody != nil {
		req["commit_message"] = *in.CommitBody
	}
	if in.ExpectedHeadOid != nil {
		req["sha"] = string(*in.ExpectedHeadOid)
	}
	status, body := q.restCall(cx, http.MethodPut, "/repos/"+full+"/pulls/"+strconv.Itoa(n)+"/merge", req)
	if status != http.StatusOK {
		return nil, restError(status, body)
	}
	return &gqlMerge{id: in.ClientMutationID, actor: q.user(q.login), pr: q.pullByID(strconv.FormatInt(mustPRID(in.PullRequestID), 10))}, nil
}

// gqlMerge is MergePullRequestPayload.
type gqlMerge struct {
	id    *string
	actor *gqlUser
	pr    *gqlPull
}

// Actor is who merged.
func (p *gqlMerge) Actor() *gqlUser { return p.actor }

// ClientMutationID echoes the input's.
func (p *gqlMerge) ClientMutationID() *string { return p.id }

// PullRequest is the merged pull request.
func (p *gqlMerge) PullRequest() *gqlPull { return p.pr }

// MarkPullRequestReadyForReview turns a draft into a pull request ready
// for review; a user with push access or the author may, and only while
// it is open.
func (gqlRoot) MarkPullRequestReadyForReview(cx context.Context, args struct {
	Input struct {
		ClientMutationID *string
		PullRequestID    graphqlgo.ID
	}
}) (*gqlReady, error) {
	q := reqOf(cx)
	full, n, err := q.pullTarget(args.Input.PullRequestID)
	if err != nil {
		return nil, err
	}
	var refusal error
	q.view(full, func(c *ctx) {
		for _, p := range c.repo.Pulls {
			if p.Number != n {
				continue
			}
			if role := c.s.roleOf(c.repo, c.login); role != RoleAdmin && role != RoleWrite && !strings.EqualFold(p.User, c.login) {
				refusal = &gqlError{"FORBIDDEN", c.login + " does not have permission to mark this pull request ready for review"}
				return
			}
			if p.State != "open" {
				refusal = &gqlError{"UNPROCESSABLE", "Pull request is closed"}
				return
			}
			p.Draft = false
			p.UpdatedAt = c.s.now()
			c.s.dirty = true
		}
	})
	if refusal != nil {
		return nil, refusal
	}
	return &gqlReady{id: args.Input.ClientMutationID, pr: q.pullByID(strconv.FormatInt(mustPRID(args.Input.PullRequestID), 10))}, nil
}

// gqlReady is MarkPullRequestReadyForReviewPayload.
type gqlReady struct {
	id *string
	pr *gqlPull
}

// ClientMutationID echoes the input's.
func (p *gqlReady) ClientMutationID() *string { return p.id }

// PullRequest is the pull request, no longer a draft.
func (p *gqlReady) PullRequest() *gqlPull { return p.pr }

// SetDraft turns a pull request into a draft or back, as a person does in
// GitHub's interface (REST cannot): tests use it.
func (s *Server) SetDraft(fullName string, number int, draft bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, r := s.lookupRepo(fullName)
	if r == nil {
		return errNoRepo(fullName)
	}
	for _, p := range r.Pulls {
		if p.Number == number {
			p.Draft = draft
			p.UpdatedAt = s.now()
			return s.save()
		}
	}
	return errNoRepo(fullName + "#" + strconv.Itoa(number))
}

func errNoRepo(what string) error { return &notFound{what} }

type notFound struct{ what string }

func (e *notFound) Error() string { return "ghstandin: no " + e.what }
