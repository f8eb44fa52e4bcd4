package webdoom

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rewindnet/rewind/relay/webdoom/wire"
)

// The demo store: recorded games, content-addressed, in memory, as
// WebDoom's server keeps them.
//
//	POST /api/demos?wad=NAME        body = demo bytes → 201 {"id":sha256,"size":N}; 413 over 1 MiB; 507 no room
//	GET  /api/demos/<id>            → 200 bytes + x-demo-wad; 404 unknown/expired; bad id 400
//	POST /api/demos/<id>/verify     {tics:number,trace:[u32…]} → 200 {"stored":true,"id":…};
//	                                400 bad id/JSON/entry, 404 no demo, 413 too big, 429 busy
//	GET  /api/demos/<id>/verify     → 200 {"tics":…,"trace":[…],"storedAt":ms} or 404

const (
	webDoomVerifyMax     = 4 << 20 // bytes of a verify body
	webDoomVerifyEntries = 200_000 // trace entries
	webDoomVerifyTimeout = 15 * time.Second
)

// wdAttestationNotObject answers a verify body of JSON null (WebDoom
// answers with the TypeError's message).
const wdAttestationNotObject = "attestation must be a JSON object"

var webDoomDemoID = regexp.MustCompile(`^[0-9a-f]{64}$`)

type webDoomDemo struct {
	bytes   []byte
	wad     string
	expires time.Time
	added   uint64 // insertion order, for eviction
	attest  *webDoomAttestation
}

type webDoomAttestation struct {
	tics     float64
	trace    []uint32
	storedAt time.Time
}

type webDoomDemoStore struct {
	max, total int
	ttl        time.Duration
	now        func() time.Time
	verifying  atomic.Bool

	mu    sync.Mutex
	demos map[string]*webDoomDemo
	used  int
	seq   uint64
}

func newDemoStore(max, total int, ttl time.Duration, now func() time.Time) *webDoomDemoStore {
	return &webDoomDemoStore{max: max, total: total, ttl: ttl, now: now, demos: map[string]*webDoomDemo{}}
}

// put stores b and returns its id, or an HTTP status for why it cannot.
func (d *webDoomDemoStore) put(b []byte, wad string, now time.Time) (string, int) {
	if len(b) > d.max {
		return "", http.StatusRequestEntityTooLarge
	}
	sum := sha256.Sum256(b)
	id := hex.EncodeToString(sum[:])
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(now)
	if x := d.demos[id]; x != nil {
		x.expires = now.Add(d.ttl)
		return id, 0
	}
	if !d.evictFor(len(b), "") {
		return "", http.StatusInsufficientStorage
	}
	d.seq++
	d.demos[id] = &webDoomDemo{bytes: bytes.Clone(b), wad: wad, expires: now.Add(d.ttl), added: d.seq}
	d.used += len(b)
	return id, 0
}

// cost is what x counts against the store's total: its bytes and its
// verify trace, 4 bytes an entry.
func (x *webDoomDemo) cost() int {
	c := len(x.bytes)
	if x.attest != nil {
		c += 4 * len(x.attest.trace)
	}
	return c
}

// evictFor evicts the demos that expire first (with their traces), never
// keep, until need more bytes fit in the total; false if they cannot.
// d.mu is held.
func (d *webDoomDemoStore) evictFor(need int, keep string) bool {
	for d.used+need > d.total {
		var oldest *webDoomDemo
		var oldID string
		for k, x := range d.demos {
			if k == keep {
				continue
			}
			if oldest == nil || x.expires.Before(oldest.expires) || x.expires.Equal(oldest.expires) && x.added < oldest.added {
				oldest, oldID = x, k
			}
		}
		if oldest == nil {
			return false
		}
		d.used -= oldest.cost()
		delete(d.demos, oldID)
	}
	return true
}

// expire drops demos past their lifetime; d.mu is held.
func (d *webDoomDemoStore) expire(now time.Time) {
	for id, x := range d.demos {
		if !now.Before(x.expires) {
			d.used -= x.cost()
			delete(d.demos, id)
		}
	}
}

