//go:build nosound

package view

import "github.com/rewindnet/rewind/draw"

// SoundBuilt says whether this build plays sound: false here, built with
// -tags nosound, which needs no ALSA headers (no libasound2-dev) and
// links no audio library (sound.go is the build with sound).
const SoundBuilt = false

// NewSound returns nil in a build without sound (-tags nosound): the
// window then plays none.
func NewSound() func(draw.Sound) { return nil }
