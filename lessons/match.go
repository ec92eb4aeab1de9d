package lessons

// Applies reports whether the lesson applies when the given paths are in
// play: a lesson without scope always does; a scoped one when one of its
// patterns covers one of the paths (Pattern.Matches).
func (l Lesson) Applies(inPlay []string) bool {
	if len(l.Scope) == 0 {
		return true
	}
	for _, p := range l.Scope {
		for _, f := range inPlay {
			if p.Matches(f) {
				return true
			}
		}
	}
	return false
}

// Match returns the lessons of f that apply to the paths in play, in file
// order.
func (f *File) Match(inPlay []string) []Lesson {
	if f == nil {
		return nil
	}
	var out []Lesson
	for _, l := range f.Lessons {
		if l.Applies(inPlay) {
			out = append(out, l)
		}
	}
	return out
}
