//go:build js

package transport

import (
	"net"

	"github.com/pion/webrtc/v4"
)

// webrtcAPI is the pion API. In the browser pion drives the page's
// RTCPeerConnection: there is no SettingEngine to speak of, no UDP mux (a
// browser cannot listen on a port) and no loopback or mDNS switches; the
// browser decides. ICE servers and the relay-only policy still apply
// through the Configuration.
type webrtcAPI struct {
	api *webrtc.API
}

func newWebRTCAPI(cfg *WebRTCConfig, mux bool) (*webrtcAPI, error) {
	return &webrtcAPI{api: webrtc.NewAPI()}, nil
}

func (a *webrtcAPI) udpAddr() net.Addr { return nil }

func (a *webrtcAPI) close() error { return nil }
