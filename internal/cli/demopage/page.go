package demopage

import (
	"html/template"
	"net/http"
	"strings"
	"sync"
)

// Page is the page at /: with the wasm built, the match itself (the
// hosted game's, any registered game: the Go client in the browser);
// with --no-page, a signpost saying how to join from a terminal.
type Page struct {
	relay    string
	files    *Files // the page's files once built; nil while building and with --no-page
	building bool   // the page's wasm is being built: / says so
	progress string // the build's last step
	failed   error  // the build failed
	mu       sync.Mutex
	game     string
	help     string
	code     string
	flags    string
	settings string
	rate     int
	games    []string // the games a tab may host (SetGames)
}

// NewPage returns the page of the demo whose rooms relay is at relay
// (a ws:// URL); building says the page's wasm is being built (/ says so
// until SetFiles), else it is the --no-page signpost.
func NewPage(relay string, building bool) *Page {
	return &Page{relay: relay, building: building, progress: "starting", game: "sand"}
}

// SetGame names the hosted match's game (sand unless set) and the line
// on a person's controls (its registry entry's Help): the page says
// them and tells its wasm the game (data-game).
func (p *Page) SetGame(name, help string) {
	p.mu.Lock()
	p.game, p.help = name, help
	p.mu.Unlock()
}

// SetGames names the games the page offers to host a new room of (the
// registered games: ?host=1&game=NAME each).
func (p *Page) SetGames(names []string) {
	p.mu.Lock()
	p.games = names
	p.mu.Unlock()
}

// SetRoom names the hosted room on the page: its code, the play flags
// a terminal player adds (flags, each with its leading space), the
// game's settings (games.Entry.SettingsText's NAME=VALUE words: the
// page's data-settings) and the tick rate.
func (p *Page) SetRoom(code, flags, settings string, rate int) {
	p.mu.Lock()
	p.code, p.flags, p.settings, p.rate = code, flags, settings, rate
	p.mu.Unlock()
}

