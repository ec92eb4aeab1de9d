package parse

import "strings"

// Section is a heading and everything under it up to the next heading of the
// same or a higher level. The root section has no heading and holds the
// blocks before the first heading.
type Section struct {
	// Heading is nil for the root section.
	Heading *Heading
	// Blocks are the blocks directly under the heading, before the next
	// heading of any level.
	Blocks []Block
	// Children are the subsections, in order.
	Children []*Section
}

// Level returns the section's heading level, 0 for the root.
func (s *Section) Level() int {
	if s.Heading == nil {
		return 0
	}
	return s.Heading.Level
}

// Title returns the heading text, "" for the root.
func (s *Section) Title() string {
	if s.Heading == nil {
		return ""
	}
	return s.Heading.Text
}

// Find returns the direct child sections whose title equals one of titles
// (compared case-insensitively after trimming).
func (s *Section) Find(titles ...string) []*Section {
	var out []*Section
	for _, c := range s.Children {
		for _, t := range titles {
			if strings.EqualFold(strings.TrimSpace(c.Title()), t) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// Root returns the document's section tree. Only top-level headings open
// sections; a heading inside a list or quote is an ordinary block.
func (d *Document) Root() *Section {
	if d.root != nil {
		return d.root
	}
	root := &Section{}
	stack := []*Section{root}
	for _, b := range d.Blocks {
		h, ok := b.(*Heading)
		if !ok {
			top := stack[len(stack)-1]
			top.Blocks = append(top.Blocks, b)
			continue
		}
		for len(stack) > 1 && stack[len(stack)-1].Level() >= h.Level {
			stack = stack[:len(stack)-1]
		}
		s := &Section{Heading: h}
		parent := stack[len(stack)-1]
		parent.Children = append(parent.Children, s)
		stack = append(stack, s)
	}
	d.root = root
	return root
}

// Walk calls fn for every block of the section and its subsections, headings
// included, in document order.
func (s *Section) Walk(fn func(Block)) {
	if s.Heading != nil {
		fn(s.Heading)
	}
	for _, b := range s.Blocks {
		fn(b)
	}
	for _, c := range s.Children {
		c.Walk(fn)
	}
}
