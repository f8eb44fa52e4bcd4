package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rewindnet/rewind"
	"github.com/rewindnet/rewind/game"
	"github.com/rewindnet/rewind/gateway"
	"github.com/rewindnet/rewind/internal/cli/metrics"
	"github.com/rewindnet/rewind/internal/netutil"
	"github.com/rewindnet/rewind/transport"
	"github.com/rewindnet/rewind/transport/udp"
)

// jsonServe is serve's --json: the JSON gateway and the HTTP server that
// accepts its WebSockets.
type jsonServe struct {
	url   string
	srv   *http.Server
	done  chan error
	stats func() gateway.Stats
	gw    interface{ Close() error }
}

// close ends every JSON player (each says bye to the match) and the HTTP
// server.
func (j *jsonServe) close() {
	_ = j.gw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if j.srv.Shutdown(ctx) != nil {
		j.srv.Close()
	}
	<-j.done
}

// matchPlan is how serve hosts a match: on UDP (when udp), and through a
// JSON gateway on the TCP address json (when not empty).
type matchPlan struct {
	udp     bool
	udpAddr string
	json    string
	opts    rewind.HostOptions
	reg     *prometheus.Registry
	log     *slog.Logger
}

// hostMatch hosts g as plan says; dest (nil for a game whose input is no
// destination) turns the gateway's destination_input into g's input.
func hostMatch[I any](g rewind.Game[I], dest func(x, y int32) I, bound int32, plan matchPlan) (servedHost, *jsonServe, error) {
	if plan.json == "" {
		h, err := hostUDP(g, plan.udpAddr, plan.opts, plan.reg)
		return h, nil, err
	}
	ln, err := net.Listen("tcp", plan.json)
	if err != nil {
		return nil, nil, fmt.Errorf("--json %s: %w", plan.json, err)
	}
	gw, err := gateway.New(g, gateway.Config[I]{Destination: dest, DestinationBound: bound, Log: plan.log.With("part", "json")})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	opts := plan.opts
	opts.Server.Schema = gw.Schema()
	var conn transport.Conn = gw.Conn()
	var sock *udp.Server
	if plan.udp {
		ucfg := opts.UDP
		if ucfg.IdleTimeout <= 0 && opts.Server.PlayerTimeout > 0 {
			ucfg.IdleTimeout = opts.Server.PlayerTimeout
		}
		ucfg.ProveExplicitly = true // the match proves the players it admits
		var err error
		sock, err = udp.Listen(plan.udpAddr, ucfg)
		if err != nil {
			ln.Close()
			gw.Conn().Close()
			return nil, nil, fmt.Errorf("--udp %s: %w", plan.udpAddr, err)
		}
		if conn, err = transport.NewMulti(sock, gw.Conn()); err != nil {
			ln.Close()
			return nil, nil, err
		}
	}
	host, err := rewind.NewHost(g, conn, opts)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	if plan.reg != nil {
		metrics.RegisterHost(plan.reg, host, sock)
	}
	j := &jsonServe{url: "ws://" + ln.Addr().String() + "/", srv: netutil.HTTPLimits{}.Server(gw), done: make(chan error, 1),
		stats: gw.Stats, gw: gw}
	go func() {
		err := j.srv.Serve(netutil.HTTPLimits{}.Listener(ln))
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		j.done <- err
	}()
	plan.log.Info("listening", "json", j.url, "udp", plan.udp, "tick_rate", game.RateOf(g))
	return host, j, nil
}
