package ghstandin

import "testing"

// The schema subset parses and every field of it has a resolver:
// graph-gophers checks both when it binds the resolvers.
func TestGraphQLSchemaBinds(t *testing.T) {
	t.Parallel()
	if _, err := githubSchema(); err != nil {
		t.Fatal(err)
	}
}
