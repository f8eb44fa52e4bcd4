package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// fleetRaw measures the raw socket loop for st's datagrams: a server with
// a reader goroutine noting its peers and a ticker writing each peer one
// datagram of the rewind run's mean size per tick, one write(2) each; as
// many peers as st had players, in child processes sending one datagram a
// tick each. It sets st.rawUsPerPlayerTick: the raw CPU per datagram times
// the rewind run's datagrams, per rewind player-tick.
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
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return err
	}
	var (
		mu          sync.Mutex
		peers       []netip.AddrPort
		known       = map[netip.AddrPort]bool{}
		dgIn, dgOut atomic.Uint64
	)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		buf := make([]byte, 2048)
		for {
			_, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			dgIn.Add(1)
			mu.Lock()
			if !known[from] {
				known[from] = true
				peers = append(peers, from)
			}
			mu.Unlock()
		}
	}()
	stop := make(chan struct{})
	tickerDone := make(chan struct{})
	go func() {
		defer close(tickerDone)
		out := make([]byte, outSize)
		t := time.NewTicker(time.Second / fleetTickRate)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			mu.Lock()
			for _, p := range peers {
				if _, err := conn.WriteToUDPAddrPort(out, p); err == nil {
					dgOut.Add(1)
				}
			}
			mu.Unlock()
		}
	}()
	want := st.players
	procs := min(f.procs, want)
	var bots []*exec.Cmd
	defer func() {
		stopBots(bots)
		close(stop)
		<-tickerDone
		conn.Close()
		<-readerDone
	}()
	for i := range procs {
		n := want / procs
		if i < want%procs {
			n++
		}
		cmd, err := startBotProc(stderr, "fleet", "--bot-server", conn.LocalAddr().String(), "--bot-local", botIP(i),
			"--bot-raw", strconv.Itoa(inSize), "--bot-count", strconv.Itoa(n))
		if err != nil {
			return err
		}
		bots = append(bots, cmd)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := len(peers)
		mu.Unlock()
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("raw bots: %d of %d arrived", n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	i0, o0, c0 := dgIn.Load(), dgOut.Load(), selfCPU()
	time.Sleep(time.Duration(f.seconds * float64(time.Second)))
	i1, o1, c1 := dgIn.Load(), dgOut.Load(), selfCPU()
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
