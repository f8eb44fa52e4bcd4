package udp

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
)

// A sealed short frame (DATA, BYE, PING, PONG of version 2):
//
//	type(1) id(8) counter(8) ciphertext(len(payload)) tag(16)
//
// sealed with ChaCha20-Poly1305 under the direction's key from the
// handshake; the nonce is four zero bytes and the counter little-endian
// (Noise's nonce), the associated data the 17-byte header. Each direction
// counts from 0; a receiver takes a counter once, within a window of the
// newest udpReplayWindow (replay protection).
const (
	// udpSealedHeader is a sealed frame's clear header: type, id, counter.
	udpSealedHeader = 1 + 8 + 8
	// udpSealedOverhead is a sealed frame's bytes beyond its payload.
	udpSealedOverhead = udpSealedHeader + noiseTagLen
	// udpReplayWindow is how many counters below the newest a receiver
	// still takes (once each): reordering deeper than this drops.
	udpReplayWindow = 1024
)

// udpSealKey seals one direction's frames. Safe for concurrent use.
type udpSealKey struct {
	mu    sync.Mutex
	aead  cipher.AEAD
	next  uint64
	nonce [chacha20poly1305.NonceSize]byte
}

// udpOpenKey opens the other direction's frames and keeps its replay
// window. Safe for concurrent use.
type udpOpenKey struct {
	mu    sync.Mutex
	aead  cipher.AEAD
	win   udpReplay
	nonce [chacha20poly1305.NonceSize]byte
}

func newUDPKeys(send, recv [noiseKeyLen]byte) (*udpSealKey, *udpOpenKey) {
	s, err := chacha20poly1305.New(send[:])
	if err != nil {
		panic(err) // 32-byte keys: cannot happen
	}
	r, err := chacha20poly1305.New(recv[:])
	if err != nil {
		panic(err)
	}
	return &udpSealKey{aead: s}, &udpOpenKey{aead: r}
}

// seal appends a sealed short frame of type typ to id carrying payload.
func (k *udpSealKey) seal(b []byte, typ byte, id uint64, payload []byte) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.next
	if n == math.MaxUint64 { // never reached: 2^64 frames
		panic("transport: udp send counter exhausted")
	}
	k.next++
	start := len(b)
	b = append(b, typ)
	b = binary.BigEndian.AppendUint64(b, id)
	b = binary.BigEndian.AppendUint64(b, n)
	binary.LittleEndian.PutUint64(k.nonce[4:], n)
	return k.aead.Seal(b, k.nonce[:], payload, b[start:])
}

// open authenticates and decrypts f (a parsed sealed frame) in place: it
// returns the payload (aliasing f.sealed), or an error wrapping
// ErrMalformed for a frame that does not open and ErrReplayed for one
// whose counter was taken already or fell out of the window.
func (k *udpOpenKey) open(f *udpFrame) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.win.fresh(f.counter) {
		return nil, errUDPReplayed
	}
	binary.LittleEndian.PutUint64(k.nonce[4:], f.counter)
	p, err := k.aead.Open(f.sealed[:0], k.nonce[:], f.sealed, f.header)
	if err != nil {
		return nil, errUDPBadSeal
	}
	k.win.take(f.counter)
	return p, nil
}

// The opener's errors, made once: a flood of forged frames allocates
// nothing.
var (
	errUDPReplayed = fmt.Errorf("transport: udp frame counter taken or too old: %w", ErrReplayed)
	errUDPBadSeal  = fmt.Errorf("transport: udp frame does not open: %w", ErrMalformed)
)

// udpReplay is a sliding window of the counters taken: the newest (top-1)
// and, as bits, the udpReplayWindow below it.
type udpReplay struct {
	top  uint64 // one past the newest counter taken; 0: none yet
	bits [udpReplayWindow / 64]uint64
}

// fresh reports whether counter n may be taken: newer than any, or within
// the window and not taken yet. The counter 2^64-1 is never taken (no
// sealer uses it: Noise reserves it): taking it would wrap top to 0, "none
// yet", and let every older counter in again once.
func (w *udpReplay) fresh(n uint64) bool {
	if n == math.MaxUint64 {
		return false
	}
	if n >= w.top {
		return true
	}
	if w.top-n > udpReplayWindow {
		return false
	}
	i := n % udpReplayWindow
	return w.bits[i/64]&(1<<(i%64)) == 0
}

// take marks counter n taken (fresh(n) must hold).
func (w *udpReplay) take(n uint64) {
	if n >= w.top {
		if n-w.top >= udpReplayWindow {
			w.bits = [udpReplayWindow / 64]uint64{}
		} else {
			for c := w.top; c < n; c++ { // counters skipped: not taken
				i := c % udpReplayWindow
				w.bits[i/64] &^= 1 << (i % 64)
			}
		}
		w.top = n + 1
	}
	i := n % udpReplayWindow
	w.bits[i/64] |= 1 << (i % 64)
}
