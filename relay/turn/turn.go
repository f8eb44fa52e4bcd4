// Package turn is the rooms relay's TURN server (pion/turn): time-limited
// credentials derived from a shared secret (the TURN REST-API scheme), so
// that relay processes sharing the secret accept each other's, handed to
// a room's members by the relay (package relay, RoomConfig.TURN); an
// allocation made in time is refreshed past its credential's expiry for
// as long as the relay says its room lives (renew.go). It is apart from
// the hub so that what needs no TURN server links none.
package turn

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // the TURN REST-API scheme is HMAC-SHA1
	"encoding/base64"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	pionturn "github.com/pion/turn/v5"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/webrtc"
)

// Config configures the relay's embedded TURN server.
type Config struct {
	// Listen is the UDP address TURN listens on, e.g. ":3478" or
	// "127.0.0.1:0".
	Listen string
	// PublicIP is the IP handed to clients, both as the server's address
	// and as the address of relayed candidates. Default: Listen's IP, or,
	// if that is unspecified, this machine's first non-loopback IPv4
	// address (127.0.0.1 if it has none).
	PublicIP string
	// Realm is the TURN realm. Default "rewind".
	Realm string
	// Secret is the shared secret credentials are derived from (the TURN
	// REST-API scheme), so relay processes sharing it hand out credentials
	// each other's TURN servers accept. Default: 32 random bytes.
	Secret []byte
	// CredentialTTL is how long handed-out credentials stay valid for a
	// new allocation (default 6 h; `relay --turn-ttl`). A relay hands
	// its hosts and match servers fresh ones at half of it (the "ice"
	// message), for the peers that connect later; an allocation made in
	// time is refreshed past it for as long as the relay says its room
	// lives (the refreshes of a match longer than CredentialTTL).
	CredentialTTL time.Duration
	// Clock gives the time that expiries are checked against. Default the
	// wall clock.
	Clock transport.Clock
}

// Server is a pion TURN server accepting time-limited credentials.
type Server struct {
	cfg    Config
	srv    *pionturn.Server
	conn   net.PacketConn
	public net.IP
	// live, set by the relay that hands the credentials out, says
	// whether a credential's user is still a member of a live room
	// (turn_renew.go).
	live atomic.Pointer[func(user string) bool]
	// renewed counts the requests on existing allocations taken with an
	// expired credential.
	renewed atomic.Uint64
}

// Start starts a TURN server on cfg.Listen.
func Start(cfg Config) (*Server, error) {
	if cfg.Realm == "" {
		cfg.Realm = "rewind"
	}
	if cfg.CredentialTTL <= 0 {
		cfg.CredentialTTL = 6 * time.Hour
	}
	if cfg.Clock == nil {
		cfg.Clock = transport.WallClock{}
	}
	if len(cfg.Secret) == 0 {
		cfg.Secret = make([]byte, 32)
		if _, err := rand.Read(cfg.Secret); err != nil {
			return nil, fmt.Errorf("turn: secret: %w", err)
		}
	}
	conn, err := net.ListenPacket("udp4", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("turn: listen %q: %w", cfg.Listen, err)
	}
	local := conn.LocalAddr().(*net.UDPAddr)
	public := net.ParseIP(cfg.PublicIP)
	if public == nil {
		public = local.IP
		if public.IsUnspecified() {
			public = netutil.FirstIPv4()
		}
	}
	relayBind := local.IP.String()
	loopback := public.IsLoopback()
	t := &Server{cfg: cfg, conn: conn, public: public}
	srv, err := pionturn.NewServer(pionturn.ServerConfig{
		Realm:       cfg.Realm,
		AuthHandler: t.auth,
		PacketConnConfigs: []pionturn.PacketConnConfig{{
			PacketConn: conn,
			RelayAddressGenerator: &pionturn.RelayAddressGeneratorStatic{
				RelayAddress: public,
				Address:      relayBind,
			},
			// Never relay into the relay machine's own loopback, unless the
			// whole setup lives there (tests, one-machine demos).
			PermissionHandler: func(_ net.Addr, peer net.IP) bool {
				if peer.IsUnspecified() || peer.IsMulticast() {
					return false
				}
				return loopback || !peer.IsLoopback()
			},
		}},
	})
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("turn: server: %w", err)
	}
	t.srv = srv
	return t, nil
}

// Addr is the UDP address TURN listens on.
func (t *Server) Addr() *net.UDPAddr { return t.conn.LocalAddr().(*net.UDPAddr) }

// URL is the TURN URL handed to clients ("turn:IP:PORT?transport=udp").
func (t *Server) URL() string {
	return "turn:" + net.JoinHostPort(t.public.String(), strconv.Itoa(t.Addr().Port)) + "?transport=udp"
}

// Credentials returns the ICE server entry for user: the TURN URL and a
// user name and password valid for CredentialTTL from now.
func (t *Server) Credentials(user string, now time.Time) webrtc.ICEServer {
	name, pass := Credentials(t.cfg.Secret, user, now.Add(t.cfg.CredentialTTL))
	return webrtc.ICEServer{URLs: []string{t.URL()}, Username: name, Credential: pass}
}

// Credentials derives TURN REST-API credentials: the user name is
// "EXPIRY:user" (EXPIRY in Unix seconds) and the password is
// base64(HMAC-SHA1(secret, user name)).
func Credentials(secret []byte, user string, expires time.Time) (username, password string) {
	username = strconv.FormatInt(expires.Unix(), 10) + ":" + user
	mac := hmac.New(sha1.New, secret)
	mac.Write([]byte(username))
	return username, base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// auth checks a TURN request's REST-API user name against the clock and
// returns the long-term key for its derived password.
func (t *Server) auth(ra *pionturn.RequestAttributes) (string, []byte, bool) {
	expiry, user, ok := strings.Cut(ra.Username, ":")
	if !ok {
		return "", nil, false
	}
	exp, err := strconv.ParseInt(expiry, 10, 64)
	if err != nil {
		return "", nil, false
	}
	if exp < t.cfg.Clock.Now().Unix() && !t.renews(ra, user) {
		return "", nil, false
	}
	_, pass := Credentials(t.cfg.Secret, user, time.Unix(exp, 0))
	return user, pionturn.GenerateAuthKey(ra.Username, ra.Realm, pass), true
}

// Close stops the TURN server.
func (t *Server) Close() error {
	return t.srv.Close()
}

// Allocations is the number of live TURN allocations.
func (t *Server) Allocations() int { return t.srv.AllocationCount() }

// CredentialTTL is how long the credentials it hands out stay valid for
// a new allocation (Config.CredentialTTL, or its default).
func (t *Server) CredentialTTL() time.Duration { return t.cfg.CredentialTTL }
