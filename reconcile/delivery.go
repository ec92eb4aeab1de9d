package reconcile

import (
	"github.com/gallivant/gallivant/ledger"
)

// deliveryClient is what the pull-request phases need from GitHub.
type deliveryClient interface{}

// deliver takes an entry whose rows are all closed towards a pull request.
func (p *passState) deliver(e *entry) (bool, error) {
	if changed, err := p.contractChanged(e); changed || err != nil {
		return false, err
	}
	p.note(e.specPath, false, "every row is closed; implement is complete")
	return true, nil
}

// mergedIntoBase reports whether a chain milestone's pull request is merged
// into the chain's base.
func (p *passState) mergedIntoBase(spec string, l *ledger.Ledger) (bool, string) {
	return false, "waits for " + spec + " to be merged"
}
