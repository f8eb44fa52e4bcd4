package cliflag

import "flag"

// HTTPMeaning begins the description of --http in every command that has
// one: the flag means the same thing everywhere (the process's HTTP
// listener), and each command then says what it mounts on it.
const HTTPMeaning = "the process's HTTP listener, a TCP address; on it: "

// HTTP defines --http on fs into addr, with default def and the
// command's list of what it mounts on the listener (the page, the rooms
// WebSocket, the console, Prometheus' /metrics, the probes: as the
// command has them).
func HTTP(fs *flag.FlagSet, addr *string, def, mounted string) {
	fs.StringVar(addr, "http", def, HTTPMeaning+mounted)
}
