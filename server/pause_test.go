package server_test

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/server"
)

// TestPauseNotCountedAgainstPlayers: a server whose Updates stop for 6 s
// (its process stopped, its browser tab frozen), longer than its 5 s
// PlayerTimeout, drops none of its silent players when it runs again:
// the pause is its own. They are dropped once they were silent 5 s of
// its running time (the second of the gap it counts included). Without
// forgivePause the first Update after the pause drops both.
func TestPauseNotCountedAgainstPlayers(t *testing.T) {
	r := newRig(t, server.Config{PlayerTimeout: 5 * time.Second})
	r.join(r.peer("a"))
	r.join(r.peer("b"))
	r.run(100 * time.Millisecond)
	r.now = r.now.Add(6 * time.Second) // paused
	r.run(10 * time.Millisecond)
	if st := r.srv.Stats(); st.Leaves != 0 || st.Players != 2 {
		t.Fatalf("after the pause: %d players, %d leaves; want 2 and 0", st.Players, st.Leaves)
	}
	r.run(3 * time.Second)
	if st := r.srv.Stats(); st.Leaves != 0 {
		t.Fatalf("%d leaves 4.1 s of running time after the players were heard", st.Leaves)
	}
	r.run(time.Second)
	if st := r.srv.Stats(); st.Leaves != 2 || st.Players != 0 {
		t.Fatalf("5.1 s of running time after they were heard: %d players, %d leaves; want 0 and 2", st.Players, st.Leaves)
	}
}
