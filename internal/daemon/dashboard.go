package daemon

import (
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile"
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
	// Filters are the index's filter links; Filtered is set when one is
	// chosen.
	Filters  []filterGroup
	Filtered bool
	// Live are the entry's running agents (the entry page).
	Live []LiveRun
	// Proposals are the entries whose lessons proposal on the control
	// repository is open (the index; docs/learning.md).
	Proposals []Entry
}

type passBadge struct{ Class, Label, Title string }

// filterGroup is one row of filter links: by phase, stop or repository.
type filterGroup struct {
	Name  string
	Links []filterLink
}

type filterLink struct {
	Label, Href string
	Active      bool
}

// entryFilter is the index's and the API's query: ?phase=, ?stop=,
// ?repo=; empty matches everything.
type entryFilter struct{ Phase, Stop, Repo string }

func filterOf(r *http.Request) entryFilter {
	q := r.URL.Query()
	return entryFilter{Phase: q.Get("phase"), Stop: q.Get("stop"), Repo: q.Get("repo")}
}

func (f entryFilter) match(e Entry) bool {
	if f.Phase != "" && e.Phase != f.Phase && LabelValue(e.Phase) != f.Phase {
		return false
	}
	if f.Stop != "" && (e.Stop == nil || e.Stop.Reason != f.Stop) {
		return false
	}
	if f.Repo != "" && !strings.EqualFold(e.Repo, f.Repo) {
		return false
	}
	return true
}

// filter returns the entries f matches, in order.
func (f entryFilter) filter(es []Entry) []Entry {
	out := []Entry{}
	for _, e := range es {
		if f.match(e) {
			out = append(out, e)
		}
	}
	return out
}

// groups are the filter links for the values the entries have; each link
// keeps the other groups' choices.
func (f entryFilter) groups(es []Entry) []filterGroup {
	vals := map[string]map[string]bool{"phase": {}, "stop": {}, "repository": {}}
	for _, e := range es {
		vals["phase"][LabelValue(e.Phase)] = true
		if e.Stop != nil {
			vals["stop"][e.Stop.Reason] = true
		}
		if e.Repo != "" {
			vals["repository"][e.Repo] = true
		}
	}
	href := func(g entryFilter) string {
		q := url.Values{}
		for k, v := range map[string]string{"phase": g.Phase, "stop": g.Stop, "repo": g.Repo} {
			if v != "" {
				q.Set(k, v)
			}
		}
		if len(q) == 0 {
			return "/"
		}
		return "/?" + q.Encode()
	}
	var out []filterGroup
	for _, name := range []string{"phase", "stop", "repository"} {
		if len(vals[name]) == 0 {
			continue
		}
		cur := map[string]string{"phase": f.Phase, "stop": f.Stop, "repository": f.Repo}[name]
		set := func(v string) entryFilter {
			g := f
			switch name {
			case "phase":
				g.Phase = v
			case "stop":
				g.Stop = v
			default:
				g.Repo = v
			}
			return g
		}
		grp := filterGroup{Name: name, Links: []filterLink{{Label: "all", Href: href(set("")), Active: cur == ""}}}
		var keys []string
		for v := range vals[name] {
			keys = append(keys, v)
		}
		sort.Strings(keys)
		for _, v := range keys {
			grp.Links = append(grp.Links, filterLink{Label: v, Href: href(set(v)), Active: strings.EqualFold(cur, v)})
		}
		out = append(out, grp)
	}
	return out
}

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
func (s *server) index(w http.ResponseWriter, r *http.Request) {
	p := s.page("gallivant")
	f := filterOf(r)
	if v := p.View; v != nil {
		p.Filters = f.groups(v.Entries)
		p.Filtered = f != entryFilter{}
		counts := map[string]int{}
		var stopped int
		for _, e := range v.Entries {
			counts[e.Phase]++
			if e.Stop != nil {
				stopped++
			}
			if e.Lessons != nil && e.Lessons.State == string(ledger.LearnProposed) {
				p.Proposals = append(p.Proposals, e)
			}
		}
		p.Phases = append(p.Phases, phaseCount{"entries", len(v.Entries)}, phaseCount{"stopped", stopped})
		for _, ph := range []string{"not seeded", "implement", "verify", "review", "ready", "done"} {
			if counts[ph] > 0 {
				p.Phases = append(p.Phases, phaseCount{ph, counts[ph]})
			}
		}
		sorted := *v
		sorted.Entries = f.filter(v.Entries)
		for i := range sorted.Entries {
			sorted.Entries[i] = s.withDispatch(sorted.Entries[i], v.Captured)
		}
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
			cp := s.withDispatch(*e, p.View.Captured)
			p.Entry = &cp
			p.Live = s.Live.Of(spec)
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

// apiEntries answers GET /api/v1/entries: every entry as `gallivant
// status --format json` prints it, filtered like the index (?phase=,
// ?stop=, ?repo=).
func (s *server) apiEntries(w http.ResponseWriter, r *http.Request) {
	v := s.State.View()
	if v == nil {
		apiError(w, http.StatusServiceUnavailable, "no pass has finished yet")
		return
	}
	out := []reconcile.EntryStatus{}
	for _, e := range filterOf(r).filter(v.Entries) {
		out = append(out, e.EntryStatus)
	}
	apiJSON(w, http.StatusOK, out)
}

// apiEntry answers GET /api/v1/entries/{spec...}: one entry as `gallivant
// status SPEC --format json` prints it.
func (s *server) apiEntry(w http.ResponseWriter, r *http.Request) {
	v := s.State.View()
	if v == nil {
		apiError(w, http.StatusServiceUnavailable, "no pass has finished yet")
		return
	}
	e, ok := v.Entry(r.PathValue("spec"))
	if !ok {
		apiError(w, http.StatusNotFound, "no entry for spec "+strconv.Quote(r.PathValue("spec")))
		return
	}
	apiJSON(w, http.StatusOK, e.EntryStatus)
}

func apiJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	apiJSON(w, status, map[string]string{"error": msg})
}
