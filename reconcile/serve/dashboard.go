package serve

import (
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
)

//go:embed web
var webFS embed.FS

// csp allows nothing but this server's stylesheet: no script at all, no
// inline style, no frames, no form posts. The page refreshes with a meta
// refresh, which needs no script.
const cspPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"short": func(sha string) string {
		if len(sha) > 7 {
			return sha[:7]
		}
		return sha
	},
	"ago":    func(t time.Time) string { return ago(time.Since(t)) },
	"glyphs": func(s string) []string { return strings.Split(s, "") },
	// sub marks an explanation line `gallivant why` indents under the one
	// before it.
	"sub":  func(s string) bool { return strings.HasPrefix(s, "  ") },
	"trim": strings.TrimSpace,
	// pending renders `<target> | <member> | <sha>` as a person reads it.
	"pending": func(s string) string {
		f := strings.Split(s, " | ")
		if len(f) != 3 {
			return s
		}
		what := "row " + f[0]
		if f[0] == "seed" {
			what = "the seed"
		}
		if len(f[2]) > 7 {
			f[2] = f[2][:7]
		}
		return what + " of " + f[1] + ", from " + f[2]
	},
	"glyphClass": func(g string) string {
		switch g {
		case "✓":
			return "done"
		case "✗":
			return "failed"
		case "⊘":
			return "cut"
		case "→":
			return "pending"
		}
		return "open"
	},
	"phaseClass": func(p string) string {
		switch p {
		case "implement", "verify", "review", "ready", "done":
			return p
		}
		return "other"
	},
}).ParseFS(webFS, "web/*.html"))

// ago renders a duration the way a person reads an age.
func ago(d time.Duration) string {
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h ago"
	}
	return strconv.Itoa(int(d.Hours()/24)) + "d ago"
}

// page is what every template reads.
type page struct {
	Title          string
	RefreshSeconds int
	View           *View
	Pass           *passBadge
	Phases         []phaseCount
	Entry          *Entry
}

type passBadge struct{ Class, Label, Title string }

type phaseCount struct {
	Phase string
	N     int
}

func (s *server) page(title string) *page {
	p := &page{Title: title, RefreshSeconds: int(s.Refresh.Seconds()), View: s.State.View()}
	if p.RefreshSeconds < 1 {
		p.RefreshSeconds = 1
	}
	if last := s.State.Last(); !last.Ended.IsZero() {
		p.Pass = &passBadge{Class: last.Result, Label: "last pass " + last.Result + " " + ago(s.Now().Sub(last.Ended)), Title: last.Err}
	} else {
		p.Pass = &passBadge{Class: "none", Label: "no pass yet"}
	}
	return p
}

func (s *server) render(w http.ResponseWriter, name string, p *page, status int) {
	h := w.Header()
	h.Set("Content-Security-Policy", cspPolicy)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, p); err != nil {
		s.Log.Error("dashboard page failed", "page", name, "error", err.Error())
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

// index lists every entry, stopped ones first: they are what a person
// must act on.
func (s *server) index(w http.ResponseWriter, _ *http.Request) {
	p := s.page("gallivant")
	if v := p.View; v != nil {
		counts := map[string]int{}
		var stopped int
		for _, e := range v.Entries {
			counts[e.Phase]++
			if e.Stop != nil {
				stopped++
			}
		}
		p.Phases = append(p.Phases, phaseCount{"entries", len(v.Entries)}, phaseCount{"stopped", stopped})
		for _, ph := range []string{"not seeded", "implement", "verify", "review", "ready", "done"} {
			if counts[ph] > 0 {
				p.Phases = append(p.Phases, phaseCount{ph, counts[ph]})
			}
		}
		sorted := *v
		sorted.Entries = append([]Entry(nil), v.Entries...)
		stable(sorted.Entries, func(e Entry) bool { return e.Stop != nil })
		p.View = &sorted
	}
	s.render(w, "index.html", p, http.StatusOK)
}

// stable moves the entries for which first holds to the front, keeping
// the order within each group.
func stable(es []Entry, first func(Entry) bool) {
	var a, b []Entry
	for _, e := range es {
		if first(e) {
			a = append(a, e)
		} else {
			b = append(b, e)
		}
	}
	copy(es, append(a, b...))
}

func (s *server) entry(w http.ResponseWriter, r *http.Request) {
	spec := r.PathValue("spec")
	p := s.page(spec + " · gallivant")
	if p.View != nil {
		if e, ok := p.View.Entry(spec); ok {
			p.Entry = e
			s.render(w, "entry.html", p, http.StatusOK)
			return
		}
	}
	p.Title = "not found · gallivant"
	s.render(w, "entry.html", p, http.StatusNotFound)
}

func (s *server) style(w http.ResponseWriter, _ *http.Request) {
	css, err := webFS.ReadFile("web/style.css")
	if err != nil {
		http.Error(w, "no stylesheet", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = w.Write(css)
}
