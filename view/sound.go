//go:build !nosound

package view

import (
	"encoding/binary"
	"math"

	"github.com/hajimehoshi/ebiten/v2/audio"
	"github.com/rewindnet/rewind/draw"
)

// SoundBuilt says whether this build plays sound: false when built with
// -tags nosound (sound_off.go), which needs no ALSA headers (no
// libasound2-dev) and links no audio library.
const SoundBuilt = true

// sampleRate is the audio context's rate.
const sampleRate = 44100

// NewSound returns a function that plays a game's sound (draw.Sound: a
// tone sliding from FromHz to ToHz over Ms, fading out), 16-bit stereo,
// the page's twin (its AudioContext oscillator). It creates Ebitengine's
// audio context, of which a program has one; on a page the browser lets
// it play only after the person has clicked or pressed a key.
func NewSound() func(draw.Sound) {
	ctx := audio.NewContext(sampleRate)
	made := map[draw.Sound][]byte{}
	return func(s draw.Sound) {
		pcm, ok := made[s]
		if !ok {
			pcm = tone(s)
			made[s] = pcm
		}
		if len(pcm) > 0 {
			ctx.NewPlayerFromBytes(pcm).Play()
		}
	}
}

// tone returns s's samples.
func tone(s draw.Sound) []byte {
	n := sampleRate * int(min(max(s.Ms, 0), 5000)) / 1000
	vol := float64(min(max(s.Volume, 0), 1000)) / 1000
	pcm := make([]byte, 4*n)
	phase := 0.0
	for i := range n {
		f := float64(s.FromHz) + float64(s.ToHz-s.FromHz)*float64(i)/float64(n)
		phase += 2 * math.Pi * f / sampleRate
		env := 1 - float64(i)/float64(n)
		v := int16(vol * env * math.Sin(phase) * math.MaxInt16)
		binary.LittleEndian.PutUint16(pcm[4*i:], uint16(v))
		binary.LittleEndian.PutUint16(pcm[4*i+2:], uint16(v))
	}
	return pcm
}
