package view

import (
	"encoding/binary"
	"math"

	"github.com/hajimehoshi/ebiten/v2/audio"
)

// sampleRate is the audio context's rate.
const sampleRate = 44100

// NewSound returns a function that plays a short blip (the pour sound):
// 70 ms of a falling tone, 16-bit stereo. It creates Ebitengine's audio
// context, of which a program has one; on a page the browser lets it play
// only after the person has clicked or pressed a key.
func NewSound() func() {
	ctx := audio.NewContext(sampleRate)
	n := sampleRate * 70 / 1000
	pcm := make([]byte, 4*n)
	phase := 0.0
	for i := range n {
		f := 880 - 440*float64(i)/float64(n)
		phase += 2 * math.Pi * f / sampleRate
		env := 1 - float64(i)/float64(n)
		v := int16(0.25 * env * math.Sin(phase) * math.MaxInt16)
		binary.LittleEndian.PutUint16(pcm[4*i:], uint16(v))
		binary.LittleEndian.PutUint16(pcm[4*i+2:], uint16(v))
	}
	return func() {
		p := ctx.NewPlayerFromBytes(pcm)
		p.Play()
	}
}
