package ghstandin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	graphqlgo "github.com/graph-gophers/graphql-go"
)

// This file serves GraphQL at POST /api/graphql, where GitHub Enterprise
// serves it (/graphql on github.com), through a schema-checked
// implementation: github.graphql is the subset of GitHub's public schema
// the GitHub CLI's pull request and auth commands and gallivant's
// markPullRequestReadyForReview use, and graph-gophers/graphql-go parses,
// validates and executes every request against it (introspection
// included, which gh uses to detect features on an Enterprise host).
// Queries read the same state as REST; mutations go through the REST
// handlers (graphql_mutations.go), so a review approved with gh is a
// review REST lists and branch protection counts.

//go:embed github.graphql
var githubSchemaSDL string

var (
	schemaOnce sync.Once
	schemaErr  error
	schema     *graphqlgo.Schema
)

// githubSchema parses github.graphql once and binds it to the resolvers.
func githubSchema() (*graphqlgo.Schema, error) {
	schemaOnce.Do(func() {
		schema, schemaErr = graphqlgo.ParseSchema(githubSchemaSDL, &gqlRoot{},
			// GitHub refuses a query above these bounds too; the
			// numbers are smaller, as the stand-in's queries are.
			graphqlgo.MaxDepth(25), graphqlgo.MaxQueryLength(64<<10), graphqlgo.MaxParallelism(4))
	})
	return schema, schemaErr
}

// gqlReq is one GraphQL request: its caller, the REST routes mutations go
// through and the Authorization header they go with.
type gqlReq struct {
	s     *Server
	rest  http.Handler
	auth  string
	login string
}

type gqlReqKey struct{}

func reqOf(ctx context.Context) *gqlReq { return ctx.Value(gqlReqKey{}).(*gqlReq) }

// graphqlHandler answers POST /api/graphql. The request has been
// authenticated and charged to the graphql budget by serveAPI.
func (s *Server) graphqlHandler(rest http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		login, _ := s.authenticate(r)
		if login == "" {
			writeError(w, http.StatusUnauthorized, "This endpoint requires you to be authenticated.")
			return
		}
		var in struct {
			Query         string         `json:"query"`
			OperationName string         `json:"operationName"`
			Variables     map[string]any `json:"variables"`
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || json.Unmarshal(body, &in) != nil {
			writeError(w, http.StatusBadRequest, "Problems parsing JSON")
			return
		}
		sch, err := githubSchema()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "ghstandin: the GraphQL schema: "+err.Error())
			return
		}
		q := &gqlReq{s: s, rest: rest, auth: r.Header.Get("Authorization"), login: login}
		ctx := context.WithValue(r.Context(), gqlReqKey{}, q)
		resp := sch.Exec(ctx, in.Query, in.OperationName, in.Variables)
		writeJSON(w, http.StatusOK, githubErrors(resp))
	}
}

// githubErrors lays a response out as GitHub does: an error's type (the
// extension the resolvers set) is a field of the error itself.
func githubErrors(resp *graphqlgo.Response) map[string]any {
	out := map[string]any{}
	if resp.Data != nil {
		out["data"] = resp.Data
	}
	if len(resp.Errors) == 0 {
		return out
	}
	errs := make([]map[string]any, 0, len(resp.Errors))
	for _, e := range resp.Errors {
		m := map[string]any{"message": e.Message}
		if len(e.Locations) > 0 {
			m["locations"] = e.Locations
		}
		if len(e.Path) > 0 {
			m["path"] = e.Path
		}
		if t, ok := e.Extensions["type"]; ok {
			m["type"] = t
		}
		errs = append(errs, m)
	}
	out["errors"] = errs
	return out
}

// gqlError is an error with GitHub's type (NOT_FOUND, FORBIDDEN,
// UNPROCESSABLE, MISSING_PAGINATION_BOUNDARIES…).
type gqlError struct{ typ, msg string }

func (e *gqlError) Error() string { return e.msg }

