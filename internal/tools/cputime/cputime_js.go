//go:build js && wasm

package cputime

import (
	"syscall/js"
	"time"
)

// thread returns, under Node, the process's CPU time (process.cpuUsage:
// user and system): a js/wasm program runs on one thread, so that is its
// thread's time plus what V8's helper threads spend (compiling, collecting
// the JS heap), small once the code is warm. Elsewhere (a browser) it
// returns the wall clock.
func thread() (time.Duration, bool) {
	p := js.Global().Get("process")
	if p.Type() != js.TypeObject || p.Get("cpuUsage").Type() != js.TypeFunction {
		return wall()
	}
	u := p.Call("cpuUsage")
	us := u.Get("user").Float() + u.Get("system").Float()
	return time.Duration(us * 1e3), true
}
