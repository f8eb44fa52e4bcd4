package webdoom

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// wdCoreHarness drives a Core in made-up time and records, per
// connection, everything the core asked to send or do.
type wdCoreHarness struct {
	t   *testing.T
	c   *Core
	now time.Time
	id  ConnID
	got map[ConnID][]Action
}

func newWDCoreHarness(t *testing.T, cfg Config) *wdCoreHarness {
	return &wdCoreHarness{t: t, c: NewCore(cfg, nil), now: time.Unix(1_000_000, 0), got: map[ConnID][]Action{}}
}

func (h *wdCoreHarness) apply(acts []Action) {
	for _, a := range acts {
		h.got[a.Conn] = append(h.got[a.Conn], a)
	}
}

func (h *wdCoreHarness) newID() ConnID { h.id++; return h.id }

func (h *wdCoreHarness) lobby() ConnID {
	id := h.newID()
	h.apply(h.c.OpenLobby(id, h.now))
	return id
}

func (h *wdCoreHarness) game(query string) ConnID {
	id := h.newID()
	h.apply(h.c.OpenGame(id, query, h.now))
	return id
}

func (h *wdCoreHarness) spectate() ConnID {
	id := h.newID()
	h.apply(h.c.OpenSpectator(id, h.now))
	return id
}

func (h *wdCoreHarness) say(id ConnID, s string) {
	h.apply(h.c.LobbyMessage(id, []byte(s), h.now))
}

func (h *wdCoreHarness) cmd(id ConnID, tic uint32, fwd int8) {
	m := wire.Cmd{Tic: tic, Cmd: wire.NewTicCmd(fwd, 0, 0, 0, 0, 0)}
	h.apply(h.c.GameMessage(id, m.Append(nil), h.now))
}

func (h *wdCoreHarness) close(id ConnID) { h.apply(h.c.Closed(id, h.now)) }

// advance moves made-up time forward by d, running every timer on the way
// as the network layer's timer would.
func (h *wdCoreHarness) advance(d time.Duration) {
	end := h.now.Add(d)
	for {
		dl, ok := h.c.NextDeadline()
		if !ok || dl.After(end) {
			break
		}
		if dl.After(h.now) {
			h.now = dl
		}
		h.apply(h.c.Advance(h.now))
	}
	h.now = end
}

// texts returns and forgets the JSON messages sent to id.
func (h *wdCoreHarness) texts(id ConnID) []map[string]any {
	var out []map[string]any
	rest := h.got[id][:0]
	for _, a := range h.got[id] {
		if a.Kind != SendText {
			rest = append(rest, a)
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(a.Data, &m); err != nil {
			h.t.Fatalf("conn %d: bad JSON %s", id, a.Data)
		}
		out = append(out, m)
	}
	h.got[id] = rest
	return out
}

// bundles returns and forgets the bundles sent to id (histories expanded).
func (h *wdCoreHarness) bundles(id ConnID) []wire.Bundle {
	var out []wire.Bundle
	rest := h.got[id][:0]
	for _, a := range h.got[id] {
		switch a.Kind {
		case SendBinary:
			b, err := wire.DecodeBundleMessage(a.Data)
			if err != nil {
				h.t.Fatal(err)
			}
			out = append(out, b)
		case SendHistory:
			for i := 0; i < a.History.Len(); i++ {
				b, _ := wire.DecodeBundleMessage(a.History.Bundle(i))
				out = append(out, b)
			}
		default:
			rest = append(rest, a)
		}
	}
	h.got[id] = rest
	return out
}

// ended reports the close or terminate action sent to id, if any.
func (h *wdCoreHarness) ended(id ConnID) ActionKind {
	for _, a := range h.got[id] {
		if a.Kind == Close || a.Kind == Terminate {
			return a.Kind
		}
	}
	return 0
}

// play has the given game sockets send the next tic's cmd at 35 Hz for d.
func (h *wdCoreHarness) play(d time.Duration, ids ...ConnID) {
	end := h.now.Add(d)
	for h.now.Before(end) {
		if s := h.c.session; s != nil {
			tic := s.next
			for _, id := range ids {
				h.cmd(id, tic, 1)
			}
		}
		h.advance(time.Second / 35)
	}
}

func wdLastOfType(ms []map[string]any, t string) map[string]any {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i]["t"] == t {
			return ms[i]
		}
	}
	return nil
}

