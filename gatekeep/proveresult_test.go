package gatekeep

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/ledger"
)

// proveLines renders a prove result for head: the header, the head, the
// Verify runs, then one proof line a row.
func proveLines(h string, verify []string, proofs []ledger.Proof) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nhead %s\n", ProveHeader, h)
	for _, v := range verify {
		b.WriteString(v + "\n")
	}
	for _, p := range proofs {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// A prove result is admitted only for the exact head, with the spec's
// Verify commands in order and a run on that head of every done row's own
// evidence command; everything else is refused at its line and column with
// what was expected.
func TestAdmitProveResult(t *testing.T) {
	t.Parallel()
	l, done := proofFixture(t)
	verify := []string{"go test ./..."}
	ok0 := []string{"verify | exit 0 | go test ./..."}
	cmd := "go test ./limiter -run TestLimit"
	tests := []struct {
		name    string
		ledger  *ledger.Ledger
		data    string
		want    ProveResult
		wantErr *ProveError // Msg compared by prefix
	}{
		{
			name: "every row proved",
			data: proveLines(head, ok0, proved(done, head, 0, "3 tests")),
			want: ProveResult{Proofs: proved(done, head, 0, "3 tests"), Verify: []ProveVerifyRun{{Command: "go test ./...", Exit: 0}}, Passed: true},
		},
		{
			name: "a row's run failed",
			data: proveLines(head, ok0, append(proved(done[:1], head, 0, "3 tests"), proved(done[1:], head, 1, "3 tests")...)),
			want: ProveResult{Proofs: append(proved(done[:1], head, 0, "3 tests"), proved(done[1:], head, 1, "3 tests")...),
				Verify: []ProveVerifyRun{{Command: "go test ./...", Exit: 0}}, Command: cmd},
		},
		{
			name: "selected no test",
			data: proveLines(head, ok0, proved(done, head, 0, "0 tests")),
			want: ProveResult{Proofs: proved(done, head, 0, "0 tests"), Verify: []ProveVerifyRun{{Command: "go test ./...", Exit: 0}}, Command: cmd},
		},
		{
			name: "the Verify command failed",
			data: proveLines(head, []string{"verify | exit 2 | go test ./..."}, proved(done, head, 0, "3 tests")),
			want: ProveResult{Proofs: proved(done, head, 0, "3 tests"), Verify: []ProveVerifyRun{{Command: "go test ./...", Exit: 2}}, Command: "go test ./..."},
		},
		{
			name:    "another head",
			data:    proveLines(old, ok0, proved(done, old, 0, "3 tests")),
			wantErr: &ProveError{Line: 2, Col: 1, Msg: `line 2 is "head ` + old + `", not ` + "`head " + head + "`"},
		},
		{
			name:    "a row run on another head",
			data:    proveLines(head, ok0, proved(done, old, 0, "3 tests")),
			wantErr: &ProveError{Line: 4, Col: 1, Msg: fmt.Sprintf("row %d ran on %s, not on the head %s", done[0], old, head)},
		},
		{
			name:    "a row left out",
			data:    proveLines(head, ok0, proved(done[:1], head, 0, "3 tests")),
			wantErr: &ProveError{Line: 5, Col: 1, Msg: fmt.Sprintf("the result has no run of row %d's evidence `%s`", done[1], cmd)},
		},
		{
			name: "a row already proved on the head may be left out",
			ledger: func() *ledger.Ledger {
				n := l.Clone()
				n.SetProofs(proved(done[1:], head, 0, "1 test"))
				return n
			}(),
			data: proveLines(head, ok0, proved(done[:1], head, 0, "3 tests")),
			want: ProveResult{Proofs: proved(done[:1], head, 0, "3 tests"), Verify: []ProveVerifyRun{{Command: "go test ./...", Exit: 0}}, Passed: true},
		},
		{
			name:    "another command",
			data:    proveLines(head, ok0, []ledger.Proof{{Row: done[0], Head: head, Tests: "1 test", Duration: time.Millisecond, Command: "true"}}),
			wantErr: &ProveError{Line: 4, Col: 1, Msg: fmt.Sprintf(`row %d's command "true" is not its evidence command %q`, done[0], cmd)},
		},
		{
			name:    "a row twice",
			data:    proveLines(head, ok0, append(proved(done, head, 0, "3 tests"), proved(done[:1], head, 0, "3 tests")...)),
			wantErr: &ProveError{Line: 4 + len(done), Col: 1, Msg: fmt.Sprintf("row %d is proved twice", done[0])},
		},
		{
			name:    "a row that is not done",
			data:    proveLines(head, ok0, append(proved(done, head, 0, "3 tests"), ledger.Proof{Row: 99, Head: head, Tests: "1 test", Command: cmd})),
			wantErr: &ProveError{Line: 4 + len(done), Col: 1, Msg: "row 99 is not a done row of the ledger"},
		},
		{
			name:    "a carried proof",
			data:    proveLines(head, ok0, []ledger.Proof{{Row: done[0], Head: head, CarriedFrom: old, Tests: "1 test", Command: cmd}}),
			wantErr: &ProveError{Line: 4, Col: 1, Msg: fmt.Sprintf("row %d's proof is carried from %.7s", done[0], old)},
		},
		{
			name:    "the Verify run missing",
			data:    proveLines(head, nil, proved(done, head, 0, "3 tests")),
			wantErr: &ProveError{Line: 3, Col: 1, Msg: `"row `},
		},
		{
			name:    "another Verify command",
			data:    proveLines(head, []string{"verify | exit 0 | echo ok"}, proved(done, head, 0, "3 tests")),
			wantErr: &ProveError{Line: 3, Col: 19, Msg: `the spec's Verify command 1 is "go test ./...", not "echo ok"`},
		},
		{
			name:    "a bad exit status",
			data:    proveLines(head, []string{"verify | exit -1 | go test ./..."}, nil),
			wantErr: &ProveError{Line: 3, Col: 15, Msg: `"-1 | go test ./..." is not ` + "`exit <status 0 to 255> | <command>`"},
		},
		{
			name:    "no header",
			data:    "ok\n",
			wantErr: &ProveError{Line: 1, Col: 1, Msg: `"ok" is not "gallivant prove v1"`},
		},
		{
			name:    "empty",
			data:    "",
			wantErr: &ProveError{Line: 1, Col: 1, Msg: "the result does not end in a line end"},
		},
		{
			name:    "too large",
			data:    strings.Repeat("x", MaxProveResult+1),
			wantErr: &ProveError{Line: 1, Col: 1, Msg: fmt.Sprintf("the result is %d bytes; a prove result is at most %d bytes", MaxProveResult+1, MaxProveResult)},
		},
		{
			name:    "a long line",
			data:    ProveHeader + "\n" + strings.Repeat("y", MaxProveLine+1) + "\n",
			wantErr: &ProveError{Line: 2, Col: 1, Msg: fmt.Sprintf("the line is %d bytes", MaxProveLine+1)},
		},
		{
			name:    "not UTF-8",
			data:    ProveHeader + "\n\xff\n",
			wantErr: &ProveError{Line: 1, Col: 1, Msg: "the result is not UTF-8 text"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lg := tt.ledger
			if lg == nil {
				lg = l
			}
			got, err := AdmitProveResult(lg, head, verify, []byte(tt.data))
			if tt.wantErr != nil {
				var pe *ProveError
				if !errors.As(err, &pe) {
					t.Fatalf("AdmitProveResult = %+v, %v; want a *ProveError", got, err)
				}
				if pe.Line != tt.wantErr.Line || pe.Col != tt.wantErr.Col || !strings.HasPrefix(pe.Msg, tt.wantErr.Msg) {
					t.Errorf("AdmitProveResult error = %d:%d %q; want %d:%d starting %q", pe.Line, pe.Col, pe.Msg, tt.wantErr.Line, tt.wantErr.Col, tt.wantErr.Msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("AdmitProveResult: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AdmitProveResult (-want +got):\n%s", diff)
			}
		})
	}
}

// The example the docs and diagnostics show is admitted for its head.
func TestProveExampleAdmitted(t *testing.T) {
	t.Parallel()
	l, _ := proofFixture(t)
	h := "0f3c2e7d1a9b8c6f5e4d3c2b1a0f9e8d7c6b5a49"
	n := l.Clone()
	for i := range n.Rows {
		if n.Rows[i].Status == ledger.Done {
			n.Rows[i].Evidence = "go test ./calc -run TestAdd; ok"
			if n.Rows[i].N != 1 {
				n.Rows[i].Status = ledger.Open
			}
		}
	}
	if r, ok := n.Row(1); !ok || r.Status != ledger.Done {
		t.Fatal("the fixture's row 1 is not done")
	}
	if _, err := AdmitProveResult(n, h, []string{"go test ./..."}, []byte(ProveExample)); err != nil {
		t.Errorf("AdmitProveResult(ProveExample) = %v", err)
	}
}
