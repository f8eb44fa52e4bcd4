package wire

import "strconv"

// The lobby messages the server sends on /ws/lobby, each written byte for
// byte as WebDoom's server (JSON.stringify) writes it, fields in its order:
//
//	{"t":"welcome","slot":0,"color":"Green"}
//	{"t":"roster","players":[{"slot":0,"color":"Green","name":"Green"}],"freeSlots":[1,2,3],"params":{…},"inGame":false}
//	{"t":"countdown","n":3}
//	{"t":"launch","params":{…},"numplayers":4,"slots":[0],"names":["Green",null,null,null]}
//	{"t":"launch",…,"names":[…],"join":true,"frontier":120}       (drop-in)
//	{"t":"inprogress","params":{…},"frontier":120,"players":[{"slot":0,"color":"Green","name":"Green","live":true}],"freeSlots":[1,2,3]}
//	{"t":"full","reason":"lobby full"}
//	{"t":"pong","t0":123.5}

// Welcome tells a lobby socket its slot (and color).
type Welcome struct{ Slot int }

// Append appends the JSON of m to b.
func (m *Welcome) Append(b []byte) []byte {
	b = append(b, `{"t":"welcome","slot":`...)
	b = strconv.AppendInt(b, int64(m.Slot), 10)
	b = append(b, `,"color":`...)
	b = wdAppendJSString(b, Color(m.Slot))
	return append(b, '}')
}

// LobbyPlayer is one seat of a roster.
type LobbyPlayer struct {
	Slot int
	Name string
}

// Roster is the lobby's state, sent to every lobby seat on change.
type Roster struct {
	Players   []LobbyPlayer // by slot, ascending
	FreeSlots []int
	Params    Params
	InGame    bool
}

// Append appends the JSON of m to b.
func (m *Roster) Append(b []byte) []byte {
	b = append(b, `{"t":"roster","players":[`...)
	for i, p := range m.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = wdAppendSlotColorName(b, p.Slot, p.Name)
		b = append(b, '}')
	}
	b = append(b, `],"freeSlots":`...)
	b = wdAppendInts(b, m.FreeSlots)
	b = append(b, `,"params":`...)
	b = m.Params.AppendJSON(b)
	b = append(b, `,"inGame":`...)
	b = strconv.AppendBool(b, m.InGame)
	return append(b, '}')
}

// Countdown is one step of the launch countdown (3, 2, 1).
type Countdown struct{ N int }

// Append appends the JSON of m to b.
func (m *Countdown) Append(b []byte) []byte {
	b = append(b, `{"t":"countdown","n":`...)
	b = strconv.AppendInt(b, int64(m.N), 10)
	return append(b, '}')
}

// Name is one entry of a launch's names: a name, or null (Set false)
// for an empty slot.
type Name struct {
	Name string
	Set  bool
}

// Launch starts the engine: the params, numplayers (always 4), the
// launch roster's slots and the 4 names. A drop-in's launch has Join set
// and carries the frontier (the next tic to be sealed).
type Launch struct {
	Params   Params
	Slots    []int
	Names    []Name // nil encodes as null
	Join     bool
	Frontier uint32
}

// Append appends the JSON of m to b.
func (m *Launch) Append(b []byte) []byte {
	b = append(b, `{"t":"launch","params":`...)
	b = m.Params.AppendJSON(b)
	b = append(b, `,"numplayers":4,"slots":`...)
	b = wdAppendInts(b, m.Slots)
	b = append(b, `,"names":`...)
	if m.Names == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, n := range m.Names {
			if i > 0 {
				b = append(b, ',')
			}
			if n.Set {
				b = wdAppendJSString(b, n.Name)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, ']')
	}
	if m.Join {
		b = append(b, `,"join":true,"frontier":`...)
		b = strconv.AppendUint(b, uint64(m.Frontier), 10)
	}
	return append(b, '}')
}

// LivePlayer is one player of an inprogress message: Live is false
// for a drop-in that has not gone live yet.
type LivePlayer struct {
	Slot int
	Name string
	Live bool
}

// InProgress is what a lobby socket sees on connecting while a game
// runs: the game's params, its frontier, its players and free slots.
type InProgress struct {
	Params    Params
	Frontier  uint32
	Players   []LivePlayer
	FreeSlots []int
}

// Append appends the JSON of m to b.
func (m *InProgress) Append(b []byte) []byte {
	b = append(b, `{"t":"inprogress","params":`...)
	b = m.Params.AppendJSON(b)
	b = append(b, `,"frontier":`...)
	b = strconv.AppendUint(b, uint64(m.Frontier), 10)
	b = append(b, `,"players":[`...)
	for i, p := range m.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = wdAppendSlotColorName(b, p.Slot, p.Name)
		b = append(b, `,"live":`...)
		b = strconv.AppendBool(b, p.Live)
		b = append(b, '}')
	}
	b = append(b, `],"freeSlots":`...)
	b = wdAppendInts(b, m.FreeSlots)
	return append(b, '}')
}

// Reasons a Full gives.
const (
	ReasonLobbyFull = "lobby full"
	ReasonGameFull  = "game full"
	ReasonGameOver  = "game over"
)

// Full refuses a seat or a drop-in.
type Full struct{ Reason string }

// Append appends the JSON of m to b.
func (m *Full) Append(b []byte) []byte {
	b = append(b, `{"t":"full","reason":`...)
	b = wdAppendJSString(b, m.Reason)
	return append(b, '}')
}

// Pong answers a ping, echoing its t0 (JSON, from
// LobbyRequest.T0JSON; nil for none).
type Pong struct{ T0 []byte }

// Append appends the JSON of m to b.
func (m *Pong) Append(b []byte) []byte {
	b = append(b, `{"t":"pong"`...)
	if m.T0 != nil {
		b = append(b, `,"t0":`...)
		b = append(b, m.T0...)
	}
	return append(b, '}')
}

func wdAppendSlotColorName(b []byte, slot int, name string) []byte {
	b = append(b, `{"slot":`...)
	b = strconv.AppendInt(b, int64(slot), 10)
	b = append(b, `,"color":`...)
	b = wdAppendJSString(b, Color(slot))
	b = append(b, `,"name":`...)
	return wdAppendJSString(b, name)
}

func wdAppendInts(b []byte, xs []int) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}