// launch seats n lobby players, starts, and runs the countdown.
func (h *wdCoreHarness) launch(n int) []ConnID {
	var ids []ConnID
	for i := 0; i < n; i++ {
		ids = append(ids, h.lobby())
	}
	h.say(ids[0], `{"t":"start"}`)
	h.advance(3 * time.Second)
	if l := wdLastOfType(h.texts(ids[0]), "launch"); l == nil {
		h.t.Fatal("no launch")
	}
	return ids
}

func TestCoreLobbyFlow(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	var ids []ConnID
	for i := 0; i < 4; i++ {
		ids = append(ids, h.lobby())
		ms := h.texts(ids[i])
		if ms[0]["t"] != "welcome" || ms[0]["slot"] != float64(i) || ms[0]["color"] != wire.Colors[i] {
			t.Fatalf("seat %d welcome: %v", i, ms[0])
		}
	}
	fifth := h.lobby()
	if ms := h.texts(fifth); len(ms) != 1 || ms[0]["t"] != "full" || ms[0]["reason"] != "lobby full" || h.ended(fifth) != Terminate {
		t.Fatalf("fifth: %v %v", ms, h.ended(fifth))
	}
	h.close(fifth)
	h.close(ids[1]) // seat 1 frees
	h.say(ids[3], `{"t":"slot","slot":1}`)
	if w := wdLastOfType(h.texts(ids[3]), "welcome"); w == nil || w["slot"] != 1.0 || w["color"] != "Indigo" {
		t.Fatalf("slot change: %v", w)
	}
	h.say(ids[0], `{"t":"slot","slot":2}`) // taken: ignored
	if w := wdLastOfType(h.texts(ids[0]), "welcome"); w != nil {
		t.Fatalf("taken slot granted: %v", w)
	}
	h.say(ids[0], `{"t":"name","name":" <Ann>!! "}`)
	h.say(ids[2], `{"t":"params","params":{"map":40,"skill":9,"mode":"deathmatch","timer":15,"wad":"DOOM2.wad"}}`)
	h.say(ids[2], `not json`)
	h.say(ids[2], `{"t":"ping","t0":99.5}`)
	ms := h.texts(ids[2])
	if p := wdLastOfType(ms, "pong"); p == nil || p["t0"] != 99.5 {
		t.Fatalf("pong: %v", ms)
	}
	r := wdLastOfType(ms, "roster")
	players := r["players"].([]any)
	if len(players) != 3 || players[0].(map[string]any)["name"] != "Ann" || players[1].(map[string]any)["slot"] != 1.0 ||
		fmt.Sprint(r["freeSlots"]) != "[3]" || r["inGame"] != false {
		t.Fatalf("roster: %v", r)
	}
	if p := r["params"].(map[string]any); p["map"] != 32.0 || p["skill"] != 5.0 || p["mode"] != "deathmatch" || p["timer"] != 15.0 || p["wad"] != "2.wad" {
		t.Fatalf("params: %v", p)
	}

	// start: countdown 3 at once, 2 and 1 a second apart, launch at 3 s.
	h.say(ids[2], `{"t":"start"}`)
	if ms := h.texts(ids[0]); ms[len(ms)-1]["t"] != "countdown" || ms[len(ms)-1]["n"] != 3.0 {
		t.Fatalf("countdown 3: %v", ms)
	}
	h.advance(999 * time.Millisecond)
	if ms := h.texts(ids[0]); len(ms) != 0 {
		t.Fatalf("early: %v", ms)
	}
	h.advance(time.Millisecond)
	if ms := h.texts(ids[0]); len(ms) != 1 || ms[0]["n"] != 2.0 {
		t.Fatalf("countdown 2: %v", ms)
	}
	h.advance(2 * time.Second)
	ms = h.texts(ids[0])
	if len(ms) != 2 || ms[0]["n"] != 1.0 || ms[1]["t"] != "launch" {
		t.Fatalf("countdown 1 + launch: %v", ms)
	}
	l := ms[1]
	if l["numplayers"] != 4.0 || fmt.Sprint(l["slots"]) != "[0 1 2]" || fmt.Sprint(l["names"]) != "[Ann Indigo Brown <nil>]" || l["join"] != nil {
		t.Fatalf("launch: %v", l)
	}
	// Frozen lobby: params and names are ignored while the game runs; ping works.
	h.say(ids[0], `{"t":"name","name":"Zed"}`)
	h.say(ids[0], `{"t":"ping"}`)
	if ms := h.texts(ids[0]); len(ms) != 1 || ms[0]["t"] != "pong" || len(ms[0]) != 1 {
		t.Fatalf("frozen lobby: %v", ms)
	}
	// A lobby newcomer sees the game in progress.
	obs := h.lobby()
	ip := h.texts(obs)[0]
	if ip["t"] != "inprogress" || ip["frontier"] != 0.0 || fmt.Sprint(ip["freeSlots"]) != "[3]" || len(ip["players"].([]any)) != 3 {
		t.Fatalf("inprogress: %v", ip)
	}
}

