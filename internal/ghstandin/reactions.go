package ghstandin

import (
	"net/http"
	"strconv"
	"time"
)

// This file serves the reactions of issue comments as GitHub documents
// them (reactions/create-for-issue-comment, reactions/list-for-issue-comment):
// creating a reaction a user already left answers 200 with it, a new one
// 201; an unknown content is 422 and an unknown comment 404.

// reactionContents is GitHub's closed set of reaction contents.
var reactionContents = map[string]bool{"+1": true, "-1": true, "laugh": true, "confused": true, "heart": true,
	"hooray": true, "rocket": true, "eyes": true}

// reaction is one user's reaction to an issue comment.
type reaction struct {
	ID        int64     `json:"id"`
	CommentID int64     `json:"comment_id"`
	User      string    `json:"user"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

type reactionJSON struct {
	ID        int64     `json:"id"`
	NodeID    string    `json:"node_id"`
	User      *userJSON `json:"user"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

func (s *Server) reactionRoutes(mux *http.ServeMux, r string) {
	mux.HandleFunc("GET "+r+"/issues/comments/{id}/reactions", s.handle(true, listCommentReactions))
	mux.HandleFunc("POST "+r+"/issues/comments/{id}/reactions", s.handle(true, createCommentReaction))
}

func (c *ctx) reactionJSON(x *reaction) reactionJSON {
	return reactionJSON{ID: x.ID, NodeID: "REA_" + strconv.FormatInt(x.ID, 10), User: c.s.user(x.User), Content: x.Content, CreatedAt: x.CreatedAt}
}

// reactedComment is the issue comment the path names, or false after
// answering 404.
func (c *ctx) reactedComment() (int64, bool) {
	id, err := strconv.ParseInt(c.r.PathValue("id"), 10, 64)
	if err == nil {
		for _, ic := range c.repo.Comments {
			if ic.ID == id {
				return id, true
			}
		}
	}
	writeError(c.w, http.StatusNotFound, "Not Found")
	return 0, false
}

func listCommentReactions(c *ctx) {
	id, ok := c.reactedComment()
	if !ok {
		return
	}
	content := c.r.URL.Query().Get("content")
	out := []reactionJSON{}
	for _, x := range c.repo.Reactions {
		if x.CommentID == id && (content == "" || x.Content == content) {
			out = append(out, c.reactionJSON(x))
		}
	}
	paginate(c, out)
}

func createCommentReaction(c *ctx) {
	id, ok := c.reactedComment()
	if !ok {
		return
	}
	var in struct{ Content string }
	if !c.decode(&in) {
		return
	}
	if !reactionContents[in.Content] {
		c.invalidField("Reaction", "content", "invalid", "")
		return
	}
	for _, x := range c.repo.Reactions {
		if x.CommentID == id && x.User == c.login && x.Content == in.Content {
			writeJSON(c.w, http.StatusOK, c.reactionJSON(x))
			return
		}
	}
	x := &reaction{ID: c.s.id(), CommentID: id, User: c.login, Content: in.Content, CreatedAt: c.s.now()}
	c.repo.Reactions = append(c.repo.Reactions, x)
	writeJSON(c.w, http.StatusCreated, c.reactionJSON(x))
}
