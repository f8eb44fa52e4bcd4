package main

import (
	"io"
	"testing"
	"time"
)

func TestWebDoomSettings(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	_, addr, _, err := webDoomSettings(nil, getenv, io.Discard)
	if err != nil || addr != "0.0.0.0:8666" {
		t.Fatalf("defaults: %q %v", addr, err)
	}
	env["DOOM_PORT"], env["DOOM_HOST"], env["WEBDOOM_JOIN_TIMEOUT"], env["WEBDOOM_RATE_CAP"] = "9000", "127.0.0.1", "5000", "77"
	cfg, addr, _, err := webDoomSettings(nil, getenv, io.Discard)
	if err != nil || addr != "127.0.0.1:9000" || cfg.JoinTimeout != 5*time.Second || cfg.RateCap != 77 {
		t.Fatalf("env: %q %v %+v", addr, err, cfg.WebDoomConfig)
	}
	cfg, addr, quiet, err := webDoomSettings([]string{"--port", "7000", "--host", "::1", "--dir", "/x", "--quiet", "--max-history", "100"}, getenv, io.Discard)
	if err != nil || addr != "[::1]:7000" || cfg.Dir != "/x" || !quiet || cfg.MaxHistoryTics != 100 {
		t.Fatalf("flags: %q %v", addr, err)
	}
	if _, _, _, err := webDoomSettings([]string{"--port", "70000"}, getenv, io.Discard); err == nil {
		t.Fatal("port out of range accepted")
	}
}