func TestCoreSealAndFabricate(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(2)
	g0, g1 := h.game("slot=0"), h.game("slot=1")
	h.cmd(g0, 0, 10)
	if b := h.bundles(g0); len(b) != 0 {
		t.Fatalf("sealed without slot 1: %v", b)
	}
	h.cmd(g1, 0, 20)
	b := h.bundles(g0)
	if len(b) != 1 || b[0].Tic != 0 || b[0].InGame != 0b0011 || b[0].Fabricated != 0b1100 ||
		b[0].Cmds[0].ForwardMove() != 10 || b[0].Cmds[1].ForwardMove() != 20 {
		t.Fatalf("seal: %+v", b)
	}
	// Cmds ahead are kept and seal in a run once the other side catches up.
	for tic := uint32(1); tic <= 5; tic++ {
		h.cmd(g0, tic, int8(tic))
	}
	h.cmd(g1, 1, 1)
	h.cmd(g1, 2, 2)
	if b := h.bundles(g1); len(b) != 3 || b[2].Tic != 2 {
		t.Fatalf("run: %+v", b)
	}
	h.bundles(g0)
	// Slot 1 goes quiet: nothing is fabricated before 250 ms of silence.
	h.advance(200 * time.Millisecond)
	if b := h.bundles(g0); len(b) != 0 {
		t.Fatalf("fabricated early: %+v", b)
	}
	h.advance(100 * time.Millisecond)
	b = h.bundles(g0)
	if len(b) == 0 || b[0].Tic != 3 || b[0].Fabricated != 0b1110 || b[0].InGame != 0b0011 || b[0].Cmds[1].ForwardMove() != 2 {
		t.Fatalf("fabrication: %+v", b)
	}
	// One tic per sweep while the laggard stays silent.
	n := len(b)
	h.advance(500 * time.Millisecond)
	if got := len(h.bundles(g0)); got < 1 || got > 10 {
		t.Fatalf("%d tics in 500 ms of stall (had %d)", got, n)
	}
	if h.c.Stats().Fabrications == 0 || h.c.Stats().ForcedSeals == 0 {
		t.Fatal("no fabrication counted")
	}
}

