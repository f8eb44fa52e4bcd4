// Package roomclient is the client side of the rooms relay (package
// relay): a host calls HostRoom and gets a webrtc.Host that takes every
// player; a player calls JoinRoom and gets a webrtc.Peer talking to the
// host; a player whose host is gone calls ClaimRoom (host migration); a
// lobby calls OpenRoom to have a match server open a room on demand; a
// match server calls ServeRooms to host many rooms through one relay
// connection. Every call takes a list of relays (SplitURLs) and tries
// them in turn. The relay's refusals come back as *roomproto.Error.
//
// The package links neither the relay's hub, nor a Redis client, nor a
// TURN server, so that the browser page and the desktop window stay light.
package roomclient
