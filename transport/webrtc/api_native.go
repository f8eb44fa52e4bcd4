//go:build !js

package webrtc

import (
	"fmt"
	"net"

	"github.com/pion/ice/v4"
	pion "github.com/pion/webrtc/v4"
)

// pionAPI is a pion API and what it owns (the host's UDP mux).
type pionAPI struct {
	api  *pion.API
	mux  *ice.UDPMuxDefault
	conn *net.UDPConn
}

// newPionAPI builds the pion API for cfg. With mux true (the host), every
// PeerConnection it makes shares one UDP socket on cfg.ListenUDP.
func newPionAPI(cfg *Config, mux bool) (*pionAPI, error) {
	var se pion.SettingEngine
	se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4, pion.NetworkTypeUDP6})
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
	a := &pionAPI{}
	if mux {
		addr, err := net.ResolveUDPAddr("udp", cfg.ListenUDP)
		if err != nil {
			return nil, fmt.Errorf("webrtc: webrtc listen address %q: %w", cfg.ListenUDP, err)
		}
		conn, err := net.ListenUDP("udp", addr)
		if err != nil {
			return nil, fmt.Errorf("webrtc: webrtc listen %q: %w", cfg.ListenUDP, err)
		}
		a.conn = conn
		a.mux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: conn})
		se.SetICEUDPMux(a.mux)
	}
	a.api = pion.NewAPI(pion.WithSettingEngine(se))
	return a, nil
}

// udpAddr is the mux's local address, or nil without one.
func (a *pionAPI) udpAddr() net.Addr {
	if a.conn == nil {
		return nil
	}
	return a.conn.LocalAddr()
}

// close releases the mux and its socket.
func (a *pionAPI) close() error {
	if a.mux != nil {
		return a.mux.Close()
	}
	return nil
}

// channelValue is what Config.Handover gets: pion's data channel.
func channelValue(dc *pion.DataChannel) any { return dc }
