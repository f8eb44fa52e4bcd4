//go:build js && wasm

package tab

import "syscall/js"

// PageConfig reads the page's Config as ParseConfig does, from the
// page's <html> element's data attributes and location.search (the
// page's two programs, view/page and view/page/relay; the Worker gets
// them posted: MsgStart).
func PageConfig() (Config, error) {
	d := js.Global().Get("document").Get("documentElement").Get("dataset")
	data := map[string]string{}
	for _, k := range []string{"relay", "room", "game", "settings", "tickRate"} {
		if v := d.Get(k); v.Type() == js.TypeString {
			data[k] = v.String()
		}
	}
	return ParseConfig(data, js.Global().Get("location").Get("search").String())
}

// Mark records performance.now() as rewindTimes[name]: the page's
// timeline, which the end-to-end tests and docs/benchmarks.md read.
func Mark(name string) {
	if t := js.Global().Get("rewindTimes"); t.Type() == js.TypeObject {
		t.Set(name, js.Global().Get("performance").Call("now"))
	}
}

// Message returns a message for a Worker or a page program: an object
// whose t is kind t, with the key, value pairs kv.
func Message(t string, kv ...any) js.Value {
	m := js.Global().Get("Object").New()
	m.Set("t", t)
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i].(string), kv[i+1])
	}
	return m
}

// SetWake hands the page's JavaScript (boot.js) a program's wake-up: it
// calls the global function setter (rewindSetWake, rewindSetRelayWake)
// with a function that sends on wake without blocking.
func SetWake(setter string, wake chan<- struct{}) {
	js.Global().Call(setter, js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case wake <- struct{}{}:
		default:
		}
		return nil
	}))
}

// Take hands handle, in order, the messages boot.js queues in the
// global array queue (rewindFromWorker, rewindToRelay) at each wake-up,
// forever.
func Take(wake <-chan struct{}, queue string, handle func(m js.Value)) {
	for range wake {
		q := js.Global().Get(queue)
		for q.Length() > 0 {
			handle(q.Call("shift"))
		}
	}
}
