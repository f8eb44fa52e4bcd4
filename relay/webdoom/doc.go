// Package webdoom is rewind's stand-in for WebDoom's Node.js server: the
// lobby, the lockstep tic relay and the spectator endpoint over WebSocket,
// and the app, the WAD library, the menu's UI assets and the demo store
// over HTTP, spoken byte for byte so that unmodified WebDoom clients play
// through it. `rewind webdoom` serves it; docs/webdoom.md describes it.
//
// Server (NewServer, Serve or use as an http.Handler) is the network
// layer around Core, the single-threaded state machine that is fed events
// with the time now and answers with Actions. The byte formats live in
// the subpackage wire. Stats and Status are plain snapshots; the package
// imports no metrics library (cmd/rewind exports them to Prometheus).
//
// WebDoom shares no code with the rollback engine: this package uses
// neither world, codec, server nor client, and package relay (rooms,
// signaling, TURN) does not use it.
package webdoom
