//go:build tools

// Package tools pins the dependencies rewind has chosen, so that go mod tidy keeps
// them while the packages that use them are written.
package tools

import (
	_ "github.com/coder/websocket"
	_ "github.com/klauspost/compress/s2"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/pion/turn/v5"
	_ "github.com/pion/webrtc/v4"
	_ "github.com/zeebo/xxh3"
)
