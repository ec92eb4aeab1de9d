package parse

// This file keeps helpers only the tests use out of the package's API.

// Headings returns every top-level heading of the given level, in order.
func (d *Document) Headings(level int) []*Heading {
	var out []*Heading
	for _, b := range d.Blocks {
		if h, ok := b.(*Heading); ok && h.Level == level {
			out = append(out, h)
		}
	}
	return out
}
