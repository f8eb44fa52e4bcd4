package relay

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rewindnet/rewind/transport/webrtc"
)

// validRoomMsgs are one valid client-to-relay message of each type.
var validRoomMsgs = []roomMsg{
	{Type: RoomMsgHost, V: 1},
	{Type: RoomMsgHost, V: 1, Code: "ABC234", MaxPlayers: 8},
	{Type: RoomMsgJoin, V: 1, Code: "ABC234"},
	{Type: RoomMsgSignal, Signal: &webrtc.Signal{Kind: webrtc.SignalOffer, SDP: "v=0\r\n"}},
	{Type: RoomMsgSignal, To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0\r\n"}},
	{Type: RoomMsgSignal, To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalCandidate,
		Candidate: "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host", SDPMid: "0"}},
	{Type: RoomMsgConnected},
	{Type: RoomMsgPong, N: 3},
	{Type: RoomMsgEnd, Code: "ABC234", Key: "0123456789abcdef0123456789abcdef"},
	{Type: RoomMsgHost, V: 1, Migrate: true},
	{Type: RoomMsgClaim, V: 1, Code: "ABC234", Key: "0123456789abcdef0123456789abcdef", MaxPlayers: 4},
	{Type: RoomMsgHost, V: 2},
	{Type: RoomMsgServe, V: 2, Slots: 64, OnDemand: true, MaxPlayers: 8},
	{Type: RoomMsgOpen, V: 2, MaxPlayers: 4},
	{Type: RoomMsgOpened, Code: "ABC234"},
	{Type: RoomMsgOpened, Code: "ABC234", Reason: "full"},
	{Type: RoomMsgSignal, Code: "ABC234", To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0\r\n"}},
}

func TestDecodeRoomMsgRoundTrip(t *testing.T) {
	for _, m := range validRoomMsgs {
		got, err := decodeRoomMsg(m.encode())
		if err != nil {
			t.Fatalf("%s: %v", m.encode(), err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("round trip: got %+v, want %+v", got, m)
		}
	}
}

func TestDecodeRoomMsgRejects(t *testing.T) {
	cases := []struct {
		raw  string
		want error
	}{
		{``, ErrBadMessage},
		{`null`, ErrBadMessage},
		{`"host"`, ErrBadMessage},
		{`{"type":"host"}`, ErrBadVersion},
		{`{"type":"host","v":"1"}`, ErrBadMessage},
		{`{"type":"host","v":1,"code":"abc234"}`, ErrBadCode},
		{`{"type":"host","v":1,"maxPlayers":-1}`, ErrBadMessage},
		{`{"type":"join","v":1}`, ErrBadMessage},
		{`{"type":"serve","v":2}`, ErrBadMessage},
		{`{"type":"serve","v":2,"slots":100001}`, ErrBadMessage},
		{`{"type":"serve","v":1,"slots":2}`, ErrBadVersion},
		{`{"type":"open","v":2,"maxPlayers":-1}`, ErrBadMessage},
		{`{"type":"open"}`, ErrBadVersion},
		{`{"type":"opened"}`, ErrBadMessage},
		{`{"type":"signal","code":"a","to":"p1","signal":{"kind":"answer","sdp":"v=0"}}`, ErrBadMessage},
		{`{"type":"signal"}`, ErrBadMessage},
		{`{"type":"signal","signal":{"kind":"offer"}}`, ErrBadMessage},
		{`{"type":"signal","to":"01234567890123456","signal":{"kind":"candidate"}}`, ErrBadMessage},
		{`{"type":"end","code":"ABC234","key":"short"}`, ErrBadMessage},
		{`{"type":"hosted"}`, ErrBadMessage}, // relay-to-client types are not accepted
		{`{"type":"ping"}`, ErrBadMessage},
	}
	for _, c := range cases {
		if _, err := decodeRoomMsg([]byte(c.raw)); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.raw, err, c.want)
		}
	}
}

func TestValidRoomCode(t *testing.T) {
	for code, ok := range map[string]bool{"ABC234": true, "ZZZZZZ": true, "ABC23": false, "ABC2345": false,
		"ABC10O": false, "abc234": false, "ABCI23": false} {
		if ValidRoomCode(code) != ok {
			t.Errorf("ValidRoomCode(%q) = %v", code, !ok)
		}
	}
}

// FuzzDecodeRoomMsg: the relay's decoder of client messages never panics,
// and whatever it accepts re-encodes to a message it decodes the same.
func FuzzDecodeRoomMsg(f *testing.F) {
	for _, m := range validRoomMsgs {
		f.Add(m.encode())
	}
	f.Add([]byte(`{"type":"signal","signal":{"kind":"candidate","sdpMLineIndex":65536}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeRoomMsg(b)
		if err != nil {
			return
		}
		again, err := decodeRoomMsg(m.encode())
		if err != nil {
			t.Fatalf("accepted %q but not its re-encoding %q: %v", b, m.encode(), err)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("re-encoding changed %+v to %+v", m, again)
		}
	})
}
