package reconcile

import (
	"context"
	"sync"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/go-git/go-git/v5/plumbing"
)

// parseCache keeps, between the passes of one Reconciler (the daemon's),
// the control documents it read and what parsing them gave, by git blob id:
// an unchanged document is neither read from the object store nor parsed
// again. It holds what the last load saw and nothing else, so it is as big
// as one snapshot of the control repository. A one-shot pass fills it and
// exits; filling costs a map entry per document.
//
// What it hands out is shared between passes: the blob bytes, the specs,
// their documents and the plans are read-only; ledgers and chains, which a
// pass changes, are copied per load by ledger.LoadWith and
// specs.LoadWith.
type parseCache struct {
	mu  sync.Mutex
	gen uint64 // the load in progress
	// blobs are documents' bytes by blob id.
	blobs map[plumbing.Hash]*cachedBlob
	// parsed are parse results by blob id and path: the path is part of
	// what a parse returns (diagnostics name it), and one blob can live at
	// several paths.
	parsed map[docKey]*cachedDoc
	// parses counts the documents parsed (not found here), for tests and
	// benchmarks.
	parses int
}

type cachedBlob struct {
	data []byte
	seen uint64
}

type docKey struct {
	id   plumbing.Hash
	path string
}

type cachedDoc struct {
	seen uint64
	// spec is keyed by the defaults it was parsed with, which come from
	// gallivant.yaml, not from the spec's own bytes.
	spec   map[specs.Defaults]*parsedSpec
	chain  *parsedChain
	plan   *parsedPlan
	ledger *parsedLedger
}

type parsedSpec struct {
	sp  *specs.Spec
	doc *parse.Document
	ds  parse.Diagnostics
}

type parsedChain struct {
	c  *specs.Chain
	ds parse.Diagnostics
}

type parsedPlan struct {
	p  *specs.Plan
	ds parse.Diagnostics
}

type parsedLedger struct {
	l  *ledger.Ledger
	ds parse.Diagnostics
}

func newParseCache() *parseCache {
	return &parseCache{blobs: map[plumbing.Hash]*cachedBlob{}, parsed: map[docKey]*cachedDoc{}}
}

// load reads and parses the documents under dirs at the store's tip, as
// Store.Files and ledger.Load do, through the cache, then forgets every
// entry this load did not use. A nil cache reads and parses everything.
func (c *parseCache) load(ctx context.Context, st *store.Store, cfg *specs.Config, dirs []string) ([]specs.File, *ledger.Repo, parse.Diagnostics, error) {
	if c == nil {
		files, fds, err := st.Files(ctx, dirs)
		if err != nil {
			return nil, nil, fds, err
		}
		repo, ds := ledger.LoadWith(cfg, files, ledger.Parsers{Parsers: specs.Parsers{Source: st.SourceReader(ctx, st.Tip())}})
		return files, repo, append(fds, ds...), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	files, fds, err := st.FilesWith(ctx, dirs, c.blob)
	if err != nil {
		return nil, nil, fds, err
	}
	for _, f := range files {
		id := plumbing.NewHash(f.ID)
		if b, ok := c.blobs[id]; ok {
			b.seen = c.gen
		} else {
			c.blobs[id] = &cachedBlob{data: f.Data, seen: c.gen}
		}
	}
	repo, ds := ledger.LoadWith(cfg, files, ledger.Parsers{
		Parsers: specs.Parsers{Spec: c.spec, Chain: c.chain, Plan: c.plan, Source: st.SourceReader(ctx, st.Tip())},
		Ledger:  c.ledger,
	})
	c.evict()
	return files, repo, append(fds, ds...), nil
}

// blob returns the bytes of a document seen before; it is Store.files's
// known.
func (c *parseCache) blob(id store.BlobID) ([]byte, bool) {
	b, ok := c.blobs[plumbing.Hash(id)]
	if !ok {
		return nil, false
	}
	return b.data, true
}

func (c *parseCache) evict() {
	for id, b := range c.blobs {
		if b.seen != c.gen {
			delete(c.blobs, id)
		}
	}
	for k, d := range c.parsed {
		if d.seen != c.gen {
			delete(c.parsed, k)
		}
	}
}

// doc returns f's entry, marked as seen by this load; nil when f has no
// blob id (it did not come from the store) and so cannot be cached.
func (c *parseCache) doc(f specs.File) *cachedDoc {
	if f.ID == "" {
		return nil
	}
	k := docKey{plumbing.NewHash(f.ID), f.Path}
	d, ok := c.parsed[k]
	if !ok {
		d = &cachedDoc{}
		c.parsed[k] = d
	}
	d.seen = c.gen
	return d
}

func (c *parseCache) spec(f specs.File, def specs.Defaults) (*specs.Spec, *parse.Document, parse.Diagnostics) {
	d := c.doc(f)
	if d == nil {
		return specs.ParseSpecFile(f, def)
	}
	if r, ok := d.spec[def]; ok {
		return r.sp, r.doc, r.ds
	}
	c.parses++
	sp, doc, ds := specs.ParseSpecFile(f, def)
	if d.spec == nil {
		d.spec = map[specs.Defaults]*parsedSpec{}
	}
	d.spec[def] = &parsedSpec{sp, doc, ds}
	return sp, doc, ds
}

// once returns what *slot holds, parsing it first when it holds nothing:
// a document is parsed at most once per kind for as long as it is cached.
func once[T any](c *parseCache, slot **T, parse func() T) *T {
	if *slot == nil {
		c.parses++
		v := parse()
		*slot = &v
	}
	return *slot
}

func (c *parseCache) chain(f specs.File) (*specs.Chain, parse.Diagnostics) {
	d := c.doc(f)
	if d == nil {
		return specs.ParseChainFile(f)
	}
	r := once(c, &d.chain, func() parsedChain { ch, ds := specs.ParseChainFile(f); return parsedChain{ch, ds} })
	return r.c, r.ds
}

func (c *parseCache) plan(f specs.File) (*specs.Plan, parse.Diagnostics) {
	d := c.doc(f)
	if d == nil {
		return specs.ParsePlanFile(f)
	}
	r := once(c, &d.plan, func() parsedPlan { p, ds := specs.ParsePlanFile(f); return parsedPlan{p, ds} })
	return r.p, r.ds
}

func (c *parseCache) ledger(f specs.File) (*ledger.Ledger, parse.Diagnostics) {
	d := c.doc(f)
	if d == nil {
		return ledger.Parse(f.Path, f.Data)
	}
	r := once(c, &d.ledger, func() parsedLedger { l, ds := ledger.Parse(f.Path, f.Data); return parsedLedger{l, ds} })
	return r.l, r.ds
}
