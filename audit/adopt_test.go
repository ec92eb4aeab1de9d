package audit

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// TestReplayAdopt: `gallivant verify` replays `loop: adopt <pr>` as the
// seed of the spec that names that pull request, on its head branch; an
// adoption the spec does not name, or a ledger that differs from the
// replay, is a violation.
func TestReplayAdopt(t *testing.T) {
	t.Parallel()
	parseSpec := func(front string) *specs.Spec {
		src := "---\nrepo: acme/shop\n" + front + "---\n# Adopt\n\n## Acceptance criteria\n1. One.\n2. Two.\n"
		s, ds := specs.ParseSpec(parse.Parse("specs/adopt.md", []byte(src)), specs.Defaults{Base: "main"})
		if ds.HasErrors() {
			t.Fatalf("spec: %v", ds)
		}
		return s
	}
	adopting := parseSpec("pr: acme/shop#7\n")
	head := "0123456789abcdef0123456789abcdef01234567"
	in := ledger.SeedInput{Spec: adopting, SpecCommit: "fedcba9876543210fedcba9876543210fedcba98", Bases: map[string]string{specs.HomeMember: head}, Allowance: 3}
	pr := ledger.PullRef{Repo: "acme/shop", Number: 7}
	l, c := ledger.Adopt(in, ledger.AdoptInput{PR: pr, Branch: "feature/login"})
	good := ledger.Format(l)
	tampered := ledger.Format(l)
	tampered = []byte(strings.Replace(string(tampered), l.Delivery.Contract, "000000000000", 1))
	other := ledger.Adopt
	ol, oc := other(in, ledger.AdoptInput{PR: ledger.PullRef{Repo: "acme/shop", Number: 8}, Branch: "feature/login"})
	tests := []struct {
		name  string
		spec  *specs.Spec
		msg   string
		after []byte
		want  []string // violation messages, "" none
	}{
		{name: "replayed", spec: adopting, msg: c.Message(), after: good},
		{name: "no spec: the shape", spec: nil, msg: c.Message(), after: good},
		{name: "the spec names another", spec: adopting, msg: oc.Message(), after: ledger.Format(ol),
			want: []string{"the subject adopts acme/shop#8 but the spec names pr: acme/shop#7"}},
		{name: "the spec names none", spec: parseSpec(""), msg: c.Message(), after: good,
			want: []string{"the subject adopts acme/shop#7 but the spec names no pr:"}},
		{name: "tampered contract", spec: adopting, msg: c.Message(), after: tampered, want: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tt.msg, Path: "plans/adopt-ledger.md", After: tt.after, Spec: tt.spec})
			if r.Kind != "adopt" {
				t.Errorf("kind = %q; want adopt", r.Kind)
			}
			var got []string
			for _, v := range r.Violations {
				got = append(got, v.Message)
			}
			if len(tt.want) == 0 {
				if diff := cmp.Diff([]string(nil), got); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("violations = %q; want %d containing %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("violation %d = %q; want it to contain %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}