func (d *webDoomDemoStore) get(id string, now time.Time) *webDoomDemo {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(now)
	return d.demos[id]
}

func (d *webDoomDemoStore) post(rw http.ResponseWriter, r *http.Request) {
	wad := r.URL.Query().Get("wad")
	// Read the whole body before answering, keeping at most max+1 bytes.
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r.Body, int64(d.max)+1))
	if err == nil {
		var rest int64
		rest, err = io.Copy(io.Discard, r.Body)
		n += rest
	}
	if err != nil {
		wdSend(rw, http.StatusBadRequest, "", "read error")
		return
	}
	if n > int64(d.max) {
		wdSend(rw, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("demo exceeds %d byte cap", d.max))
		return
	}
	id, status := d.put(buf.Bytes(), wad, d.now())
	if status != 0 {
		wdSend(rw, status, "", "demo store quota exhausted")
		return
	}
	wdSend(rw, http.StatusCreated, "application/json", fmt.Sprintf(`{"id":"%s","size":%d}`, id, buf.Len()))
}

// route answers /api/demos/<rest>.
func (d *webDoomDemoStore) route(rw http.ResponseWriter, r *http.Request, rest string) {
	id, verify := rest, false
	if i := len(rest) - len("/verify"); i >= 0 && rest[i:] == "/verify" {
		id, verify = rest[:i], true
	}
	if !webDoomDemoID.MatchString(id) {
		wdSend(rw, http.StatusBadRequest, "", "invalid demo id")
		return
	}
	switch {
	case verify && r.Method == http.MethodGet:
		d.getVerify(rw, id)
	case verify && r.Method == http.MethodPost:
		d.postVerify(rw, r, id)
	case !verify && r.Method == http.MethodGet:
		x := d.get(id, d.now())
		if x == nil {
			wdSend(rw, http.StatusNotFound, "", "demo not found")
			return
		}
		h := rw.Header()
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.Itoa(len(x.bytes)))
		h.Set("Cache-Control", "no-store")
		h.Set("X-Demo-Wad", x.wad)
		rw.WriteHeader(http.StatusOK)
		rw.Write(x.bytes)
	default:
		wdSend(rw, http.StatusMethodNotAllowed, "", "method not allowed")
	}
}

func (d *webDoomDemoStore) getVerify(rw http.ResponseWriter, id string) {
	x := d.get(id, d.now())
	if x == nil || x.attest == nil {
		wdSend(rw, http.StatusNotFound, "", "no attestation stored for this demo")
		return
	}
	a := x.attest
	b := fmt.Appendf(nil, `{"tics":%s,"trace":[`, wire.JSNumberString(a.tics))
	for i, v := range a.trace {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(v), 10)
	}
	b = fmt.Appendf(b, `],"storedAt":%d}`, a.storedAt.UnixMilli())
	wdSend(rw, http.StatusOK, "application/json", string(b))
}

