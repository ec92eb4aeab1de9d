package specs

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

var (
	phaseRE    = regexp.MustCompile(`^Phase ([0-9]{1,4})\b\s*(?:[:.–—-]\s*)?(.*)$`)
	skTaskRE   = regexp.MustCompile(`^(T[0-9]{3,})\b\s*`)
	skMarkRE   = regexp.MustCompile(`^\[(P|US[0-9]{1,4})\]\s*`)
	kiroTaskRE = regexp.MustCompile(`^([0-9]{1,4}(?:\.[0-9]{1,4})*)\.?\s+(\S.*)$`)
	kiroReqRE  = regexp.MustCompile(`^_?Requirements?:\s*(.*?)_?$`)
	kiroIDRE   = regexp.MustCompile(`^[0-9]{1,4}\.[0-9]{1,4}$`)
	// testsRE is a task's `Tests:` detail line, as a person writes it
	// in either tool's list style: `- Tests: `go test ./x -run TestY``,
	// `_Tests: `pytest tests/test_y.py`_` or `**Tests:** …`.
	testsRE = regexp.MustCompile(`^[_*]{0,2}[Tt]ests:[_*]{0,2}\s*`)
	// pathRE finds a file path in a task's text: a slash path ending in a
	// file name with an extension (src/models/user.py), or the content of
	// a code span holding no space and at least one dot or slash.
	pathRE = regexp.MustCompile(`(?:^|[\s(,])((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z0-9]{1,10})\b`)
)

// ParseTasksFile reads a spec-kit or Kiro tasks.md as a plan of the
// feature's spec. Its waves follow the authors' order: spec-kit's phases
// in order, and within a phase each run of consecutive [P] tasks that name
// their files is one wave, every other task a wave of its own; Kiro's
// tasks, which name no parallelism, are one wave each. It reports
// `plan/structure` problems; CheckPlan runs the rest.
func ParseTasksFile(f Format, file File) (*Plan, parse.Diagnostics) {
	doc := parse.Parse(file.Path, file.Data)
	tp := &tasksParser{p: &Plan{Path: file.Path, doc: doc, Format: f, Spec: FeatureSpec(f, file.Path), SpecPos: parse.Pos{Line: 1, Col: 1}},
		doc: doc, seen: map[string]parse.Pos{}}
	tp.ds = append(tp.ds, doc.Diagnostics...)
	if tp.ds.HasErrors() {
		return tp.p, tp.ds
	}
	if f == FormatKiro {
		tp.kiro()
	} else {
		tp.specKit()
	}
	if len(tp.p.Waves) == 0 {
		tp.errorf(parse.Pos{Line: 1, Col: 1}, "%s holds no tasks; a task is a checkbox item like %s", file.Path, map[Format]string{FormatSpecKit: "- [ ] T001 [P] [US1] Create src/models/user.py", FormatKiro: "- [ ] 1. Set up the project"}[f])
	}
	return tp.p, tp.ds
}

type tasksParser struct {
	p    *Plan
	doc  *parse.Document
	ds   parse.Diagnostics
	seen map[string]parse.Pos
	// open is the wave a [P] task may join: the last wave of the
	// current phase while it holds only [P] tasks with files.
	open *Wave
}

func (tp *tasksParser) errorf(at parse.Pos, format string, args ...any) {
	tp.ds.Errorf(tp.doc.Path, at, RulePlanStructure, format, args...)
}

// specKit reads `## Phase N: <name>` sections and their `- [ ] T001 [P]
// [US1] <description>` items (in the phase or its subsections).
func (tp *tasksParser) specKit() {
	for _, sec := range descendants(tp.doc.Root()) {
		if sec.Level() != 2 {
			continue
		}
		m := phaseRE.FindStringSubmatch(sec.Title())
		if m == nil {
			for _, b := range blocksOf(sec) {
				if l, ok := b.(*parse.List); ok {
					for _, it := range l.Items {
						if it.Task && skTaskRE.MatchString(it.Text()) {
							tp.errorf(it.Pos, "task %s is outside a `## Phase N: <name>` section; phases order the tasks", skTaskRE.FindStringSubmatch(it.Text())[1])
						}
					}
				}
			}
			continue
		}
		tp.open = nil
		label := "Phase " + m[1]
		if m[2] != "" {
			label += ": " + m[2]
		}
		for _, b := range blocksOf(sec) {
			l, ok := b.(*parse.List)
			if !ok {
				continue
			}
			for _, it := range l.Items {
				tp.specKitTask(it, label)
			}
		}
	}
}

