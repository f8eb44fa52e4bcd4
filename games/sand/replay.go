package sand

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/codec"
)

// FromReplay returns the sand game a replay of sand was recorded with:
// the one its header's match settings describe (the welcome's: a player
// that took the host's settings records them), or, without them (a
// version-1 file), the grid side and tick rate of its settings text
// ("grid=N tick-rate=R", each optional: 256 and 60). A replay of another
// game is an error.
func FromReplay(h codec.ReplayHeader) (*Game, error) {
	if h.Game != "sand" {
		return nil, fmt.Errorf("replay of game %q: want sand", h.Game)
	}
	if len(h.MatchSettings) > 0 {
		g, err := New(0).WithMatchSettings(h.MatchSettings)
		if err != nil {
			return nil, fmt.Errorf("replay's match settings: %w", err)
		}
		return g.(*Game), nil
	}
	grid, rate := 256, rewind.DefaultTickRate
	for _, kv := range strings.Fields(h.Settings) {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("replay settings %q: %v", kv, err)
		}
		switch k {
		case "grid":
			grid = n
		case "tick-rate":
			rate = n
		}
	}
	if grid < 8 || grid > 4096 || rate < 1 || rate > 1000 {
		return nil, fmt.Errorf("replay settings %q out of range", h.Settings)
	}
	g := New(grid)
	if rate != rewind.DefaultTickRate {
		g.Rate = rate
	}
	return g, nil
}
