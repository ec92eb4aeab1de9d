package ghstandin

import (
	"context"
	"strconv"

	graphqlgo "github.com/graph-gophers/graphql-go"
)

// This file serves an issue through GraphQL (Repository.issue) with the
// history of its body, userContentEdits: GitHub's REST issue object does
// not say who edited a body, this does. The edits are the ones PATCH
// /issues/{n} records (issues.go), newest first as GitHub lists them;
// diff is the body the edit left.

// gqlIssue is Issue.
type gqlIssue struct {
	q    *gqlReq
	full string
	is   issue
}

// Issue is the repository's issue number, or GitHub's NOT_FOUND error.
func (r *gqlRepo) Issue(args struct{ Number int32 }) (*gqlIssue, error) {
	var out *gqlIssue
	r.q.view(r.full, func(c *ctx) {
		for _, is := range c.repo.Issues {
			if is.Number == int(args.Number) {
				cp := *is
				cp.Edits = append([]*issueEdit(nil), is.Edits...)
				out = &gqlIssue{q: r.q, full: c.full, is: cp}
			}
		}
	})
	if out == nil {
		return nil, &gqlError{"NOT_FOUND", "Could not resolve to an Issue with the number of " + strconv.Itoa(int(args.Number)) + "."}
	}
	return out, nil
}

// Author is who opened the issue.
func (i *gqlIssue) Author() *gqlUser { return i.q.user(i.is.User) }

// Body is the issue's text.
func (i *gqlIssue) Body() string { return i.is.Body }

// DatabaseID is REST's id.
func (i *gqlIssue) DatabaseID() *int32 { id := int32(i.is.ID); return &id }

// ID is the issue's node id, REST's node_id.
func (i *gqlIssue) ID() graphqlgo.ID { return graphqlgo.ID("I_" + strconv.FormatInt(i.is.ID, 10)) }

// Number is the issue's number.
func (i *gqlIssue) Number() int32 { return int32(i.is.Number) }

// Title is the issue's title.
func (i *gqlIssue) Title() string { return i.is.Title }

// URL is the issue's web address.
func (i *gqlIssue) URL() gqlText {
	return gqlText(i.q.s.URL() + "/" + i.full + "/issues/" + strconv.Itoa(i.is.Number))
}

// UserContentEdits pages the body's versions, newest first.
func (i *gqlIssue) UserContentEdits(cx context.Context, a pageArgs) (*gqlConn[*gqlEdit], error) {
	var all []*gqlEdit
	for k := len(i.is.Edits) - 1; k >= 0; k-- {
		all = append(all, &gqlEdit{q: i.q, e: *i.is.Edits[k]})
	}
	return connOf(cx, "userContentEdits", all, a)
}

// gqlEdit is UserContentEdit.
type gqlEdit struct {
	q *gqlReq
	e issueEdit
}

// CreatedAt is when the edit was made.
func (e *gqlEdit) CreatedAt() gqlTime { return timeOf(e.e.EditedAt) }

// DeletedAt is null: the stand-in deletes no edit.
func (e *gqlEdit) DeletedAt() *gqlTime { return nil }

// Diff is the body the edit left.
func (e *gqlEdit) Diff() *string { d := e.e.Body; return &d }

// EditedAt is when the edit was made.
func (e *gqlEdit) EditedAt() gqlTime { return timeOf(e.e.EditedAt) }

// Editor is who made it.
func (e *gqlEdit) Editor() *gqlUser { return e.q.user(e.e.Editor) }

// ID is the edit's node id.
func (e *gqlEdit) ID() graphqlgo.ID { return graphqlgo.ID("UCE_" + strconv.FormatInt(e.e.ID, 10)) }

// UpdatedAt is when the edit was made.
func (e *gqlEdit) UpdatedAt() gqlTime { return timeOf(e.e.EditedAt) }

// ToIssue resolves a Node that is an issue.
func (n *gqlNode) ToIssue() (*gqlIssue, bool) { return nodeAs[*gqlIssue](n) }

// ToUserContentEdit resolves a Node that is a content edit.
func (n *gqlNode) ToUserContentEdit() (*gqlEdit, bool) { return nodeAs[*gqlEdit](n) }