var signpostTemplate = template.Must(template.New("demo").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewind demo: room {{.Code}}</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>rewind demo</h1>
<p>A {{.Game}} match is hosted in room <strong style="font-size: 150%">{{if .Code}}{{.Code}}{{else}}(starting){{end}}</strong>.</p>
<p>Join it from a terminal with a headless bot:</p>
<pre>rewind play --headless --join {{.Code}} --relay {{.Relay}}{{.Flags}}</pre>
<p>From another machine, start the demo with <code>--http 0.0.0.0:8080</code> and use this machine's address in <code>--relay</code>.</p>
<p>This demo runs with <code>--no-page</code>: start it without that flag to play in this page.</p>
</body></html>
`))

// playTemplate is the playing page. Its head starts with boot.js,
// inline, so that the match's slow steps start before any file is
// fetched: it starts the match's Worker and hands it the page's settings
// (the <html> element's data attributes: the relay, the room, the grid
// and the tick rate, beside the files' content-hashed names) and the
// URL's query (?room=CODE, ?watch=CODE&delay=D, ?until-tick=T...),
// compiles the Worker's wasm for it, joins the room (the relay's
// WebSocket, the RTCPeerConnection, the data channel handed to the
// Worker) and writes #status from the Worker's ticks, and fetches the
// page's drawing program. page.js, at the end of the body, starts it,
// and starts the page's relay program (data-relay-wasm: hosting, a host
// migration's claims) only once needed, which it gives its relay
// WebSockets.
// #host's links (?host=1&game=NAME, a link for each game SetGames names) host a new room, whose code and link to share the
// page writes into #share; #join joins a room by its typed code
// (?room=): page.js looks the code up at the relay as it is typed and
// says in #joinsay whether a room has it, enabling the button once one
// does. The drawing program points #mode at watching (or, watching, at
// playing) the same room, and draws on a canvas it adds to the body.
// rewindTimes collects the page's timeline in ms since navigation
// (view/README.md lists its marks; boot is when boot.js ran, verified
// the Worker's first verified tick).
var playTemplate = template.Must(template.New("play").Parse(`<!doctype html>
<html lang="en" data-relay="{{.Relay}}" data-room="{{.Code}}" data-game="{{.Game}}" data-settings="{{.Settings}}" data-tick-rate="{{.Rate}}" data-worker-js="{{.WorkerJS}}" data-worker-wasm="{{.WorkerWasm}}" data-wasm="{{.Wasm}}" data-relay-wasm="{{.RelayWasm}}" data-exec="{{.Exec}}"><head><meta charset="utf-8">
<script>{{.Boot}}</script>
<title>rewind demo: room {{.Code}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="preload" href="{{.Exec}}" as="script">
<style>
body { margin: 0; background: #08080c; color: #bbb; font: 12px monospace; }
#bar { position: fixed; left: 0; right: 0; bottom: 0; padding: 4px 8px; background: rgba(0,0,0,.75); z-index: 10; }
#status { color: #8c8; white-space: normal; overflow-wrap: normal; word-break: normal; }
#share #code { font-size: 40px; color: #fff; letter-spacing: 6px; }
#bar a, #bar button { color: #8af; }
#bar input { width: 7em; font: inherit; text-transform: uppercase; }
</style></head>
<body>
<div id="bar">
<div id="share"></div>
<div id="status">room={{.Code}} player=- tick=0 verified_tick=0 verified_hash=0000000000000000 rollbacks=0 resyncs=0 ping_ms=0.0 state=loading desyncs=0 migrations=0 waiting_for= hosting=false</div>
<div><span id="hint">{{.Game}}: {{.Help}}</span> · <a id="mode" href="?watch={{.Code}}" style="color: #8af">watch as a spectator</a> · from a terminal: <code>rewind play --headless --join <span class="room">{{.Code}}</span> --relay {{.Relay}}{{.Flags}}</code> (or <code>rewind watch</code>)</div>
<div><span id="host">host a new room: {{range $i, $g := .Games}}{{if $i}} · {{end}}<a href="?host=1&amp;game={{$g}}">{{$g}}</a>{{else}}<a href="?host=1">{{.Game}}</a>{{end}}</span> · <form id="join" style="display: inline" method="get"><label>join a room: <input name="room" placeholder="code" autocomplete="off" spellcheck="false"></label> <button>join</button> <span id="joinsay"></span></form></div>
</div>
<script src="{{.Exec}}"></script>
<script src="{{.PageJS}}"></script>
</body></html>
`))

// buildingTemplate is the page at / while the wasm is built: the build's
// progress, reloaded every second until the playing page replaces it.
var buildingTemplate = template.Must(template.New("building").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>rewind demo: building the page</title>
{{if not .Failed}}<meta http-equiv="refresh" content="1">{{end}}</head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto">
<h1>rewind demo</h1>
<p>A {{.Game}} match is hosted in room <strong style="font-size: 150%">{{.Code}}</strong>.</p>
{{if .Failed}}<p>The browser player could not be built: <code>{{.Failed}}</code></p>
{{else}}<p>The browser player's wasm is building (the demo's first run for these sources): <code id="progress">{{.Progress}}</code>. This page reloads until it is ready.</p>{{end}}
<p>Meanwhile, join from a terminal with a headless bot:</p>
<pre>rewind play --headless --join {{.Code}} --relay {{.Relay}}{{.Flags}}</pre>
</body></html>
`))

// SetFiles makes the page play with files, or say why it cannot (err).
func (p *Page) SetFiles(files *Files, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files, p.failed = files, err
	p.building = err != nil
}

// SetProgress notes the build's step.
func (p *Page) SetProgress(s string) {
	p.mu.Lock()
	p.progress = s
	p.mu.Unlock()
}

// ServeHTTP writes the page.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	data := struct {
		Code, Relay, Flags, Progress, Failed string
		Game, Help, Settings                 string
		Games                                []string
		Rate                                 int
		Wasm, WorkerWasm, RelayWasm, PageJS  string
		WorkerJS, Exec                       string
		Boot                                 template.JS
	}{Code: p.code, Game: p.game, Relay: p.relay, Flags: p.flags, Help: p.help, Settings: p.settings, Games: p.games, Rate: p.rate, Progress: p.progress}
	f, building := p.files, p.building
	if p.failed != nil {
		data.Failed = p.failed.Error()
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	t := signpostTemplate
	if building {
		t = buildingTemplate
	}
	if f != nil {
		t = playTemplate
		data.Wasm, data.WorkerWasm, data.PageJS = f.get(pageWasm).name, f.get(workerWasm).name, f.get(pageJS).name
		data.RelayWasm, data.WorkerJS, data.Exec = f.get(relayWasm).name, f.get(workerJS).name, f.get(wasmExecName).name
		data.Boot = inlineJS(f.get(bootJS).raw)
	}
	_ = t.Execute(w, data)
}

// inlineJS is script as the page writes it inline: without its
// whole-line comments (the page's bytes, sent at every visit) and
// with "</" written "<\/", so that nothing in it ends the <script>
// element.
func inlineJS(script []byte) template.JS {
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(script), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			b.WriteString(line)
		}
	}
	return template.JS(strings.ReplaceAll(b.String(), "</", "<\\/"))
}
