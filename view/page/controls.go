//go:build js && wasm

package main

import (
	"sync"
	"syscall/js"

	"github.com/rewindnet/rewind/view/tab"
)

// controls reads the keyboard and the mouse into the player's input, as
// the window reads them (package view): arrows or WASD move, space or
// the left mouse button pours, 1–4 choose the material (empty, sand,
// water, wall); G shows and hides the net graph. It also plays the pour
// sound, once the person has pressed a key or clicked (browsers let a
// page play sound only then).
type controls struct {
	mu    sync.Mutex
	keys  map[string]bool // KeyboardEvent.code → down
	mouse bool
	mat   uint8
	graph bool
	audio js.Value // the AudioContext, once a key or click made one
	funcs []js.Func
}

func newControls() *controls { return &controls{keys: map[string]bool{}, mat: 1} }

// steered are the keys whose default (scrolling the page) the page
// prevents.
var steered = map[string]bool{"ArrowLeft": true, "ArrowRight": true, "ArrowUp": true, "ArrowDown": true, "Space": true}

// listen takes the window's key events and canvas's mouse button.
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
		c.mouse = false
		c.mu.Unlock()
	})
	on(canvas, "mousedown", func(e js.Value) {
		if e.Get("button").Int() == 0 {
			c.mu.Lock()
			c.mouse = true
			c.mu.Unlock()
		}
		c.wakeAudio()
	})
	on(win, "mouseup", func(e js.Value) {
		if e.Get("button").Int() == 0 {
			c.mu.Lock()
			c.mouse = false
			c.mu.Unlock()
		}
	})
}

// read returns the input the keys and mouse give now.
func (c *controls) read() tab.Input {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.keys
	in := tab.Input{}
	if k["ArrowLeft"] || k["KeyA"] {
		in.MoveX--
	}
	if k["ArrowRight"] || k["KeyD"] {
		in.MoveX++
	}
	if k["ArrowUp"] || k["KeyW"] {
		in.MoveY--
	}
	if k["ArrowDown"] || k["KeyS"] {
		in.MoveY++
	}
	in.Pour = k["Space"] || c.mouse
	for i, d := range [...]string{"Digit1", "Digit2", "Digit3", "Digit4"} {
		if k[d] {
			c.mat = uint8(i)
		}
	}
	in.Material = c.mat
	return in
}

// graphShown says whether the net graph is shown (G toggles it).
func (c *controls) graphShown() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.graph
}

// material returns the material chosen.
func (c *controls) material() uint8 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mat
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

// blip plays the pour sound: 70 ms of a tone falling from 880 to 440 Hz,
// as the window's (view.NewSound).
func (c *controls) blip() {
	ac := c.audio
	if ac.IsUndefined() || ac.IsNull() {
		return
	}
	t := ac.Get("currentTime").Float()
	o, g := ac.Call("createOscillator"), ac.Call("createGain")
	o.Get("frequency").Call("setValueAtTime", 880, t)
	o.Get("frequency").Call("linearRampToValueAtTime", 440, t+0.07)
	g.Get("gain").Call("setValueAtTime", 0.25, t)
	g.Get("gain").Call("linearRampToValueAtTime", 0, t+0.07)
	o.Call("connect", g).Call("connect", ac.Get("destination"))
	o.Call("start", t)
	o.Call("stop", t+0.07)
}
