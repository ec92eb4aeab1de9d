package reconcile

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard selects the entries one of several parallel reconcilers handles:
// entry keys are hashed (FNV-1a, stable across versions and machines) into
// Count shards, and this reconciler takes shard Index (1-based, like
// Playwright's and Jest's --shard i/n). The zero Shard takes everything.
// Every entry of a chain has its chain's key, so a chain is always in one
// shard and its milestones keep their order.
type Shard struct {
	Index, Count int
}

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= i <= n, such as 1/3", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String renders i/n, or "" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Owns reports whether the entry with key falls in this shard.
func (s Shard) Owns(key string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(s.Count)) == s.Index-1
}

// SetShard makes every later pass handle only the entries of shard s.
// Call it before the first pass.
func (r *Reconciler) SetShard(s Shard) { r.o.Shard = s }

// shardKey is what an entry is sharded by: its chain's first milestone
// when it is in a chain, else its spec path.
func (p *passState) shardKey(e *entry) string {
	if cp, ok := p.repo.ChainOf[e.specPath]; ok {
		return cp.Chain.Milestones[0].Path
	}
	return e.specPath
}

// inShard keeps the entries of the pass's shard, in order.
func (p *passState) inShard(entries []*entry) []*entry {
	if p.Shard.Count <= 1 {
		return entries
	}
	var out []*entry
	for _, e := range entries {
		if p.Shard.Owns(p.shardKey(e)) {
			out = append(out, e)
		}
	}
	p.Log.Info("sharded pass", "shard", p.Shard.String(), "entries", len(out), "total", len(entries))
	return out
}
