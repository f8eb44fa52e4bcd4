//go:build js && wasm && nohost

package main

import (
	"errors"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/client"
	"github.com/rewindnet/rewind/migrate"
	"github.com/rewindnet/rewind/view/tab"
)

// This file builds a Worker that cannot host (`-tags nohost`): it links
// neither the match's server nor the zstd encoder (docs/benchmarks.md,
// "What a joining tab's Worker needs"), which is what a Worker for the
// tabs that only join would download and compile. It is built to measure
// that (and by CI, so that it keeps building); the page does not serve
// it, since a tab that joins may have to take the match over.

// errNoHost is the error of hosting in a Worker built without it.
var errNoHost = errors.New("this Worker was built without hosting (-tags nohost)")

// playHost fails: hosting is not built in.
func playHost[I any](rewind.Game[I], *tab.HostConn, string, string, rewind.Options) (*rewind.Session[I], error) {
	return nil, errNoHost
}

// resumeHost fails: hosting is not built in.
func resumeHost[I any](rewind.Game[I], *tab.HostConn, client.Handoff) (migrate.Migrated[I], error) {
	return migrate.Migrated[I]{}, errNoHost
}
