//go:build js && wasm

package main

import (
	"sync"
	"syscall/js"

	"github.com/rewindnet/rewind/draw"
)

// controls reads the keyboard and the pointer into the engine's control
// state (draw.Controls), the same for every game, as the window reads
// them (package view): arrows or WASD, fire (space or the primary
// button), alt (shift or the secondary button), the keys 1–4, the
// pointer's place on the game's canvas and whether its button is down;
// G shows and hides the net graph. It also plays the sounds, once the
// person has pressed a key or clicked (browsers let a page play sound
// only then).
type controls struct {
	mu      sync.Mutex
	keys    map[string]bool // KeyboardEvent.code → down
	buttons int             // PointerEvent.buttons on the canvas
	x, y    int32           // the pointer on the page's canvas, in its pixels
	graph   bool
	audio   js.Value // the AudioContext, once a key or click made one
	funcs   []js.Func
}

func newControls() *controls { return &controls{keys: map[string]bool{}} }

// steered are the keys whose default (scrolling the page) the page
// prevents.
var steered = map[string]bool{"ArrowLeft": true, "ArrowRight": true, "ArrowUp": true, "ArrowDown": true, "Space": true}

// keyBits are the keys' codes for each bit of draw.Keys.
var keyBits = []struct {
	codes []string
	bit   draw.Keys
}{
	{[]string{"ArrowLeft", "KeyA"}, draw.Left},
	{[]string{"ArrowRight", "KeyD"}, draw.Right},
	{[]string{"ArrowUp", "KeyW"}, draw.Up},
	{[]string{"ArrowDown", "KeyS"}, draw.Down},
	{[]string{"Space"}, draw.Fire},
	{[]string{"ShiftLeft", "ShiftRight"}, draw.Alt},
	{[]string{"Digit1", "Numpad1"}, draw.Key1},
	{[]string{"Digit2", "Numpad2"}, draw.Key2},
	{[]string{"Digit3", "Numpad3"}, draw.Key3},
	{[]string{"Digit4", "Numpad4"}, draw.Key4},
}

// listen takes the window's key events and the canvas's pointer.
func (c *controls) listen(canvas js.Value) {
	win := js.Global()
	on := func(target js.Value, event string, fn func(e js.Value)) {
		f := js.FuncOf(func(_ js.Value, args []js.Value) any { fn(args[0]); return nil })
		c.funcs = append(c.funcs, f)
		target.Call("addEventListener", event, f)
	}
	on(win, "keydown", func(e js.Value) {
		code := e.Get("code").String()
		if steered[code] {
			e.Call("preventDefault")
		}
		c.mu.Lock()
		c.keys[code] = true
		if code == "KeyG" && !e.Get("repeat").Bool() {
			c.graph = !c.graph
		}
		c.mu.Unlock()
		c.wakeAudio()
	})
	on(win, "keyup", func(e js.Value) {
		c.mu.Lock()
		delete(c.keys, e.Get("code").String())
		c.mu.Unlock()
	})
	on(win, "blur", func(js.Value) {
		c.mu.Lock()
		clear(c.keys)
		c.buttons = 0
		c.mu.Unlock()
	})
	pointer := func(e js.Value) {
		r := canvas.Call("getBoundingClientRect")
		if w, h := r.Get("width").Float(), r.Get("height").Float(); w > 0 && h > 0 {
			c.mu.Lock()
			c.x = int32((e.Get("clientX").Float() - r.Get("left").Float()) * canvas.Get("width").Float() / w)
			c.y = int32((e.Get("clientY").Float() - r.Get("top").Float()) * canvas.Get("height").Float() / h)
			c.buttons = e.Get("buttons").Int()
			c.mu.Unlock()
		}
	}
	on(canvas, "pointerdown", func(e js.Value) { pointer(e); c.wakeAudio() })
	on(canvas, "pointermove", pointer)
	on(win, "pointerup", func(e js.Value) {
		c.mu.Lock()
		c.buttons = e.Get("buttons").Int()
		c.mu.Unlock()
	})
	on(canvas, "contextmenu", func(e js.Value) { e.Call("preventDefault") })
}

// read returns the control state now, the pointer counted from the
// game's canvas, which starts top pixels down the page's and is w×h.
func (c *controls) read(top, w, h int32) draw.Controls {
	c.mu.Lock()
	defer c.mu.Unlock()
	var k draw.Keys
	for _, b := range keyBits {
		for _, code := range b.codes {
			if c.keys[code] {
				k |= b.bit
			}
		}
	}
	if c.buttons&1 != 0 {
		k |= draw.Fire | draw.PointerDown
	}
	if c.buttons&2 != 0 {
		k |= draw.Alt
	}
	return draw.Controls{Keys: k, X: c.x, Y: c.y - top, Width: w, Height: h}
}

// graphShown says whether the net graph is shown (G toggles it).
func (c *controls) graphShown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.graph
}

// wakeAudio makes the AudioContext in a key's or click's handler, where
// the browser lets it start.
func (c *controls) wakeAudio() {
	if !c.audio.IsUndefined() {
		return
	}
	ac := js.Global().Get("AudioContext")
	if ac.IsUndefined() {
		c.audio = js.Null()
		return
	}
	c.audio = ac.New()
}

// play plays sound s: a tone sliding from s.FromHz to s.ToHz over s.Ms,
// fading out, as the window's (view.NewSound).
func (c *controls) play(s draw.Sound) {
	ac := c.audio
	if ac.IsUndefined() || ac.IsNull() || s.Ms <= 0 {
		return
	}
	t := ac.Get("currentTime").Float()
	d := float64(min(s.Ms, 5000)) / 1000
	o, g := ac.Call("createOscillator"), ac.Call("createGain")
	o.Get("frequency").Call("setValueAtTime", max(1, s.FromHz), t)
	o.Get("frequency").Call("linearRampToValueAtTime", max(1, s.ToHz), t+d)
	g.Get("gain").Call("setValueAtTime", float64(min(max(s.Volume, 0), 1000))/1000, t)
	g.Get("gain").Call("linearRampToValueAtTime", 0, t+d)
	o.Call("connect", g).Call("connect", ac.Get("destination"))
	o.Call("start", t)
	o.Call("stop", t+d)
}
