package parse

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Severity grades a Diagnostic. Only SeverityError makes `gallivant check` fail.
type Severity string

// The three severities, ordered from most to least severe.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

func (s Severity) rank() int {
	switch s {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	default:
		return 2
	}
}

// Pos is a 1-based line and column. Columns count characters, not bytes.
// The zero Pos means "no position"; renderers print it as 1:1.
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// String renders the position as line:col.
func (p Pos) String() string {
	l, c := p.Line, p.Col
	if l < 1 {
		l = 1
	}
	if c < 1 {
		c = 1
	}
	return fmt.Sprintf("%d:%d", l, c)
}

// Diagnostic is one finding about one document: where it is, how bad it is,
// which rule found it and a message that says what is wrong and what is
// expected instead.
type Diagnostic struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
}

// At returns a diagnostic for file at p.
func At(file string, p Pos, sev Severity, rule, format string, args ...any) Diagnostic {
	return Diagnostic{File: file, Line: p.Line, Col: p.Col, Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...)}
}

// Pos returns the diagnostic's position.
func (d Diagnostic) Pos() Pos { return Pos{Line: d.Line, Col: d.Col} }

// String renders the diagnostic in the text form
// `path:line:col: severity: rule-id: message`.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%s: %s: %s: %s", d.File, d.Pos(), d.Severity, d.Rule, d.Message)
}

// Diagnostics is a list of findings. The zero value is an empty list ready to use.
type Diagnostics []Diagnostic

// Add appends a diagnostic for file at p.
func (ds *Diagnostics) Add(file string, p Pos, sev Severity, rule, format string, args ...any) {
	*ds = append(*ds, At(file, p, sev, rule, format, args...))
}

// Errorf appends an error diagnostic.
func (ds *Diagnostics) Errorf(file string, p Pos, rule, format string, args ...any) {
	ds.Add(file, p, SeverityError, rule, format, args...)
}

// HasErrors reports whether any diagnostic has error severity.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Count returns how many diagnostics have severity sev.
func (ds Diagnostics) Count(sev Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == sev {
			n++
		}
	}
	return n
}

// Sort orders diagnostics by file, line, column, severity, rule and message,
// so output is deterministic whatever order the checks ran in.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Severity.rank() != b.Severity.rank() {
			return a.Severity.rank() < b.Severity.rank()
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Message < b.Message
	})
}

// WriteText writes one diagnostic per line in the text form.
func (ds Diagnostics) WriteText(w io.Writer) error {
	for _, d := range ds {
		if _, err := fmt.Fprintln(w, d.String()); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the diagnostics as one JSON array (an empty list is `[]`).
func (ds Diagnostics) WriteJSON(w io.Writer) error {
	out := make([]Diagnostic, 0, len(ds))
	for _, d := range ds {
		d.Line, d.Col = clampPos(d.Line), clampPos(d.Col)
		out = append(out, d)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func clampPos(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// WriteGitHub writes GitHub Actions workflow commands
// (`::error file=…,line=…,col=…,title=<rule>::<message>`); warnings become
// `::warning` and infos `::notice`.
func (ds Diagnostics) WriteGitHub(w io.Writer) error {
	for _, d := range ds {
		cmd := "notice"
		switch d.Severity {
		case SeverityError:
			cmd = "error"
		case SeverityWarning:
			cmd = "warning"
		}
		_, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd,
			escapeProperty(d.File), clampPos(d.Line), clampPos(d.Col), escapeProperty(d.Rule), escapeData(d.Message))
		if err != nil {
			return err
		}
	}
	return nil
}

// escapeData escapes a workflow command's message the way the Actions
// runner unescapes it, so a hostile message cannot start a second command.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
