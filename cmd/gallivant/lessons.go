package main

import (
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/lessons"
	"github.com/gallivant/gallivant/specs"
	"github.com/spf13/cobra"
)

type lessonsOptions struct {
	Control string
	Format  string
	// Repo limits the listing to one target repository; "" lists all.
	Repo string
}

// lessonsRepoJSON is one target repository's lessons, as `gallivant
// lessons --format json` prints them.
type lessonsRepoJSON struct {
	Repo string `json:"repo"`
	Path string `json:"path"`
	// Blob is the file's blob id at the control branch's tip, "" when the
	// file is gone.
	Blob string `json:"blob"`
	// Errors is set when the file has grammar errors and is not carried.
	Errors  bool             `json:"errors"`
	Lessons []lessonJSON     `json:"lessons"`
	Carried []carriedVersion `json:"carried"`
	// Feedback is the feedback of delivered work (the Gallivant-Feedback
	// trailers of loop: done commits) that no lesson of the file cites
	// yet: what a person may still write lessons from.
	Feedback []feedbackJSON `json:"feedback"`
	// Proposals are the lessons pull requests learn tasks opened on the
	// control repository that are still open or were declined
	// (docs/learning.md "The learn task"), oldest first.
	Proposals []proposalJSON `json:"proposals"`
}

// proposalJSON is one lessons pull request on the control repository, as
// the control history records it.
type proposalJSON struct {
	PR string `json:"pr"`
	// State is open or declined.
	State string `json:"state"`
	Spec  string `json:"spec"`
	// Delivered is the target pull request the lessons were learned from.
	Delivered  string          `json:"delivered"`
	Candidates []candidateJSON `json:"candidates"`
	// Proposed is the loop: propose lessons commit.
	Proposed string `json:"proposed"`
}

type candidateJSON struct {
	Fingerprint string `json:"fingerprint"`
	Title       string `json:"title"`
}

// feedbackJSON is one piece of feedback a delivered entry's rounds
// answered, named by its done commit.
type feedbackJSON struct {
	URL    string `json:"url"`
	Author string `json:"author"`
	Round  int    `json:"round"`
	// Range is the commit range that answered it, from..to.
	Range string `json:"range"`
	// Done is the loop: done commit that collected it.
	Done string `json:"done"`
}

type lessonJSON struct {
	Title   string   `json:"title"`
	Scope   []string `json:"scope"`
	Sources []string `json:"sources"`
}

// carriedVersion counts the dispatches that carried one version of a
// lessons file (their Gallivant-Lessons trailers).
type carriedVersion struct {
	Blob       string `json:"blob"`
	Dispatches int    `json:"dispatches"`
	Current    bool   `json:"current"`
}