func TestCoreSilentDrop(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(3)
	g := []ConnID{h.game("slot=0"), h.game("slot=1"), h.game("slot=2")}
	for _, id := range g {
		h.cmd(id, 0, 1)
	}
	// Slot 2 goes silent; 0 and 1 keep sending at 35 Hz.
	tic := uint32(1)
	for i := 0; i < 35*6; i++ {
		h.cmd(g[0], tic, 1)
		h.cmd(g[1], tic, 1)
		tic++
		h.advance(time.Second / 35)
		if h.ended(g[2]) != 0 {
			break
		}
	}
	if h.ended(g[2]) != Close {
		t.Fatal("silent player not closed")
	}
	silentFor := h.now.Sub(time.Unix(1_000_000, 0).Add(3 * time.Second))
	if silentFor < 5*time.Second || silentFor > 5*time.Second+100*time.Millisecond {
		t.Fatalf("dropped after %v of silence", silentFor)
	}
	h.close(g[2])
	h.bundles(g[0])
	h.cmd(g[0], tic, 1)
	h.cmd(g[1], tic, 1)
	b := h.bundles(g[0])
	if len(b) == 0 || b[len(b)-1].InGame != 0b011 || b[len(b)-1].Fabricated&0b011 != 0 {
		t.Fatalf("after drop: %+v", b)
	}
	if h.c.Stats().Drops[DropSilent] != 1 {
		t.Fatalf("drops %v", h.c.Stats().Drops)
	}
}

func TestCoreNeverJoined(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(2)
	g0 := h.game("slot=0")
	h.cmd(g0, 0, 1)
	h.advance(9900 * time.Millisecond)
	if b := h.bundles(g0); len(b) != 0 {
		t.Fatalf("sealed before slot 1 connected: %v", b)
	}
	h.advance(200 * time.Millisecond)
	b := h.bundles(g0)
	if len(b) != 1 || b[0].InGame != 0b0001 || b[0].Fabricated != 0b1110 {
		t.Fatalf("after never-joined drop: %+v", b)
	}
	if h.c.Stats().Drops[DropNeverJoined] != 1 {
		t.Fatalf("drops %v", h.c.Stats().Drops)
	}
	// Nobody connected at all: the session ends 10 s after launch.
	h2 := newWDCoreHarness(t, DefaultConfig())
	ids := h2.launch(1)
	h2.advance(10*time.Second + 100*time.Millisecond)
	if st := h2.c.Status(); st.Session {
		t.Fatal("session outlived its never-connected players")
	}
	if r := wdLastOfType(h2.texts(ids[0]), "roster"); r == nil || r["inGame"] != false {
		t.Fatalf("lobby not reopened: %v", r)
	}
}

func TestCoreDropInAndSpectator(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(1)
	g0 := h.game("slot=0")
	for tic := uint32(0); tic < 50; tic++ {
		h.cmd(g0, tic, 1)
	}
	spec := h.spectate()
	if b := h.bundles(spec); len(b) != 50 || b[49].Tic != 49 {
		t.Fatalf("spectator history: %d", len(b))
	}
	g3 := h.game("slot=3")
	if b := h.bundles(g3); len(b) != 50 {
		t.Fatalf("drop-in history: %d", len(b))
	}
	h.bundles(g0)
	h.cmd(g3, 50, 7) // first cmd: live at 50+12
	for tic := uint32(50); tic < 70; tic++ {
		if tic > 50 {
			h.cmd(g3, tic, 7)
		}
		h.cmd(g0, tic, 1)
	}
	for _, id := range []ConnID{g0, g3, spec} {
		b := h.bundles(id)
		if len(b) != 20 {
			t.Fatalf("conn %d: %d live bundles", id, len(b))
		}
		for _, x := range b {
			wantMask := uint8(0b0001)
			if x.Tic >= 62 {
				wantMask = 0b1001
			}
			if x.InGame != wantMask || x.Fabricated&0b1000 != 0 {
				t.Fatalf("conn %d tic %d: mask %04b fab %04b", id, x.Tic, x.InGame, x.Fabricated)
			}
		}
	}
	// A lobby observer joins slot 1 and lets the reservation lapse.
	obs := h.lobby()
	h.texts(obs)
	h.say(obs, `{"t":"join","slot":1,"name":"Dee"}`)
	ms := h.texts(obs)
	if len(ms) != 2 || ms[0]["slot"] != 1.0 || ms[1]["join"] != true || ms[1]["frontier"] != 70.0 || fmt.Sprint(ms[1]["names"]) != "[Green Dee <nil> <nil>]" {
		t.Fatalf("join: %v", ms)
	}
	ip := h.c.inProgress()
	if len(ip.Players) != 3 || ip.Players[1].Live {
		t.Fatalf("inprogress after join: %+v", ip)
	}
	h.play(29*time.Second, g0, g3)
	if !h.c.session.players[1].joining {
		t.Fatal("reservation freed early")
	}
	h.play(1100*time.Millisecond, g0, g3)
	if h.c.session.players[1].joining {
		t.Fatal("reservation not freed after 30 s")
	}
	// All players leave: the session ends, sockets close, lobby reopens.
	h.close(g0)
	if !h.c.Status().Session {
		t.Fatal("ended while slot 3 plays")
	}
	h.close(g3)
	if h.c.Status().Session || h.ended(spec) != Close {
		t.Fatal("session did not end with its last player")
	}
	h.say(obs, `{"t":"join"}`)
	if ms := h.texts(obs); len(ms) != 1 || ms[0]["reason"] != "game over" {
		t.Fatalf("after game over: %v", ms)
	}
}

