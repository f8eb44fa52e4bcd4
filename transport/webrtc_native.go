//go:build !js

package transport

import (
	"fmt"
	"net"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// webrtcAPI is a pion API and what it owns (the host's UDP mux).
type webrtcAPI struct {
	api  *webrtc.API
	mux  *ice.UDPMuxDefault
	conn *net.UDPConn
}

// newWebRTCAPI builds the pion API for cfg. With mux true (the host), every
// PeerConnection it makes shares one UDP socket on cfg.ListenUDP.
func newWebRTCAPI(cfg *WebRTCConfig, mux bool) (*webrtcAPI, error) {
	var se webrtc.SettingEngine
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	se.SetRelayAcceptanceMinWait(cfg.RelayAcceptanceMinWait)
	if cfg.DisconnectedTimeout > 0 || cfg.FailedTimeout > 0 || cfg.KeepAlive > 0 {
		d, f, k := cfg.DisconnectedTimeout, cfg.FailedTimeout, cfg.KeepAlive
		if d <= 0 {
			d = 5e9
		}
		if f <= 0 {
			f = 25e9
		}
		if k <= 0 {
			k = 2e9
		}
		se.SetICETimeouts(d, f, k)
	}
	if cfg.Loopback {
		se.SetIncludeLoopbackCandidate(true)
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
		se.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	}
	a := &webrtcAPI{}
	if mux {
		addr, err := net.ResolveUDPAddr("udp", cfg.ListenUDP)
		if err != nil {
			return nil, fmt.Errorf("transport: webrtc listen address %q: %w", cfg.ListenUDP, err)
		}
		conn, err := net.ListenUDP("udp", addr)
		if err != nil {
			return nil, fmt.Errorf("transport: webrtc listen %q: %w", cfg.ListenUDP, err)
		}
		a.conn = conn
		a.mux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: conn})
		se.SetICEUDPMux(a.mux)
	}
	a.api = webrtc.NewAPI(webrtc.WithSettingEngine(se))
	return a, nil
}

// udpAddr is the mux's local address, or nil without one.
func (a *webrtcAPI) udpAddr() net.Addr {
	if a.conn == nil {
		return nil
	}
	return a.conn.LocalAddr()
}

// close releases the mux and its socket.
func (a *webrtcAPI) close() error {
	if a.mux != nil {
		return a.mux.Close()
	}
	return nil
}
