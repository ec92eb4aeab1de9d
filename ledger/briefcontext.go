package ledger

// BriefContext is the `previous decision:` and `hint:` lines a brief
// outside the row loop carries — a review/fix round's, the verification
// repair's — the way the row brief does (L-43, L-56): the previous
// decision is the newest admitted result, seed or reopened line, and the
// hint is the one that applies to that decision's row (a person's retry
// hint or a refusal the row still holds), each "none" when there is none.
// A nil ledger has neither.
func (l *Ledger) BriefContext() (previous, hint string) {
	if l == nil {
		return "none", "none"
	}
	d, ok := l.lastResult()
	if !ok {
		return "none", "none"
	}
	hint = "none"
	if d.Row > 0 {
		hint = l.hintFor(d.Row)
	}
	return d.Line, hint
}