func (tp *tasksParser) specKitTask(it *parse.Item, label string) {
	if !it.Task || len(it.Lines) == 0 {
		return
	}
	first := it.Lines[0]
	m := skTaskRE.FindStringSubmatchIndex(first.Text)
	if m == nil {
		return
	}
	t := &Task{ID: first.Text[m[2]:m[3]], Pos: it.Pos}
	t.N, _ = strconv.Atoi(t.ID[1:])
	rest := m[1]
	for {
		mm := skMarkRE.FindStringSubmatchIndex(first.Text[rest:])
		if mm == nil {
			break
		}
		mark := first.Text[rest+mm[2] : rest+mm[3]]
		if mark == "P" {
			t.Parallel = true
		} else {
			t.Criteria = append(t.Criteria, PlanValue{Text: mark, Pos: colAt(first, rest+mm[2])})
		}
		rest += mm[1]
	}
	t.Title = normalizeSpace(first.Text[rest:] + " " + joinRest(it.Lines[1:]))
	if t.Title == "" {
		tp.errorf(it.TextPos(), "task %s has no description", t.ID)
	}
	tp.files(t, it)
	tp.tests(t, it)
	tp.add(t, label, t.Parallel && len(t.Files) > 0)
}

// kiro reads checkbox items `- [ ] 1. <title>` and nested `- [ ] 1.1
// <title>`: a task with sub-tasks groups them and is no task itself.
func (tp *tasksParser) kiro() {
	for _, b := range tp.doc.Blocks {
		if l, ok := b.(*parse.List); ok {
			tp.kiroList(l)
		}
	}
}

func (tp *tasksParser) kiroList(l *parse.List) {
	for i, it := range l.Items {
		if !it.Task || len(it.Lines) == 0 {
			continue
		}
		m := kiroTaskRE.FindStringSubmatch(it.Lines[0].Text)
		if m == nil {
			continue
		}
		if i+1 < len(l.Items) && len(l.Items[i+1].Lines) > 0 {
			// `- [ ] 2. …` followed by `- [ ] 2.1 …` at the same depth
			// groups its sub-tasks as much as nesting them does.
			if n := kiroTaskRE.FindStringSubmatch(l.Items[i+1].Lines[0].Text); n != nil && strings.HasPrefix(n[1], m[1]+".") {
				continue
			}
		}
		var subs []*parse.List
		for _, b := range it.Blocks {
			if sl, ok := b.(*parse.List); ok && hasTasks(sl) {
				subs = append(subs, sl)
			}
		}
		if len(subs) > 0 {
			for _, sl := range subs {
				tp.kiroList(sl)
			}
			continue
		}
		t := &Task{ID: m[1], Pos: it.Pos, Title: normalizeSpace(m[2] + " " + joinRest(it.Lines[1:]))}
		t.N = len(tp.p.Tasks()) + 1
		tp.files(t, it)
		tp.tests(t, it)
		for _, line := range detailLines(it.Blocks) {
			rm := kiroReqRE.FindStringSubmatchIndex(strings.TrimSpace(line.Text))
			if rm == nil {
				continue
			}
			off := len(line.Text) - len(strings.TrimLeft(line.Text, " "))
			list := strings.TrimSpace(line.Text)[rm[2]:rm[3]]
			at := off + rm[2]
			for _, id := range strings.Split(list, ",") {
				lead := len(id) - len(strings.TrimLeft(id, " "))
				if id = strings.TrimSpace(id); id != "" {
					t.Criteria = append(t.Criteria, PlanValue{Text: id, Pos: colAt(line, at+lead)})
				}
				at += len(id) + lead + 1
			}
		}
		tp.add(t, t.ID+" "+t.Title, false)
	}
}