func (a *app) newLessonsCmd() *cobra.Command {
	opts := &lessonsOptions{}
	cmd := &cobra.Command{
		Use:   "lessons [REPO] [--format text|json]",
		Short: "List the lessons of each target repository, how often briefs carried them, and the lessons proposals",
		Long: `lessons lists the lessons files of the control branch
(lessons/<owner>/<name>.md): each lesson's title, scope and sources, and
how many dispatches carried each version of the file, counted from the
Gallivant-Lessons trailers of the control history, and the feedback of
delivered work (the Gallivant-Feedback trailers of loop: done commits) that
no lesson cites yet, and the lessons pull requests learn tasks opened on
the control repository that are open or were declined. REPO (owner/name)
limits the listing to that target repository. A file with grammar errors
is listed as not carried; gallivant check says why. docs/learning.md
describes lessons.

Exit status 0, or 2 when the control repository cannot be read or REPO is
not owner/name.`,
		Example: `  gallivant lessons
  gallivant lessons acme/api
  gallivant lessons --format json | jq '.[].carried'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Repo = args[0]
			}
			return a.lessonsRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Control, "control", "", "control repository: a local path or a URL (default: the current directory)")
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: text or json")
	return cmd
}

func (a *app) lessonsRun(cmd *cobra.Command, opts *lessonsOptions) error {
	if opts.Format != "text" && opts.Format != "json" {
		return usageError("--format must be text or json, got %q", opts.Format)
	}
	if opts.Repo != "" && !specs.ValidRepo(opts.Repo) {
		return usageError("%q is not a repository; name one as owner/name, for example acme/api", opts.Repo)
	}
	st, err := a.openStore(cmd.Context(), opts.Control)
	if err != nil {
		return err
	}
	files, _, err := st.Files(cmd.Context(), []string{lessons.Dir})
	if err != nil {
		return &exitError{code: exitCannotRun, err: err}
	}
	var messages []string
	var done, learned []doneFeedback
	err = st.History(cmd.Context(), "", nil, func(c audit.Commit) error {
		if strings.Contains(c.Message, ledger.TrailerLessons+": ") {
			messages = append(messages, c.Message)
		}
		if strings.Contains(c.Message, gatekeep.TrailerFeedback+": ") {
			done = append(done, doneFeedback{SHA: c.SHA, Message: c.Message})
		}
		if learnRecord(c.Message) {
			learned = append(learned, doneFeedback{SHA: c.SHA, Message: c.Message})
		}
		return cmd.Context().Err()
	})
	if err != nil {
		return &exitError{code: exitCannotRun, err: err}
	}
	repos := lessonsListing(files, messages, opts.Repo)
	repos = withFeedback(repos, done, opts.Repo)
	repos = withProposals(repos, learned, opts.Repo)
	if opts.Format == "json" {
		return a.encodeJSON(repos)
	}
	if len(repos) == 0 {
		what := "no lessons files"
		if opts.Repo != "" {
			what = "no " + lessons.PathFor(opts.Repo)
		}
		a.narrate(slog.LevelInfo, fmt.Sprintf("%s on the control branch", what), "no lessons")
		return nil
	}
	writeLessonsText(a.io.Out, repos)
	return nil
}

// lessonsListing is the pure core of `gallivant lessons`: the lessons
// files at the tip and the carried counts read off the dispatch commits'
// messages, per repository in name order, limited to repo when it is set.
// A repository whose file is gone but whose versions were carried is
// listed with its counts.
func lessonsListing(files []specs.File, messages []string, repo string) []lessonsRepoJSON {
	byPath := map[string]*lessonsRepoJSON{}
	for _, f := range files {
		r, ok := lessons.RepoOf(f.Path)
		if !ok || (repo != "" && r != repo) {
			continue
		}
		lf, ds := lessons.Parse(f.Path, f.Data)
		j := &lessonsRepoJSON{Repo: r, Path: f.Path, Blob: f.ID, Errors: ds.HasErrors(), Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}}
		for _, l := range lf.Lessons {
			lj := lessonJSON{Title: l.Title, Scope: []string{}, Sources: []string{}}
			for _, p := range l.Scope {
				lj.Scope = append(lj.Scope, p.Raw)
			}
			for _, s := range l.Sources {
				lj.Sources = append(lj.Sources, s.Raw)
			}
			j.Lessons = append(j.Lessons, lj)
		}
		byPath[f.Path] = j
	}
	counts := map[string]map[string]int{}
	for _, m := range messages {
		for _, t := range ledger.ParseTrailers(m) {
			if t.Key != ledger.TrailerLessons {
				continue
			}
			p, blob, err := ledger.ParseLessonsTrailer(t.Value)
			if err != nil {
				continue
			}
			r, _ := lessons.RepoOf(p)
			if repo != "" && r != repo {
				continue
			}
			if counts[p] == nil {
				counts[p] = map[string]int{}
			}
			counts[p][blob]++
		}
	}
	for p, bs := range counts {
		j, ok := byPath[p]
		if !ok {
			r, _ := lessons.RepoOf(p)
			j = &lessonsRepoJSON{Repo: r, Path: p, Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}}
			byPath[p] = j
		}
		for blob, n := range bs {
			j.Carried = append(j.Carried, carriedVersion{Blob: blob, Dispatches: n, Current: blob == j.Blob})
		}
		sort.Slice(j.Carried, func(a, b int) bool {
			if j.Carried[a].Current != j.Carried[b].Current {
				return j.Carried[a].Current
			}
			if j.Carried[a].Dispatches != j.Carried[b].Dispatches {
				return j.Carried[a].Dispatches > j.Carried[b].Dispatches
			}
			return j.Carried[a].Blob < j.Carried[b].Blob
		})
	}
	out := make([]lessonsRepoJSON, 0, len(byPath))
	for _, j := range byPath {
		out = append(out, *j)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}

// writeLessonsText prints the listing: per repository a header line, the
// lessons indented under it, then one line per carried version.
func writeLessonsText(w io.Writer, repos []lessonsRepoJSON) {
	for i, r := range repos {
		if i > 0 {
			fmt.Fprintln(w)
		}
		switch {
		case r.Blob == "" && len(r.Carried) == 0:
			fmt.Fprintf(w, "%s\t%s\tno lessons file yet\n", r.Repo, r.Path)
		case r.Blob == "":
			fmt.Fprintf(w, "%s\t%s\tgone from the control branch\n", r.Repo, r.Path)
		case r.Errors:
			fmt.Fprintf(w, "%s\t%s@%s\t%s, not carried: the file has errors (gallivant check %s)\n", r.Repo, r.Path, shortSHA(r.Blob), plural(len(r.Lessons), "lesson", "lessons"), r.Path)
		default:
			fmt.Fprintf(w, "%s\t%s@%s\t%s\n", r.Repo, r.Path, shortSHA(r.Blob), plural(len(r.Lessons), "lesson", "lessons"))
		}
		for _, l := range r.Lessons {
			scope := "everywhere"
			if len(l.Scope) > 0 {
				scope = strings.Join(l.Scope, ", ")
			}
			fmt.Fprintf(w, "  %s\n    scope: %s\n    sources: %s\n", oneLineOf(l.Title), oneLineOf(scope), oneLineOf(strings.Join(l.Sources, ", ")))
		}
		if len(r.Carried) == 0 {
			fmt.Fprintln(w, "  carried: never")
		}
		for _, c := range r.Carried {
			now := ""
			if c.Current {
				now = " (this version)"
			}
			fmt.Fprintf(w, "  carried: %s%s by %s\n", shortSHA(c.Blob), now, plural(c.Dispatches, "dispatch", "dispatches"))
		}
		for _, f := range r.Feedback {
			fmt.Fprintf(w, "  feedback no lesson cites: %s by @%s (round %d, answered by %s; loop: done %s)\n", f.URL, f.Author, f.Round, f.Range, shortSHA(f.Done))
		}
		for _, pj := range r.Proposals {
			what := "open, waiting for a person to merge or close it"
			if pj.State == "declined" {
				what = "declined: never proposed again"
			}
			fmt.Fprintf(w, "  proposal %s %s (from %s, %s; loop: propose lessons %s)\n", pj.PR, what, pj.Delivered, pj.Spec, shortSHA(pj.Proposed))
			for _, c := range pj.Candidates {
				fmt.Fprintf(w, "    candidate %s: %s\n", c.Fingerprint, c.Title)
			}
		}
	}
}

// oneLineOf keeps text a person wrote on one line of the listing.
func oneLineOf(s string) string { return strings.Join(strings.Fields(s), " ") }

// doneFeedback is a control commit that carries Gallivant-Feedback
// trailers: its id and message.
type doneFeedback struct{ SHA, Message string }

// withFeedback adds to the listing the feedback of delivered work
// (docs/learning.md "Feedback of delivered work") that no lesson of its
// repository's file cites: a lesson cites a piece when one of its sources
// names the same pull request and the same comment anchor (the whole pull
// request, `acme/api#1`, cites none of its comments). A repository with
// such feedback and no lessons file is listed with no lessons. Each piece
// is listed once, at the first done commit that names it; limited to repo
// when it is set. Only a `loop: done <pr>` commit's trailers about that
// pull request count.
func withFeedback(repos []lessonsRepoJSON, done []doneFeedback, repo string) []lessonsRepoJSON {
	type ref struct {
		repo   string
		number int
		anchor string
	}
	byRepo := map[string]int{}
	cited := map[ref]bool{}
	for i, r := range repos {
		byRepo[strings.ToLower(r.Repo)] = i
		for _, l := range r.Lessons {
			for _, raw := range l.Sources {
				if s, why := lessons.NewSource(raw); why == "" && s.Anchor != "" {
					cited[ref{strings.ToLower(s.Repo), s.Number, s.Anchor}] = true
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, d := range done {
		subject, _, _ := strings.Cut(d.Message, "\n")
		sub, err := ledger.ParseSubject(subject)
		if err != nil || sub.Kind != ledger.KindDone || sub.PR.IsZero() {
			continue
		}
		for _, t := range ledger.ParseTrailers(d.Message) {
			if t.Key != gatekeep.TrailerFeedback {
				continue
			}
			f, err := gatekeep.ParseFeedbackTrailer(t.Value)
			if err != nil || seen[f.URL] {
				continue
			}
			s, why := lessons.NewSource(f.URL)
			if why != "" || !strings.EqualFold(s.Repo, sub.PR.Repo) || s.Number != sub.PR.Number || (repo != "" && !strings.EqualFold(s.Repo, repo)) {
				continue
			}
			seen[f.URL] = true
			if cited[ref{strings.ToLower(s.Repo), s.Number, s.Anchor}] {
				continue
			}
			i, ok := byRepo[strings.ToLower(s.Repo)]
			if !ok {
				repos = append(repos, lessonsRepoJSON{Repo: s.Repo, Path: lessons.PathFor(s.Repo), Lessons: []lessonJSON{}, Carried: []carriedVersion{}, Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}})
				i = len(repos) - 1
				byRepo[strings.ToLower(s.Repo)] = i
			}
			repos[i].Feedback = append(repos[i].Feedback, feedbackJSON{URL: f.URL, Author: f.Author, Round: f.Round, Range: f.From + ".." + f.To, Done: d.SHA})
		}
	}
	sort.Slice(repos, func(a, b int) bool { return repos[a].Path < repos[b].Path })
	return repos
}

// learnRecord reports whether a control commit records a lessons
// proposal being opened, merged or declined.
func learnRecord(message string) bool {
	subject, _, _ := strings.Cut(message, "\n")
	sub, err := ledger.ParseSubject(subject)
	if err != nil {
		return false
	}
	switch sub.Kind {
	case ledger.KindProposeLessons, ledger.KindLessonsMerged, ledger.KindLessonsDeclined:
		return true
	}
	return false
}

// withProposals adds to the listing the lessons pull requests learn tasks
// opened on the control repository, read off the control history, oldest
// first: each `loop: propose lessons <proposal>` commit (its candidates
// from the `- candidate <fingerprint>: <title>` lines gallivant writes,
// its target repository from its Gallivant-PR trailer), declined by a
// later `loop: lessons declined <proposal>` and dropped once `loop:
// lessons merged <proposal>` says its lessons are in the file. Limited to
// repo when it is set.
func withProposals(repos []lessonsRepoJSON, learned []doneFeedback, repo string) []lessonsRepoJSON {
	byRepo := map[string]int{}
	for i, r := range repos {
		byRepo[strings.ToLower(r.Repo)] = i
	}
	type at struct{ repo, index int }
	open := map[string]at{}
	for _, c := range learned {
		subject, body, _ := strings.Cut(c.Message, "\n")
		sub, err := ledger.ParseSubject(subject)
		if err != nil {
			continue
		}
		pr := sub.PR.String()
		switch sub.Kind {
		case ledger.KindLessonsMerged, ledger.KindLessonsDeclined:
			where, ok := open[pr]
			if !ok {
				continue
			}
			delete(open, pr)
			ps := repos[where.repo].Proposals
			if sub.Kind == ledger.KindLessonsMerged {
				repos[where.repo].Proposals = append(ps[:where.index:where.index], ps[where.index+1:]...)
				for k, w := range open {
					if w.repo == where.repo && w.index > where.index {
						open[k] = at{w.repo, w.index - 1}
					}
				}
				continue
			}
			ps[where.index].State = "declined"
			continue
		}
		ts := ledger.ParseTrailers(c.Message)
		delivered, err := ledger.ParsePullRef(ledger.TrailerValue(ts, ledger.TrailerPR))
		if err != nil || (repo != "" && !strings.EqualFold(delivered.Repo, repo)) {
			continue
		}
		pj := proposalJSON{PR: pr, State: "open", Spec: ledger.TrailerValue(ts, ledger.TrailerSpec), Delivered: delivered.String(), Candidates: []candidateJSON{}, Proposed: c.SHA}
		for _, ln := range strings.Split(body, "\n") {
			rest, ok := strings.CutPrefix(ln, "- candidate ")
			if !ok {
				continue
			}
			if fp, title, ok := strings.Cut(rest, ": "); ok {
				pj.Candidates = append(pj.Candidates, candidateJSON{Fingerprint: fp, Title: oneLineOf(title)})
			}
		}
		i, ok := byRepo[strings.ToLower(delivered.Repo)]
		if !ok {
			repos = append(repos, lessonsRepoJSON{Repo: delivered.Repo, Path: lessons.PathFor(delivered.Repo), Lessons: []lessonJSON{}, Carried: []carriedVersion{},
				Feedback: []feedbackJSON{}, Proposals: []proposalJSON{}})
			i = len(repos) - 1
			byRepo[strings.ToLower(delivered.Repo)] = i
		}
		repos[i].Proposals = append(repos[i].Proposals, pj)
		open[pr] = at{i, len(repos[i].Proposals) - 1}
	}
	sort.Slice(repos, func(a, b int) bool { return repos[a].Path < repos[b].Path })
	return repos
}
