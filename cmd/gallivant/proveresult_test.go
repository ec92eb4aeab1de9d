package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// What `gallivant prove --result` writes is what gallivant admits from
// the workflow's prove dispatch: the head, the Verify runs in order, one
// run on the head a done row, rows sharing a command run once.
func TestProveResultIsAdmitted(t *testing.T) {
	t.Parallel()
	src := "# P\n\n## Acceptance criteria\n1. One.\n2. Two.\n3. Three.\n\n## Verify\n- `test -d testdata`\n"
	sp, ds := specs.ParseSpec(parse.Parse("specs/p.md", []byte(src)), specs.Defaults{Repo: "acme/api", Base: "main"})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	l, _ := ledger.Seed(ledger.SeedInput{Spec: sp, SpecCommit: strings.Repeat("a", 40), Bases: map[string]string{specs.HomeMember: strings.Repeat("b", 40)}, Allowance: 4})
	evidence := []string{"test -f prove.go; ok", "test -f prove.go; ok", "test -f no-such-file; ok"}
	for i := range l.Rows {
		l.Rows[i].Status, l.Rows[i].Evidence = ledger.Done, evidence[i]
	}
	head := strings.Repeat("c", 40)
	result := filepath.Join(t.TempDir(), "gallivant-proof.txt")
	var out, errs bytes.Buffer
	a := &app{io: streams{Out: &out, Err: &errs}, env: func(string) string { return "" }}
	err := a.prove(t.Context(), l, head, time.Minute, proveVerify(sp, ""), result)
	var xe *exitError
	if !errors.As(err, &xe) || xe.code != exitFindings {
		t.Fatalf("prove = %v; want exit %d for row 3's missing file", err, exitFindings)
	}
	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gatekeep.AdmitProveResult(l, head, sp.Verify, data)
	if err != nil {
		t.Fatalf("AdmitProveResult of prove's own result: %v\n%s", err, data)
	}
	if diff := cmp.Diff([]gatekeep.ProveVerifyRun{{Command: "test -d testdata", Exit: 0}}, res.Verify); diff != "" {
		t.Errorf("Verify runs (-want +got):\n%s", diff)
	}
	type run struct {
		Row, Exit int
		Command   string
	}
	var got []run
	for _, p := range res.Proofs {
		got = append(got, run{p.Row, p.Exit, p.Command})
	}
	want := []run{{1, 0, "test -f prove.go"}, {2, 0, "test -f prove.go"}, {3, 1, "test -f no-such-file"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("proofs (-want +got):\n%s", diff)
	}
	if res.Passed || res.Command != "test -f no-such-file" {
		t.Errorf("Passed %v, Command %q; want row 3's command failing", res.Passed, res.Command)
	}
	if n := strings.Count(errs.String(), "# gallivant prove: test -f prove.go (rows 1, 2)"); n != 1 {
		t.Errorf("the shared command ran %d times, want once:\n%s", n, errs.String())
	}
}
