package ledger

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// EscapeCell writes a cell's text for a table: a literal pipe becomes `\|`.
func EscapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Line renders a row as a table line, as the table and return commits spell it.
func (r Row) Line() string { return string(r.appendLine(nil)) }

func (r Row) appendLine(b []byte) []byte {
	b = append(b, "| "...)
	b = strconv.AppendInt(b, int64(r.N), 10)
	b = append(b, " | "...)
	b = append(b, r.Status...)
	b = append(b, " | "...)
	b = strconv.AppendInt(b, int64(r.Attempts), 10)
	if r.Evidence == "" {
		return append(b, " | |"...)
	}
	b = append(b, " | "...)
	b = append(b, EscapeCell(r.Evidence)...)
	return append(b, " |"...)
}

// HeaderLines returns the header lines after line 1, in their fixed order.
func (l *Ledger) HeaderLines() []string {
	spec := "`" + l.Spec + "`"
	if l.SpecBare {
		spec = l.Spec
	}
	out := []string{
		"**Spec:** " + spec,
		"base: " + l.Base,
		"verification: " + l.Verification,
		"checks: commands",
		fmt.Sprintf("iterations: %d", l.Iterations),
	}
	if l.Cap > 0 && l.Allowance == 0 {
		out = append(out, fmt.Sprintf("cap: %d", l.Cap))
	} else {
		out = append(out, fmt.Sprintf("allowance: %d", l.Allowance))
	}
	if l.Pending != nil {
		out = append(out, "pending: "+l.Pending.String())
	}
	for _, m := range l.Members {
		seeded := "no"
		if m.Seeded {
			seeded = "yes"
		}
		out = append(out, "base "+m.Name+": "+m.Base, "seeded "+m.Name+": "+seeded)
	}
	return out
}

// Format renders the ledger in canonical form. For a ledger parsed without
// fatal diagnostics from canonical bytes, Format returns those bytes.
func Format(l *Ledger) []byte {
	var b bytes.Buffer
	size := 512 + 80*len(l.Rows) + 24*len(l.Mapping) + 64*len(l.Requests)
	for _, r := range l.Rows {
		size += len(r.Evidence)
	}
	for _, d := range l.Decisions {
		size += len(d.Line) + 1
	}
	b.Grow(size)
	b.WriteString(Discriminant + "\n")
	for _, h := range l.HeaderLines() {
		b.WriteString(h + "\n")
	}
	b.WriteString("\n| row | status | attempts | evidence |\n|---|---|---|---|\n")
	line := make([]byte, 0, 256)
	for _, r := range l.Rows {
		line = append(r.appendLine(line[:0]), '\n')
		b.Write(line)
	}
	if l.Mapping != nil {
		b.WriteString("\n## Leg mapping\n\n| row | ac | leg |\n|---|---|---|\n")
		for _, m := range l.Mapping {
			fmt.Fprintf(&b, "| %d | %d | %s |\n", m.Row, m.AC, m.Leg)
		}
	}
	b.WriteString("\n## Decisions\n")
	if l.DecisionsGap && len(l.Decisions) > 0 {
		b.WriteString("\n")
	}
	for _, d := range l.Decisions {
		b.WriteString(d.Line)
		b.WriteByte('\n')
	}
	if l.Delivery.Written() {
		b.WriteString("\n## Delivery\n")
		for _, ln := range l.Delivery.Lines() {
			b.WriteString(ln + "\n")
		}
	}
	if l.HasProof {
		b.WriteString("\n## Proof\n")
		for _, p := range l.Proofs {
			b.WriteString(p.String() + "\n")
		}
	}
	if l.Tasks != nil {
		b.WriteString("\n## Tasks\n")
		for _, t := range l.Tasks {
			b.WriteString(t.String() + "\n")
		}
	}
	if l.HasRequests {
		b.WriteString("\n## Requests\n")
		for _, r := range l.Requests {
			b.WriteString(r + "\n")
		}
	}
	return b.Bytes()
}
