package roomdir

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// List returns the live rooms of the fleet's directory, ended ones left
// out, sorted by code: what an operator's console shows of the other
// relays' rooms. It reads the keys with SCAN and their entries with MGET
// (a few round trips per thousand rooms); call it only while someone
// watches. It fails with an error wrapping ErrRedis.
func (d *Redis) List() ([]Record, error) {
	ctx, cancel := d.ctx()
	defer cancel()
	prefix := d.key("")
	var keys []string
	iter := d.rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return nil, fmt.Errorf("%w: list: %v", ErrRedis, err)
	}
	var recs []Record
	for len(keys) > 0 {
		batch := keys[:min(len(keys), 500)]
		keys = keys[len(batch):]
		vals, err := d.rdb.MGet(ctx, batch...).Result()
		if err != nil {
			return nil, fmt.Errorf("%w: list: %v", ErrRedis, err)
		}
		for i, v := range vals {
			s, ok := v.(string)
			var r redisRecord
			if !ok || json.Unmarshal([]byte(s), &r) != nil || r.Ended {
				continue
			}
			recs = append(recs, Record{Code: strings.TrimPrefix(batch[i], prefix), Key: r.Key, Owner: r.Owner})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Code < recs[j].Code })
	return recs, nil
}
