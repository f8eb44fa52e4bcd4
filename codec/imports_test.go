package codec_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rewindnet/rewind/codec"
	"github.com/rewindnet/rewind/transport"
)

// transportPath is the import path of package transport; its subpackages
// (transport/udp, transport/webrtc) begin with it and a slash.
const transportPath = "github.com/rewindnet/rewind/transport"

// TestMaxDatagramIsTransports: codec's datagram budget is the datagram
// every transport carries.
func TestMaxDatagramIsTransports(t *testing.T) {
	if codec.MaxDatagram != transport.MaxDatagram {
		t.Fatalf("codec.MaxDatagram %d, transport.MaxDatagram %d", codec.MaxDatagram, transport.MaxDatagram)
	}
}

// transportDeps returns the transport packages among deps.
func transportDeps(deps []string) []string {
	var bad []string
	for _, d := range deps {
		if d == transportPath || strings.HasPrefix(d, transportPath+"/") {
			bad = append(bad, d)
		}
	}
	return bad
}

// TestCodecKnowsNoTransport: the formats know no sockets. codec and its
// subpackages depend on no transport package, directly or through
// another (their tests may: TestMaxDatagramIsTransports does).
func TestCodecKnowsNoTransport(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command in GOROOT/bin or PATH: %v", err)
		}
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list -deps ./...: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/rewindnet/rewind/codec") {
		t.Fatalf("go list -deps ./... does not list codec itself: %q", deps)
	}
	for _, d := range transportDeps(deps) {
		t.Errorf("codec (or a subpackage) depends on %s", d)
	}
}

// TestTransportDepsFinds checks the check: it finds transport and its
// subpackages, and nothing that only shares the prefix.
func TestTransportDepsFinds(t *testing.T) {
	deps := []string{"fmt", transportPath, transportPath + "/udp", transportPath + "x", "github.com/rewindnet/rewind/codec"}
	got := transportDeps(deps)
	if want := []string{transportPath, transportPath + "/udp"}; !slices.Equal(got, want) {
		t.Fatalf("transportDeps = %q, want %q", got, want)
	}
}
