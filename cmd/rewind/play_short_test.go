package main

import (
	"strings"
	"testing"

	"github.com/rewindnet/rewind"
)

// migrationSession is a playSession in a given migration state.
type migrationSession struct {
	playSession
	state      rewind.State
	migrations int
}

func (m migrationSession) State() rewind.State { return m.state }
func (m migrationSession) Migrations() int     { return m.migrations }

// TestShortOfUntil (issue 43): a play interrupted short of --until-tick
// while its host migration had not brought it to a serving host fails
// (a non-zero exit, saying so); interrupted without a migration, or past
// the tick, it does not.
func TestShortOfUntil(t *testing.T) {
	loop := &playLoop{until: 2400}
	err := shortOfUntil(loop, rewind.Stats{Verified: 663}, migrationSession{state: rewind.Migrating})
	if err == nil || !strings.Contains(err.Error(), "short of --until-tick 2400") {
		t.Fatalf("stuck migrating at 663: %v", err)
	}
	if err := shortOfUntil(loop, rewind.Stats{Verified: 663}, migrationSession{state: rewind.Playing, migrations: 1}); err == nil {
		t.Fatal("stopped at 663 after a migration to a host that did not serve: no error")
	}
	if err := shortOfUntil(loop, rewind.Stats{Verified: 663}, migrationSession{state: rewind.Playing}); err != nil {
		t.Fatalf("interrupted without a migration: %v", err)
	}
	if err := shortOfUntil(loop, rewind.Stats{Verified: 2400}, migrationSession{state: rewind.Playing, migrations: 1}); err != nil {
		t.Fatalf("at --until-tick: %v", err)
	}
	if err := shortOfUntil(&playLoop{}, rewind.Stats{Verified: 5}, migrationSession{state: rewind.Migrating}); err != nil {
		t.Fatalf("without --until-tick: %v", err)
	}
}