// Extensions carries the type to githubErrors.
func (e *gqlError) Extensions() map[string]any { return map[string]any{"type": e.typ} }

func notFoundNode(id graphqlgo.ID) error {
	return &gqlError{"NOT_FOUND", "Could not resolve to a node with the global id of '" + string(id) + "'"}
}

// gqlTime is the DateTime scalar.
type gqlTime struct{ time.Time }

// ImplementsGraphQLType binds gqlTime to DateTime.
func (gqlTime) ImplementsGraphQLType(name string) bool { return name == "DateTime" }

// UnmarshalGraphQL reads an ISO-8601 time.
func (t *gqlTime) UnmarshalGraphQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("DateTime: want a string, got %T", v)
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("DateTime: %w", err)
	}
	t.Time = p
	return nil
}

// MarshalJSON writes the time as GitHub does, in UTC to the second.
func (t gqlTime) MarshalJSON() ([]byte, error) {
	return json.Marshal(t.UTC().Format("2006-01-02T15:04:05Z"))
}

func timeOf(t time.Time) gqlTime { return gqlTime{t} }

func timePtr(t *time.Time) *gqlTime {
	if t == nil || t.IsZero() {
		return nil
	}
	return &gqlTime{*t}
}

// gqlBigInt is the BigInt scalar, which GitHub writes as a string.
type gqlBigInt struct{ n int64 }

// ImplementsGraphQLType binds gqlBigInt to BigInt.
func (gqlBigInt) ImplementsGraphQLType(name string) bool { return name == "BigInt" }

// UnmarshalGraphQL reads a BigInt argument: a string of digits.
func (b *gqlBigInt) UnmarshalGraphQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("BigInt: want a string, got %T", v)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("BigInt: %w", err)
	}
	b.n = n
	return nil
}

// MarshalJSON writes the number as a string, as GitHub does.
func (b gqlBigInt) MarshalJSON() ([]byte, error) { return json.Marshal(strconv.FormatInt(b.n, 10)) }

// gqlText is the string scalars URI and GitObjectID.
type gqlText string

// ImplementsGraphQLType binds gqlText to URI and GitObjectID.
func (gqlText) ImplementsGraphQLType(name string) bool { return name == "URI" || name == "GitObjectID" }

// UnmarshalGraphQL reads the string.
func (t *gqlText) UnmarshalGraphQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("want a string, got %T", v)
	}
	*t = gqlText(s)
	return nil
}

func textPtr(s string) *gqlText {
	if s == "" {
		return nil
	}
	t := gqlText(s)
	return &t
}

// pageArgs are a connection's pagination arguments.
type pageArgs struct {
	First, Last   *int32
	After, Before *string
}

// gqlPageInfo is PageInfo.
type gqlPageInfo struct {
	start, end       int // [start, end) of the whole list
	hasNext, hasPrev bool
	startCur, endCur *string
}

// EndCursor is the cursor of the page's last item.
func (p *gqlPageInfo) EndCursor() *string { return p.endCur }

// StartCursor is the cursor of the page's first item.
func (p *gqlPageInfo) StartCursor() *string { return p.startCur }

// HasNextPage reports items after the page.
func (p *gqlPageInfo) HasNextPage() bool { return p.hasNext }

// HasPreviousPage reports items before the page.
func (p *gqlPageInfo) HasPreviousPage() bool { return p.hasPrev }

// cursor is the opaque cursor of the item at index i, shaped like
// GitHub's (base64 of "cursor:v2:" and a position).
func cursor(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(i)))
}

func uncursor(c string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "cursor:v2:") {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:v2:"))
	return n, err == nil && n >= 0
}