func (d *webDoomDemoStore) postVerify(rw http.ResponseWriter, r *http.Request, id string) {
	if !d.verifying.CompareAndSwap(false, true) {
		wdSend(rw, http.StatusTooManyRequests, "", "verify in progress — try again")
		return
	}
	defer d.verifying.Store(false)
	http.NewResponseController(rw).SetReadDeadline(time.Now().Add(webDoomVerifyTimeout))
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r.Body, webDoomVerifyMax+1))
	if err == nil {
		var rest int64
		rest, err = io.Copy(io.Discard, r.Body)
		n += rest
	}
	if err != nil {
		if errors.Is(err, http.ErrBodyReadAfterClose) || wdIsTimeout(err) {
			wdSend(rw, http.StatusRequestTimeout, "", "verify body timed out")
		} else {
			wdSend(rw, http.StatusBadRequest, "", "read error")
		}
		return
	}
	if n > webDoomVerifyMax {
		wdSend(rw, http.StatusRequestEntityTooLarge, "", fmt.Sprintf("attestation body exceeds %d byte cap", webDoomVerifyMax))
		return
	}
	tics, trace, status, msg := parseAttestation(buf.Bytes())
	if status == http.StatusOK {
		d.mu.Lock()
		d.expire(d.now())
		if x := d.demos[id]; x == nil {
			status, msg = http.StatusNotFound, "demo not found"
		} else if old := x.cost(); !d.evictFor(len(x.bytes)+4*len(trace)-old, id) {
			status, msg = http.StatusInsufficientStorage, "demo store quota exhausted"
		} else {
			x.attest = &webDoomAttestation{tics: tics, trace: trace, storedAt: d.now()}
			d.used += x.cost() - old
		}
		d.mu.Unlock()
	} else if status != http.StatusBadRequest || (msg != "invalid JSON body" && msg != wdAttestationNotObject) {
		// WebDoom checks the demo exists before the shape of the trace.
		if d.get(id, d.now()) == nil {
			status, msg = http.StatusNotFound, "demo not found"
		}
	}
	if status != http.StatusOK {
		wdSend(rw, status, "", msg)
		return
	}
	wdSend(rw, http.StatusOK, "application/json", fmt.Sprintf(`{"stored":true,"id":"%s"}`, id))
}

func wdIsTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// parseAttestation decodes a verify body {tics:number, trace:[u32…]}
// and returns an HTTP status (200 when it is good) with a message.
func parseAttestation(b []byte) (tics float64, trace []uint32, status int, msg string) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if !json.Valid(b) || dec.Decode(&raw) != nil {
		return 0, nil, http.StatusBadRequest, "invalid JSON body"
	}
	if raw == nil {
		// WebDoom reads null.tics and throws before it looks for the demo.
		return 0, nil, http.StatusBadRequest, wdAttestationNotObject
	}
	obj, _ := raw.(map[string]any)
	tn, okT := obj["tics"].(json.Number)
	arr, okA := obj["trace"].([]any)
	if !okT || !okA {
		return 0, nil, http.StatusBadRequest, "attestation must have {tics: number, trace: Array}"
	}
	if len(arr) > webDoomVerifyEntries {
		return 0, nil, http.StatusRequestEntityTooLarge, "attestation trace exceeds tic cap"
	}
	tics, _ = strconv.ParseFloat(string(tn), 64)
	if math.IsInf(tics, 0) {
		return 0, nil, http.StatusBadRequest, "attestation tics is not a number"
	}
	trace = make([]uint32, len(arr))
	for i, e := range arr {
		n, ok := e.(json.Number)
		f, err := strconv.ParseFloat(string(n), 64)
		if !ok || err != nil || f != math.Trunc(f) || f < 0 || f > math.MaxUint32 {
			return 0, nil, http.StatusBadRequest, fmt.Sprintf("trace[%d] is not a u32", i)
		}
		trace[i] = uint32(f)
	}
	return tics, trace, http.StatusOK, ""
}

// uploadLimit is a token bucket per IP address for demo and verify
// uploads (ServerConfig.DemoUploadRate, DemoUploadBurst).
type uploadLimit struct {
	rate, burst float64
	now         func() time.Time

	mu      sync.Mutex
	buckets map[string]*uploadBucket
}

type uploadBucket struct {
	tokens float64
	last   time.Time
}

// allow takes a token for the address of remote ("IP:port"); false when
// it has none left.
func (u *uploadLimit) allow(remote string) bool {
	ip, _, err := net.SplitHostPort(remote)
	if err != nil {
		ip = remote
	}
	now := u.now()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.buckets) > 4096 { // forget the addresses whose buckets filled up
		for k, b := range u.buckets {
			if b.tokens+now.Sub(b.last).Seconds()*u.rate >= u.burst {
				delete(u.buckets, k)
			}
		}
	}
	b := u.buckets[ip]
	if b == nil {
		b = &uploadBucket{tokens: u.burst, last: now}
		u.buckets[ip] = b
	}
	b.tokens = min(u.burst, b.tokens+now.Sub(b.last).Seconds()*u.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
