package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"time"
)

// fleetRaw measures the raw socket loop (rawLoop) for st's datagrams:
// each peer written one datagram of the rewind run's mean size per tick;
// as many peers as st had players, in child processes sending one
// datagram a tick each. It sets st.rawUsPerPlayerTick: the raw CPU per
// datagram times the rewind run's datagrams, per rewind player-tick.
func fleetRaw(f fleetFlags, st *fleetStep, stderr io.Writer) error {
	if st.dgIn == 0 || st.dgOut == 0 {
		return fmt.Errorf("no datagrams in the rewind run")
	}
	// Sizes: the rewind run's means (UDP payloads; the stats count bytes
	// only per socket, so take them from a fresh sample of the run).
	inSize, outSize := 60, 120
	if st.bytesIn > 0 {
		inSize, outSize = int(st.bytesIn/st.dgIn), int(st.bytesOut/st.dgOut)
	}
	loop, err := startRawLoop(outSize, fleetTickRate)
	if err != nil {
		return err
	}
	want := st.players
	procs := min(f.procs, want)
	var bots []*exec.Cmd
	defer func() {
		stopBots(bots)
		loop.close()
	}()
	for i := range procs {
		n := want / procs
		if i < want%procs {
			n++
		}
		cmd, err := startBotProc(stderr, "fleet", "--bot-server", loop.addr(), "--bot-local", botIP(i),
			"--bot-raw", strconv.Itoa(inSize), "--bot-count", strconv.Itoa(n))
		if err != nil {
			return err
		}
		bots = append(bots, cmd)
	}
	if err := loop.waitPeers(want, 60*time.Second); err != nil {
		return err
	}
	time.Sleep(time.Second)
	i0, o0 := loop.counts()
	c0 := selfCPU()
	time.Sleep(time.Duration(f.seconds * float64(time.Second)))
	i1, o1 := loop.counts()
	c1 := selfCPU()
	raw := float64((i1 - i0) + (o1 - o0))
	st.rawUsPerPlayerTick = (c1 - c0).Seconds() * 1e6 / raw * float64(st.dgIn+st.dgOut) / float64(max(st.playerTicks, 1))
	fmt.Fprintf(stderr, "bench fleet: raw loop: %d peers, %v CPU for %d in + %d out (%d B in, %d B out)\n",
		want, (c1 - c0).Round(time.Millisecond), i1-i0, o1-o0, inSize, outSize)
	return nil
}

// runRawBots is a raw bot process: n sockets from local, each sending one
// size-byte datagram to server every tick and reading what comes back,
// until ctx ends.
func runRawBots(ctx context.Context, server, local string, n, size, rate int) error {
	ra, err := net.ResolveUDPAddr("udp", server)
	if err != nil {
		return err
	}
	var conns []*net.UDPConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.DialUDP("udp", &net.UDPAddr{IP: net.ParseIP(local)}, ra)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		go func() {
			buf := make([]byte, 2048)
			for {
				if _, err := c.Read(buf); err != nil && ctx.Err() != nil {
					return
				} else if err != nil {
					time.Sleep(time.Millisecond) // a refused port before the server noted us
				}
			}
		}()
	}
	p := make([]byte, size)
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			for _, c := range conns {
				c.Write(p)
			}
		}
	}
}