func hasTasks(l *parse.List) bool {
	for _, it := range l.Items {
		if it.Task && len(it.Lines) > 0 && kiroTaskRE.MatchString(it.Lines[0].Text) {
			return true
		}
	}
	return false
}

// add appends t to the open wave when both may run together, else to a
// new wave.
func (tp *tasksParser) add(t *Task, label string, parallel bool) {
	if prev, dup := tp.seen[t.ID]; dup {
		tp.errorf(t.Pos, "task %s is listed twice (first at line %d); task ids are unique", t.ID, prev.Line)
		return
	}
	tp.seen[t.ID] = t.Pos
	if parallel && tp.open != nil {
		tp.open.Tasks = append(tp.open.Tasks, t)
		return
	}
	w := &Wave{N: len(tp.p.Waves) + 1, Label: label, Pos: t.Pos, Tasks: []*Task{t}}
	tp.p.Waves = append(tp.p.Waves, w)
	tp.open = nil
	if parallel {
		tp.open = w
	}
}

// files collects the paths a task's text names, each once.
func (tp *tasksParser) files(t *Task, it *parse.Item) {
	seen := map[string]bool{}
	add := func(p string, at parse.Pos) {
		p = strings.TrimRight(p, ".,;:")
		if p == "" || seen[p] {
			return
		}
		if c, err := cleanRel(strings.TrimPrefix(p, "/")); err == nil {
			seen[p] = true
			t.Files = append(t.Files, PlanFile{Kind: "Create", Path: c, Pos: at})
		}
	}
	lines := append(append([]parse.Line{}, it.Lines...), detailLines(it.Blocks)...)
	for _, l := range lines {
		if testsRE.MatchString(strings.TrimSpace(l.Text)) {
			continue // a test command's paths are what it runs, not what the task writes
		}
		for _, s := range spansOf(l) {
			if !strings.ContainsAny(s.Text, " \t") && strings.ContainsAny(s.Text, "./") {
				add(s.Text, s.Pos)
			}
		}
		for _, m := range pathRE.FindAllStringSubmatchIndex(l.Text, -1) {
			add(l.Text[m[2]:m[3]], colAt(l, m[2]))
		}
	}
	if len(t.Files) > 0 {
		t.HasFiles = true
		t.FilesPos = t.Files[0].Pos
	}
}

// tests reads the task's `Tests:` detail lines: each code span on one is
// a command that proves the task, the form a gallivant task's `**Tests:**`
// bullet has. The tools themselves write no commands, so the line is
// optional; one that names none is a `plan/tests-block` error.
func (tp *tasksParser) tests(t *Task, it *parse.Item) {
	for _, l := range detailLines(it.Blocks) {
		text := strings.TrimLeft(l.Text, " ")
		m := testsRE.FindStringIndex(text)
		if m == nil {
			continue
		}
		off := len(l.Text) - len(text)
		rest := parse.Line{Text: l.Text[off+m[1]:], Pos: colAt(l, off+m[1])}
		if !t.HasTests {
			t.HasTests, t.TestsPos, t.TestsPlaced = true, colAt(l, off), true
		}
		spans := spansOf(rest)
		if len(spans) == 0 {
			tp.ds.Errorf(tp.doc.Path, colAt(l, off), RulePlanTestsBlock, "task %s's Tests: line names no command; write each command as a code span, like - Tests: `go test ./ratelimit -run TestWindow`", t.ID)
			continue
		}
		for _, s := range spans {
			if s.Text == "" {
				continue
			}
			t.Tests = append(t.Tests, PlanTest{Kind: "command", Text: s.Text, Pos: s.Pos})
		}
	}
}

// detailLines are the text lines of a task's nested non-task items.
func detailLines(blocks []parse.Block) []parse.Line {
	var out []parse.Line
	for _, b := range blocks {
		if l, ok := b.(*parse.List); ok {
			for _, it := range l.Items {
				if it.Task {
					continue
				}
				out = append(out, it.Lines...)
				out = append(out, detailLines(it.Blocks)...)
			}
		}
	}
	return out
}

func joinRest(ls []parse.Line) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.Text
	}
	return strings.Join(parts, " ")
}