// window cuts the page a connection's arguments ask for out of n items,
// with GitHub's rules: first or last is required once nodes are selected
// (totalCount alone needs neither), at most 100, and cursors must be ones
// the connection gave out.
func window(cx context.Context, name string, n int, a pageArgs) (*gqlPageInfo, error) {
	if a.First == nil && a.Last == nil {
		if graphqlgo.HasSelectedField(cx, "nodes") || graphqlgo.HasSelectedField(cx, "edges") {
			return nil, &gqlError{"MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value to properly paginate the `" + name + "` connection."}
		}
		return &gqlPageInfo{start: 0, end: 0, hasNext: n > 0}, nil
	}
	for _, lim := range []struct {
		arg string
		v   *int32
	}{{"first", a.First}, {"last", a.Last}} {
		if lim.v != nil && (*lim.v < 0 || *lim.v > 100) {
			return nil, &gqlError{"EXCESSIVE_PAGINATION", fmt.Sprintf("Requesting %d records on the `%s` connection exceeds the `%s` limit of 100 records.", *lim.v, name, lim.arg)}
		}
	}
	lo, hi := 0, n
	if a.After != nil {
		i, ok := uncursor(*a.After)
		if !ok {
			return nil, &gqlError{"INVALID_CURSOR_ARGUMENTS", "`" + *a.After + "` does not appear to be a valid cursor."}
		}
		lo = min(i+1, n)
	}
	if a.Before != nil {
		i, ok := uncursor(*a.Before)
		if !ok {
			return nil, &gqlError{"INVALID_CURSOR_ARGUMENTS", "`" + *a.Before + "` does not appear to be a valid cursor."}
		}
		hi = max(lo, min(i, n))
	}
	if a.First != nil && hi-lo > int(*a.First) {
		hi = lo + int(*a.First)
	}
	if a.Last != nil && hi-lo > int(*a.Last) {
		lo = hi - int(*a.Last)
	}
	p := &gqlPageInfo{start: lo, end: hi, hasNext: hi < n, hasPrev: lo > 0}
	if hi > lo {
		s, e := cursor(lo), cursor(hi-1)
		p.startCur, p.endCur = &s, &e
	}
	return p, nil
}

// view runs f under the server lock with a request context for the
// repository, as the REST handlers run; false when there is no such
// repository.
func (q *gqlReq) view(full string, f func(c *ctx)) bool {
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	name, r := q.s.lookupRepo(full)
	if r == nil {
		return false
	}
	f(&ctx{s: q.s, login: q.login, repo: r, full: name, git: q.s.repoGit(name)})
	if q.s.dirty {
		q.s.dirty = false
		_ = q.s.save()
	}
	return true
}

// rest sends one request through the REST routes as the caller and
// returns the status and body: mutations take the REST handlers' checks,
// state changes and webhooks.
func (q *gqlReq) restCall(ctx context.Context, method, path string, body any) (int, []byte) {
	data, _ := json.Marshal(body)
	r, err := http.NewRequestWithContext(ctx, method, "http://sandbox/api/v3"+path, bytes.NewReader(data))
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"message":"` + err.Error() + `"}`)
	}
	r.Header.Set("Authorization", q.auth)
	r.Header.Set("Content-Type", "application/json")
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	q.rest.ServeHTTP(rec, r)
	return rec.status, rec.body.Bytes()
}

// restError turns a REST refusal into GitHub's GraphQL error: its message
// (and the first of its errors) under the type of its status.
func restError(status int, body []byte) error {
	var e struct {
		Message string `json:"message"`
		Errors  []any  `json:"errors"`
	}
	_ = json.Unmarshal(body, &e)
	msg := e.Message
	if len(e.Errors) > 0 {
		switch x := e.Errors[0].(type) {
		case string:
			msg = x
		case map[string]any:
			if m, ok := x["message"].(string); ok && m != "" {
				msg = m
			}
		}
	}
	typ := map[int]string{http.StatusForbidden: "FORBIDDEN", http.StatusNotFound: "NOT_FOUND", http.StatusConflict: "CONFLICT"}[status]
	if typ == "" {
		typ = "UNPROCESSABLE"
	}
	return &gqlError{typ, msg}
}