func TestCoreRefusals(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxConns = 6
	h := newWDCoreHarness(t, cfg)
	if id := h.game("slot=0"); h.ended(id) != Terminate {
		t.Fatal("game socket accepted with no session")
	}
	if id := h.spectate(); h.ended(id) != Terminate {
		t.Fatal("spectator accepted with no session")
	}
	h.close(1)
	h.close(2)
	h.launch(1)
	for _, q := range []string{"slot=4", "slot=-1", "slot=1.5", "slot=x", "slot=NaN"} {
		if id := h.game(q); h.ended(id) != Terminate {
			t.Fatalf("%s accepted", q)
		} else {
			h.close(id)
		}
	}
	g := h.game("slot=%30") // "0", as URLSearchParams decodes it
	if h.ended(g) != 0 {
		t.Fatal("slot 0 refused")
	}
	if id := h.game("slot=0"); h.ended(id) != Terminate {
		t.Fatal("duplicate slot accepted")
	}
	// Wrong sizes and out-of-window tics are ignored.
	h.apply(h.c.GameMessage(g, make([]byte, 11), h.now))
	h.apply(h.c.GameMessage(g, make([]byte, 13), h.now))
	h.cmd(g, 513, 1)
	if b := h.bundles(g); len(b) != 0 {
		t.Fatalf("sealed from bad input: %v", b)
	}
	h.cmd(g, 512, 1) // in window, kept
	for tic := uint32(0); tic < 512; tic++ {
		h.cmd(g, tic, 2)
		h.now = h.now.Add(5 * time.Millisecond) // under the rate cap
	}
	if b := h.bundles(g); len(b) != 513 || b[512].Cmds[0].ForwardMove() != 1 {
		t.Fatalf("window: %d bundles", len(b))
	}
	h.cmd(g, 3, 9) // already sealed
	// Connection cap: 6 open (lobby seat, g, dup-refused still open...).
	for len(h.c.conns) < cfg.MaxConns {
		h.lobby()
	}
	if id := h.lobby(); h.ended(id) != Terminate || len(h.texts(id)) != 0 {
		t.Fatal("connection over the cap accepted")
	}
	if h.c.Stats().Refusals[RefuseConnCap] != 1 {
		t.Fatalf("refusals %v", h.c.Stats().Refusals)
	}
}

