//go:build !js

package main

import (
	"context"

	"github.com/rewindnet/rewind/games/ships"
	"github.com/rewindnet/rewind/view"
	"github.com/rewindnet/rewind/view/seat"
)

// playShips joins a ships match (--game ships) at --tick-rate and plays
// it in the ships view.
func (o *options) playShips(ctx context.Context, cfg seat.Config) error {
	p, err := seat.NewShips(cfg, *o.rate, connector[ships.Input](o, ctx))
	if err != nil {
		return err
	}
	defer p.Close()
	g := view.NewShips()
	g.SetPlayer(p)
	if !*o.mute && hasSoundDevice() {
		g.Sound = view.NewSound()
	}
	return o.play(ctx, p, screen{game: g, onFrame: &g.OnFrame, stop: g.Stop,
		w: view.ShipsSide, h: view.ShipsSide + 40})
}
