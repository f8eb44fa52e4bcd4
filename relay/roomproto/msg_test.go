package roomproto

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rewindnet/rewind/transport/webrtc"
)

// validRoomMsgs are one valid client-to-relay message of each type.
var validRoomMsgs = []Msg{
	{Type: MsgHost, V: 1},
	{Type: MsgHost, V: 1, Code: "ABC234", MaxPlayers: 8},
	{Type: MsgJoin, V: 1, Code: "ABC234"},
	{Type: MsgSignal, Signal: &webrtc.Signal{Kind: webrtc.SignalOffer, SDP: "v=0\r\n"}},
	{Type: MsgSignal, To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0\r\n"}},
	{Type: MsgSignal, To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalCandidate,
		Candidate: "candidate:1 1 udp 2130706431 127.0.0.1 5000 typ host", SDPMid: "0"}},
	{Type: MsgConnected},
	{Type: MsgPong, N: 3},
	{Type: MsgEnd, Code: "ABC234", Key: "0123456789abcdef0123456789abcdef"},
	{Type: MsgHost, V: 1, Migrate: true},
	{Type: MsgClaim, V: 1, Code: "ABC234", Key: "0123456789abcdef0123456789abcdef", MaxPlayers: 4},
	{Type: MsgHost, V: 2},
	{Type: MsgServe, V: 2, Slots: 64, OnDemand: true, MaxPlayers: 8},
	{Type: MsgOpen, V: 2, MaxPlayers: 4},
	{Type: MsgOpened, Code: "ABC234"},
	{Type: MsgOpened, Code: "ABC234", Reason: "full"},
	{Type: MsgSignal, Code: "ABC234", To: "p1", Signal: &webrtc.Signal{Kind: webrtc.SignalAnswer, SDP: "v=0\r\n"}},
	{Type: MsgLookup, V: 2, Code: "ABC2345"},
	{Type: MsgLookup, V: 2, Code: "ABCDEFGHJKLM"},
	{Type: MsgRekey, Code: "ABC2345", Key: "0123456789abcdef0123456789abcdef"},
}

func TestDecodeRoomMsgRoundTrip(t *testing.T) {
	for _, m := range validRoomMsgs {
		got, err := Decode(m.Encode())
		if err != nil {
			t.Fatalf("%s: %v", m.Encode(), err)
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
		{`{"type":"lookup","v":2}`, ErrBadCode},
		{`{"type":"lookup","v":2,"code":"abc2345"}`, ErrBadCode}, // the page normalizes what a person types
		{`{"type":"lookup","v":2,"code":"ABCDEFGHJKLMN"}`, ErrBadCode},
		{`{"type":"lookup","v":1,"code":"ABC2345"}`, ErrBadVersion},
		{`{"type":"rekey","code":"ABC2345"}`, ErrBadMessage},
		{`{"type":"rekey","code":"ABC2345","key":"short"}`, ErrBadMessage},
		{`{"type":"rekeyed","code":"ABC2345","key":"0123456789abcdef0123456789abcdef"}`, ErrBadMessage},
		{`{"type":"hosted"}`, ErrBadMessage}, // relay-to-client types are not accepted
		{`{"type":"found","code":"ABC2345"}`, ErrBadMessage},
		{`{"type":"ping"}`, ErrBadMessage},
	}
	for _, c := range cases {
		if _, err := Decode([]byte(c.raw)); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.raw, err, c.want)
		}
	}
}

// FuzzDecodeRoomMsg: the relay's decoder of client messages never panics,
// and whatever it accepts re-encodes to a message it decodes the same.
func FuzzDecodeRoomMsg(f *testing.F) {
	for _, m := range validRoomMsgs {
		f.Add(m.Encode())
	}
	f.Add([]byte(`{"type":"signal","signal":{"kind":"candidate","sdpMLineIndex":65536}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Decode(m.Encode())
		if err != nil {
			t.Fatalf("accepted %q but not its re-encoding %q: %v", b, m.Encode(), err)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("re-encoding changed %+v to %+v", m, again)
		}
	})
}
