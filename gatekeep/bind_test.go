package gatekeep

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Issue 11, finding 4: an identity block and receipt copied onto an
// unrelated pull request bind to nothing.
func TestBind(t *testing.T) {
	const head, other = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	entry := Binding{Repo: "acme/api", Branch: "gallivant/first", PR: "acme/api#1", Head: head}
	own := Digest{Repo: "acme/api", Number: 1, HeadRef: "gallivant/first", HeadRepo: "acme/api", HeadSHA: head}
	tests := []struct {
		name  string
		d     func(Digest) Digest
		b     func(Binding) Binding
		codes []BlockCode
	}{
		{"the entry's own pull request", nil, nil, nil},
		{"before the ledger records a pull request", nil, func(b Binding) Binding { b.PR, b.Head = "", ""; return b }, nil},
		{"head repository unknown", func(d Digest) Digest { d.HeadRepo = ""; return d }, nil, nil},
		{"copied onto another pull request", func(d Digest) Digest { d.Number, d.HeadRef, d.HeadSHA = 7, "feature", other; return d }, nil,
			[]BlockCode{BlockUnbound, BlockUnbound}},
		{"copied onto a pull request from the same branch name in a fork", func(d Digest) Digest { d.Number, d.HeadRepo = 7, "mallory/api"; return d }, nil,
			[]BlockCode{BlockUnbound, BlockUnbound}},
		{"fork before a pull request is recorded", func(d Digest) Digest { d.HeadRepo = "mallory/api"; return d },
			func(b Binding) Binding { b.PR, b.Head = "", ""; return b }, []BlockCode{BlockUnbound}},
		// Issue 34: the fork's pull request the spec adopts is bound while
		// the fork allows edits by maintainers, and only then.
		{"the adopted fork's pull request allowing maintainer edits", func(d Digest) Digest { d.HeadRepo, d.MaintainerCanModify = "bob/api", true; return d },
			func(b Binding) Binding { b.Adopted = true; return b }, nil},
		{"the adopted fork's pull request without maintainer edits", func(d Digest) Digest { d.HeadRepo = "bob/api"; return d },
			func(b Binding) Binding { b.Adopted = true; return b }, []BlockCode{BlockUnbound}},
		{"a fork allowing maintainer edits, not adopted", func(d Digest) Digest { d.HeadRepo, d.MaintainerCanModify = "bob/api", true; return d }, nil,
			[]BlockCode{BlockUnbound}},
		{"an adopted fork's branch copied onto another fork's pull request", func(d Digest) Digest {
			d.Number, d.HeadRepo, d.MaintainerCanModify = 7, "mallory/api", true
			return d
		}, func(b Binding) Binding { b.Adopted = true; return b }, []BlockCode{BlockUnbound, BlockUnbound}},
		{"another repository", func(d Digest) Digest { d.Repo, d.HeadRepo = "acme/web", "acme/web"; return d }, nil,
			[]BlockCode{BlockUnbound, BlockUnbound}},
		{"the entry's pull request at a head the ledger has not attested", func(d Digest) Digest { d.HeadSHA = other; return d }, nil,
			[]BlockCode{BlockHeadUnattested}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, b := own, entry
			if tt.d != nil {
				d = tt.d(d)
			}
			if tt.b != nil {
				b = tt.b(b)
			}
			var codes []BlockCode
			for _, bl := range Bind(d, b) {
				codes = append(codes, bl.Code)
				if bl.Reason == "" || bl.Clears == "" {
					t.Errorf("block %+v lacks a reason or what clears it", bl)
				}
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("Bind codes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBindVerdict(t *testing.T) {
	v := Verdict{Kind: Mergeable, Blockers: 0}
	if got := BindVerdict(v, nil); got.Kind != Mergeable {
		t.Errorf("no blocks changed the verdict to %s", got.Kind)
	}
	got := BindVerdict(v, []Block{{Code: BlockUnbound, Reason: "r", Clears: "c"}})
	if got.Kind != Blocked || got.Blockers != 1 || got.Line() != "blocked - r" {
		t.Errorf("BindVerdict = %+v, want blocked by the binding", got)
	}
}
