package console

import (
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// files are the page's files, served under Path+"/".
var files, _ = fs.Sub(assets, "assets")

// securityHeaders keep the page to its own files.
func securityHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache")
}

func (c *Console) servePage(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	http.ServeFileFS(w, r, files, "index.html")
}

func (c *Console) serveAsset(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, Path+"/")
	if name == "" || name == "index.html" {
		c.servePage(w, r)
		return
	}
	if strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	securityHeaders(w)
	http.ServeFileFS(w, r, files, name)
}

// reveal reports whether the request asks for addresses; it answers 401
// and returns ok=false when it asks without the token.
func (c *Console) reveal(w http.ResponseWriter, r *http.Request) (reveal, ok bool) {
	if r.URL.Query().Get("addrs") == "" {
		return false, true
	}
	if !Authorized(r, c.opts.Token) {
		unauthorized(w, "addresses are shown only with the admin token")
		return false, false
	}
	return true, true
}

// serveState answers the state as JSON: one snapshot per Interval for
// every request (limits.go), rate-limited per address unless the request
// carries the token.
func (c *Console) serveState(w http.ResponseWriter, r *http.Request) {
	reveal, ok := c.reveal(w, r)
	if !ok {
		return
	}
	now := c.now()
	if !Authorized(r, c.opts.Token) && !c.limit.allow(clientAddr(r), now) {
		tooMany(w, http.StatusTooManyRequests, 1, "too many state requests from this address: the event stream sends every change")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(c.state(now, reveal))
}

// serveEvents streams the hub's events until the client goes.
func (c *Console) serveEvents(w http.ResponseWriter, r *http.Request) {
	reveal, ok := c.reveal(w, r)
	if !ok {
		return
	}
	addr, admin := clientAddr(r), Authorized(r, c.opts.Token)
	if !c.streams.enter(addr, admin, c.opts.MaxStreams) {
		tooMany(w, http.StatusServiceUnavailable, 10, "too many console event streams open")
		return
	}
	defer c.streams.leave(addr, admin)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	s := c.hub.Subscribe(reveal)
	defer c.hub.Unsubscribe(s)
	keep := time.NewTicker(15 * time.Second) // a comment keeps proxies from timing the stream out
	defer keep.Stop()
	for {
		var b []byte
		select {
		case <-r.Context().Done():
			return
		case b = <-s.C:
		case <-keep.C:
			b = []byte(": keep-alive\n\n")
		}
		_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := w.Write(b); err != nil || rc.Flush() != nil {
			return
		}
	}
}

// actionRequest is an action's body (JSON, or form fields of the same names).
type actionRequest struct {
	Code   string `json:"code"`
	Player string `json:"player"`
	Reason string `json:"reason"`
}

// serveAction carries out one action for a request with the token.
func (c *Console) serveAction(w http.ResponseWriter, r *http.Request) {
	if c.opts.Token == nil || c.opts.Actor == nil {
		httpError(w, http.StatusForbidden, "read-only console: start the process with --admin-token FILE for actions")
		return
	}
	if !Authorized(r, c.opts.Token) {
		unauthorized(w, "actions need Authorization: Bearer <the admin token>")
		return
	}
	var q actionRequest
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		if err := json.NewDecoder(r.Body).Decode(&q); err != nil && !errors.Is(err, io.EOF) {
			httpError(w, http.StatusBadRequest, "bad JSON: "+err.Error())
			return
		}
	} else {
		q = actionRequest{Code: r.FormValue("code"), Player: r.FormValue("player"), Reason: r.FormValue("reason")}
	}
	q.Code = strings.ToUpper(strings.TrimSpace(q.Code))
	if q.Reason == "" {
		q.Reason = "ended by the operator"
	}
	err := c.act(r.PathValue("action"), q)
	c.cache.drop() // the next state shows what the action did
	switch {
	case err == nil:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}` + "\n"))
	case errors.Is(err, errBadAction):
		httpError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrNotFound):
		httpError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, ErrUnsupported):
		httpError(w, http.StatusNotImplemented, err.Error())
	default:
		httpError(w, http.StatusConflict, err.Error())
	}
}

var errBadAction = errors.New("console: bad action")

// act dispatches one action.
func (c *Console) act(action string, q actionRequest) error {
	a := c.opts.Actor
	need := func(ok bool, what string) error {
		if !ok {
			return errors.Join(errBadAction, errors.New(action+" needs "+what))
		}
		return nil
	}
	switch action {
	case "end":
		if err := need(q.Code != "", "code"); err != nil {
			return err
		}
		return a.EndMatch(q.Code, q.Reason)
	case "remove":
		if err := need(q.Code != "" && q.Player != "", "code and player"); err != nil {
			return err
		}
		return a.RemovePlayer(q.Code, q.Player, q.Reason)
	case "close":
		if err := need(q.Code != "", "code"); err != nil {
			return err
		}
		return a.CloseRoom(q.Code)
	case "drain":
		return a.Drain()
	}
	return errors.Join(errBadAction, errors.New("no action "+action+" (end, remove, close, drain)"))
}

func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="rewind console"`)
	httpError(w, http.StatusUnauthorized, msg)
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(append(b, '\n'))
}
