//go:build js && wasm && !nohost

package main

import (
	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/server"
	"github.com/rewindnet/rewind/view/tab"
)

// playHost starts the session of the room this tab hosts (?host=1, the
// room's code and key from the page's registration): the match's server
// runs in this Worker, its players' channels come through conn.
func playHost[I any](g rewind.Game[I], conn *tab.HostConn, code, key string, opts rewind.Options) (*rewind.Session[I], error) {
	m, err := migrate.Serve(g, conn, server.Config{HostMigration: true, Room: server.Room{Code: code, Key: key}})
	if err != nil {
		return nil, err
	}
	s, err := rewind.Connect(g, m.Conn, opts)
	if err != nil {
		m.Close()
		return nil, err
	}
	s.Migration().Serve(m)
	return s, nil
}

// resumeHost resumes the match's server in this Worker from handoff h
// (this tab won the claim of a host migration), over conn.
func resumeHost[I any](g rewind.Game[I], conn *tab.HostConn, h client.Handoff) (migrate.Migrated[I], error) {
	return migrate.Resume(g, conn, h, server.Config{})
}
