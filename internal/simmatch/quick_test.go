package simmatch

import (
	"testing"
	"time"

	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/internal/testgame"
	"github.com/rewindnet/rewind/transport"
)

func TestQuick(t *testing.T) {
	res, err := Run(Config[testgame.Input]{
		Players:  2,
		NewGame:  func() game.Game[testgame.Input] { return &testgame.Game{} },
		Bot:      testgame.Bot,
		Duration: 3 * time.Second,
		Link:     transport.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05},
		Log:      t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
}
