//go:build js

package webrtc

import (
	"net"

	pion "github.com/pion/webrtc/v4"
)

// pionAPI is the pion API. In the browser pion drives the page's
// RTCPeerConnection: there is no SettingEngine to speak of, no UDP mux (a
// browser cannot listen on a port) and no loopback or mDNS switches; the
// browser decides. ICE servers and the relay-only policy still apply
// through the Configuration.
type pionAPI struct {
	api *pion.API
}

func newPionAPI(cfg *Config, mux bool) (*pionAPI, error) {
	return &pionAPI{api: pion.NewAPI()}, nil
}

func (a *pionAPI) udpAddr() net.Addr { return nil }

func (a *pionAPI) close() error { return nil }

// channelValue is what Config.Handover gets: the browser's RTCDataChannel.
func channelValue(dc *pion.DataChannel) any { return dc.JSValue() }
