package attack

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/games/sand"
	"github.com/rewindnet/rewind/gateway"
)

// DesyncStorm: issue 30's item 6. JSON sockets send desync 29 times a
// second each (under the gateway's message rate) for seconds, on a sand
// match they pour sand into (so that its world fills). Before, each
// desync was answered with a whole initial_state: about 1,100 times the
// bytes received. Two storms, each from fresh sockets: desyncs of the
// original form (bare: answered with whole worlds) and desyncs that
// carry page hashes none of which match (answered with every page of the
// world: the most a pages answer can be). It holds if in both the
// gateway sent the storming sockets less than 20 times the bytes they
// sent it, the ticks included; amplification is the worse of the two.
func DesyncStorm(ctx context.Context, cfg Config) Result {
	r := Result{Name: "desync_storm"}
	var gcfg gateway.Config[sand.Input]
	if cfg.Undefended {
		gcfg.CheckpointEvery, gcfg.CheckpointMax, gcfg.RepairRate = time.Nanosecond, time.Nanosecond, math.MaxFloat64
	}
	grid := pick(cfg, 64, 256)
	g := sand.New(grid)
	_, w, err := game.NewWorld(g, nil)
	if err != nil {
		r.Err = err
		return r
	}
	t, err := startJSONTarget(g, rewind.ServerConfig{MaxPlayers: 32, StartPlayers: 1}, gcfg)
	if err != nil {
		r.Err = err
		return r
	}
	defer t.stop()
	n := pick(cfg, 4, 14)
	dur := pick(cfg, 3*time.Second, 14*time.Second)
	r.add("game", fmt.Sprintf("sand_grid_%d", grid))
	r.add("sockets", n)
	r.add("seconds", dur.Seconds())
	worst := 0.0
	for _, form := range []string{"bare", "pages"} {
		pages := 0
		if form == "pages" {
			pages = w.PageCount()
		}
		st, err := storm(ctx, t, n, dur, desyncMessage(pages))
		if err != nil {
			r.Err = err
			return r
		}
		ratio := float64(st.out) / math.Max(float64(st.in), 1)
		worst = math.Max(worst, ratio)
		r.add(form+"_desyncs_sent", st.desyncs)
		r.add(form+"_answers", st.answers)
		r.add(form+"_bytes_in", st.in)
		r.add(form+"_bytes_out", st.out)
		r.add(form+"_amplification", ratio)
		if st.in == 0 {
			worst = math.Inf(1)
		}
	}
	r.add("amplification", worst)
	r.Held = worst < 20
	return r
}

// stormFigures are what one storm cost the gateway.
type stormFigures struct {
	desyncs, in, out uint64
	answers          int64 // initial_state and pages messages the sockets read
}

// storm opens n sockets that pour sand, then sends msg on each 29 times a
// second for dur, and counts the bytes both ways meanwhile.
func storm(ctx context.Context, t *jsonTarget[sand.Input], n int, dur time.Duration, msg []byte) (stormFigures, error) {
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	pour := []byte(`{"protocolVersion":2,"type":"input","payload":{"sequence":1,"input":{"MoveX":1,"MoveY":0,"Pour":true,"Material":1}}}`)
	for range n {
		c, first, err := jsonFirst(ctx, t.url, net.IPv4(127, 0, 0, 1))
		if err == nil && first == "initial_state" {
			conns = append(conns, c)
			err = c.Write(ctx, websocket.MessageText, pour)
		}
		if err != nil || first != "initial_state" {
			return stormFigures{}, fmt.Errorf("storming socket: %v %s", err, first)
		}
	}
	before := t.gw.Stats()
	sctx, cancel := context.WithTimeout(ctx, dur)
	defer cancel()
	var answers atomic.Int64
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { countAnswers(ctx, c, &answers) })
		wg.Go(func() { stormDesyncs(sctx, c, msg) })
	}
	<-sctx.Done()
	sleepCtx(ctx, 300*time.Millisecond) // the last answers in flight
	after := t.gw.Stats()
	for _, c := range conns {
		c.CloseNow()
	}
	wg.Wait()
	return stormFigures{desyncs: after.MessagesIn - before.MessagesIn, in: after.BytesIn - before.BytesIn,
		out: after.BytesOut - before.BytesOut, answers: answers.Load()}, nil
}

// desyncMessage returns a desync of tick 1: bare, or with pages page
// hashes, none of them a real page's.
func desyncMessage(pages int) []byte {
	if pages == 0 {
		return []byte(`{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"0123456789abcdef"}}`)
	}
	hs := strings.TrimSuffix(strings.Repeat(`"0123456789abcdef",`, pages), ",")
	return []byte(`{"protocolVersion":2,"type":"desync","payload":{"tickId":1,"stateHash":"0123456789abcdef","pageHashes":[` + hs + `]}}`)
}

// countAnswers reads c until it fails, counting the answers to desyncs
// (initial_state and pages messages) in n.
func countAnswers(ctx context.Context, c *websocket.Conn, n *atomic.Int64) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var m struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &m) == nil && (m.Type == "initial_state" || m.Type == "pages") {
			n.Add(1)
		}
	}
}

// stormDesyncs sends c msg 29 times a second until ctx ends.
func stormDesyncs(ctx context.Context, c *websocket.Conn, msg []byte) {
	tk := time.NewTicker(time.Second / 29)
	defer tk.Stop()
	for ctx.Err() == nil {
		if c.Write(ctx, websocket.MessageText, msg) != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-tk.C:
		}
	}
}