// checkTasks runs the plan rules that apply to a spec-kit or Kiro
// tasks.md: the tasks of one wave own disjoint files, every task cites
// criteria of the spec that exist, every criterion (spec-kit: every user
// story) is some task's, and no placeholder is left.
func (ck *planCheck) checkTasks() {
	for _, w := range ck.p.Waves {
		for i, a := range w.Tasks {
			for _, b := range w.Tasks[i+1:] {
				for _, fa := range a.Files {
					for _, fb := range b.Files {
						if overlaps(fa.Path, fb.Path) {
							ck.errorf(fb.Pos, RulePlanDisjoint, "task %s's %s is also task %s's, and both are [P] tasks of one wave; tasks that run together touch different files: drop the [P] of one", b.ID, fb.Path, a.ID)
						}
					}
				}
			}
		}
		for _, t := range w.Tasks {
			if t.Parallel && len(t.Files) == 0 {
				ck.ds.Add(ck.p.Path, t.Pos, parse.SeverityWarning, RulePlanDisjoint, "task %s is [P] but names no file, so its disjointness cannot be checked; it runs alone (name the files it touches, like src/models/user.py)", t.ID)
			}
		}
	}
	for _, t := range ck.p.Tasks() {
		for _, b := range t.Tests {
			ck.taskCommand(t, b)
		}
	}
	ck.citations()
	ck.placeholders()
}

// taskCommand checks one command of a spec-kit or Kiro task's `Tests:`
// line: the shell forms a gallivant plan refuses stay refused, and a `;`,
// which ends an evidence command, would cut the command gallivant replays.
func (ck *planCheck) taskCommand(t *Task, b PlanTest) {
	for _, u := range unsupported {
		if strings.Contains(b.Text, u) {
			ck.errorf(b.Pos, RulePlanTestsBlock, "task %s's test command %s uses %q, which a test command may not; run the test tool directly, like `go test ./ratelimit -run TestWindow`", t.ID, quoteText(b.Text, 60), strings.TrimSpace(u))
			return
		}
	}
	if strings.ContainsAny(b.Text, ";\n") {
		ck.errorf(b.Pos, RulePlanTestsBlock, "task %s's test command %s holds a `;`; join commands with && or give each its own code span", t.ID, quoteText(b.Text, 60))
	}
}

// citations resolves each task's cited criteria against the spec and
// requires every criterion to be cited.
func (ck *planCheck) citations() {
	sp := ck.c.Spec
	if sp == nil {
		return
	}
	have := map[string]bool{}
	for _, ac := range sp.ACs {
		have[ac.ID] = true
		if story, _, ok := strings.Cut(ac.ID, "."); ok && strings.HasPrefix(ac.ID, "US") {
			have[story] = true
		}
	}
	cited := map[string]bool{}
	for _, t := range ck.p.Tasks() {
		for _, c := range t.Criteria {
			if ck.p.Format == FormatKiro && !kiroIDRE.MatchString(c.Text) {
				ck.errorf(c.Pos, RulePlanAnchor, "task %s cites %s; _Requirements:_ lists criterion ids like 1.1, 2.3", t.ID, quoteText(c.Text, 40))
				continue
			}
			if !have[c.Text] {
				ck.errorf(c.Pos, RulePlanAnchor, "task %s cites %s, which is no criterion of %s", t.ID, c.Text, sp.Path)
				continue
			}
			cited[c.Text] = true
		}
	}
	for _, ac := range sp.ACs {
		id := ac.ID
		if ck.p.Format == FormatSpecKit {
			if !strings.HasPrefix(id, "US") {
				continue // success criteria are the whole feature's
			}
			id, _, _ = strings.Cut(id, ".")
		}
		if !cited[id] {
			what := map[Format]string{FormatSpecKit: "no task is tagged [" + id + "]", FormatKiro: "no task's _Requirements:_ cites " + id}[ck.p.Format]
			ck.errorf(parse.Pos{Line: 1, Col: 1}, RulePlanTableClosure, "%s of %s is no task's: %s; every criterion is some task's", id, sp.Path, what)
			cited[id] = true
		}
	}
}