func TestCoreRateCap(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	id := h.lobby()
	for i := 0; i < 300; i++ {
		h.say(id, `{"t":"ping"}`)
		h.now = h.now.Add(time.Millisecond) // 300 in 300 ms
	}
	h.now = h.now.Add(700 * time.Millisecond) // new window
	for i := 0; i < 300; i++ {
		h.say(id, `{"t":"ping"}`)
	}
	if h.ended(id) != 0 {
		t.Fatal("terminated within the cap")
	}
	h.say(id, `{"t":"ping"}`)
	if h.ended(id) != Terminate {
		t.Fatal("301st message in a window not refused")
	}
	n := len(h.texts(id))
	h.say(id, `{"t":"ping"}`)
	if len(h.texts(id)) != 0 || n != 2+600 { // welcome, roster, pongs
		t.Fatalf("answered %d pings, then more after refusal", n)
	}
}

func TestCoreHistoryCap(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxHistoryTics = 10
	h := newWDCoreHarness(t, cfg)
	h.launch(1)
	g := h.game("slot=0")
	for tic := uint32(0); tic < 20; tic++ {
		h.cmd(g, tic, int8(tic))
	}
	if b := h.bundles(g); len(b) != 20 || b[19].Cmds[0].ForwardMove() != 19 {
		t.Fatalf("play past the cap: %d", len(b))
	}
	if id := h.spectate(); h.ended(id) != Terminate {
		t.Fatal("spectator past the history cap")
	}
	if id := h.game("slot=2"); h.ended(id) != Terminate {
		t.Fatal("drop-in past the history cap")
	}
}

func TestCoreReservationFreedOnLobbyClose(t *testing.T) {
	h := newWDCoreHarness(t, DefaultConfig())
	h.launch(1)
	g0 := h.game("slot=0")
	h.cmd(g0, 0, 1)
	look := h.lobby() // looking reserves nothing
	if ip := h.c.inProgress(); len(ip.FreeSlots) != 3 {
		t.Fatalf("a look reserved a slot: %+v", ip)
	}
	h.say(look, `{"t":"join","slot":2}`)
	if ms := h.texts(look); len(ms) != 3 || ms[1]["slot"] != 2.0 {
		t.Fatalf("join: %v", ms)
	}
	h.say(look, `{"t":"join","slot":3}`) // one reservation per socket
	if len(h.texts(look)) != 0 || len(h.c.inProgress().FreeSlots) != 2 {
		t.Fatal("second reservation")
	}
	h.close(look) // before its game socket connected: freed
	if ip := h.c.inProgress(); len(ip.FreeSlots) != 3 {
		t.Fatalf("reservation kept: %+v", ip)
	}
	// Three lookers join: slots 1, 2, 3; a fourth finds the game full.
	for i, want := range []any{1.0, 2.0, 3.0, "game full"} {
		id := h.lobby()
		h.texts(id)
		h.say(id, `{"t":"join"}`)
		ms := h.texts(id)
		if got := ms[0]["slot"]; i < 3 && got != want || i == 3 && ms[0]["reason"] != want {
			t.Fatalf("joiner %d: %v", i, ms)
		}
	}
	// A reserved slot whose game socket connects keeps its reservation
	// after the lobby socket closes.
	g2 := h.game("slot=2")
	if h.ended(g2) != 0 || len(h.bundles(g2)) != 1 {
		t.Fatal("reserved drop-in refused or missing history")
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{
		EnvJoinTimeout: "2000", EnvMaxConns: "7", EnvRateCap: "0",
		EnvMaxHistory: "63000", EnvMaxSpectators: "x8",
	}
	c := ConfigFromEnv(DefaultConfig(), func(k string) string { return env[k] })
	if c.JoinTimeout != 2*time.Second || c.MaxConns != 7 || c.RateCap != 300 || c.MaxHistoryTics != 63000 || c.MaxSpectators != 0 {
		t.Fatalf("%+v", c)
	}
}

func TestConfigZeroIsDefault(t *testing.T) {
	if got := (Config{}).withDefaults(); got != DefaultConfig() {
		t.Fatalf("zero config: %+v", got)
	}
}
