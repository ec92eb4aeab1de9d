package gatekeep

import (
	"fmt"
	"strings"
)

// Block codes of the binding.
const (
	// BlockUnbound is a pull request whose identity block (and receipt)
	// belong to another pull request: a copied body proves nothing about
	// this one.
	BlockUnbound BlockCode = "identity-unbound"
	// BlockHeadUnattested is the entry's own pull request at a head the
	// ledger has not attested yet: the receipt speaks of another commit.
	BlockHeadUnattested BlockCode = "head-unattested"
)

// Binding is what the pull request that carries an entry's identity block
// must be, read from the control repository: the repository of the
// identity's member, the entry's work branch, and once the ledger records
// them, its pull request (pr:) and the head the loop last acted on.
type Binding struct {
	// Repo is the member repository (owner/name) the identity names.
	Repo string
	// Branch is the entry's work branch.
	Branch string
	// PR is the ledger's pr: (owner/name#n); "" before one is recorded.
	PR string
	// Head is the ledger's head:, the head the loop last acted on; "" when
	// none is recorded.
	Head string
	// Adopted: the spec adopts the ledger's pull request (pr: in its
	// frontmatter), whose head branch may then be a fork's while the fork
	// allows edits by maintainers (issue 34).
	Adopted bool
}

// Bind checks that the pull request d is the one its identity block
// claims (issue 11): in the entry's repository, from the entry's work
// branch in that same repository (not a fork, unless the entry adopted
// this fork's pull request and the fork still allows edits by
// maintainers), and, when the ledger records
// them, the ledger's pull request at the ledger's head. It returns one
// block per mismatch, nil when the identity is bound to d. It reads only
// plain values: the caller looked the binding up.
func Bind(d Digest, b Binding) []Block {
	var out []Block
	add := func(format string, args ...any) {
		out = append(out, Block{Code: BlockUnbound, Reason: fmt.Sprintf(format, args...),
			Clears: "nothing on this pull request: its identity block and receipt belong to another one; judge the entry's own pull request"})
	}
	this := PR{Repo: d.Repo, Number: d.Number}.String()
	if d.Repo != b.Repo {
		add("the identity block names an entry of %s, but this pull request is in %s", b.Repo, d.Repo)
	}
	if d.HeadRef != b.Branch {
		add("the identity block names an entry whose work branch is %s, but this pull request is from %s", b.Branch, d.HeadRef)
	} else if d.HeadRepo != "" && !strings.EqualFold(d.HeadRepo, d.Repo) && !(b.Adopted && b.PR == this && d.MaintainerCanModify) {
		add("this pull request is from %s:%s, a fork, not the entry's work branch in %s", d.HeadRepo, d.HeadRef, d.Repo)
	}
	if b.PR != "" && b.PR != this {
		add("the ledger records %s as the entry's pull request, not %s", b.PR, this)
	}
	if b.Head != "" && (b.PR == "" || b.PR == this) && d.HeadSHA != b.Head {
		out = append(out, Block{Code: BlockHeadUnattested, Reason: fmt.Sprintf("the head %s is not the head %s the ledger attests", short(d.HeadSHA), short(b.Head)),
			Clears: "wait for the next reconcile pass to record the new head (it judges and attests it), then run gatekeep again"})
	}
	return out
}

// BindVerdict adds the binding's blocks to v, first, so that the verdict
// names them: an unbound pull request is blocked whatever else holds.
func BindVerdict(v Verdict, blocks []Block) Verdict {
	if len(blocks) == 0 {
		return v
	}
	v.Blocks = append(append([]Block(nil), blocks...), v.Blocks...)
	if v.Blockers >= 0 {
		v.Blockers += len(blocks)
	}
	v.Kind = Blocked
	return v
}
