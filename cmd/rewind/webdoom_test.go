package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestWebDoomSettings(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	set, err := webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "0.0.0.0:8666" || set.metrics != "" || len(set.warnings) != 0 {
		t.Fatalf("defaults: %+v %v", set, err)
	}
	env["DOOM_PORT"], env["DOOM_HOST"], env["WEBDOOM_JOIN_TIMEOUT"], env["WEBDOOM_RATE_CAP"] = "9000", "127.0.0.1", "5000", "77"
	set, err = webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "127.0.0.1:9000" || set.cfg.JoinTimeout != 5*time.Second || set.cfg.RateCap != 77 || len(set.warnings) != 0 {
		t.Fatalf("env: %+v %v", set, err)
	}
	set, err = webDoomSettings([]string{"--port", "7000", "--host", "::1", "--dir", "/x", "--quiet", "--max-history", "100", "--metrics-http", "127.0.0.1:0"}, getenv, io.Discard)
	if err != nil || set.addr != "[::1]:7000" || set.cfg.Dir != "/x" || !set.quiet || set.cfg.MaxHistoryTics != 100 || set.metrics != "127.0.0.1:0" {
		t.Fatalf("flags: %+v %v", set, err)
	}
	if _, err := webDoomSettings([]string{"--port", "70000"}, getenv, io.Discard); err == nil {
		t.Fatal("port out of range accepted")
	}
	// Bad values keep the defaults, as in WebDoom, and are reported.
	env["DOOM_PORT"], env["WEBDOOM_RATE_CAP"], env["WEBDOOM_MAX_CONNS"] = "abc", "-5", "0"
	set, err = webDoomSettings(nil, getenv, io.Discard)
	if err != nil || set.addr != "127.0.0.1:8666" || set.cfg.RateCap != 300 {
		t.Fatalf("bad env: %+v %v", set, err)
	}
	got := fmt.Sprint(set.warnings)
	for _, want := range []string{"{DOOM_PORT abc 8666}", "{WEBDOOM_RATE_CAP -5 300}", "{WEBDOOM_MAX_CONNS 0 "} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %s lack %s", got, want)
		}
	}
}
