package main

import "testing"

func TestPkgOf(t *testing.T) {
	for name, want := range map[string]string{
		"runtime.mapassign": "runtime",
		"github.com_klauspost_compress_zstd.__Encoder_.EncodeAll": "github.com_klauspost_compress_zstd",
		"github.com_rewindnet_rewind_server.New_go.shape.struct_": "github.com_rewindnet_rewind_server",
		"golang.org_x_text_unicode_norm.Form.IsNormal":            "golang.org_x_text_unicode_norm",
		"crypto_internal_fips140_nistec.__P256Point_.SetBytes":    "crypto_internal_fips140_nistec",
		"type_.eq.internal_abi.ITab":                              "type_ (the compiler's equality and hash functions)",
	} {
		if got := pkgOf(name); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestParse reads a hand-made module: one imported function, two bodies
// of 2 and 3 bytes, a data section of 4 bytes, and the names of the two.
func TestParse(t *testing.T) {
	b := []byte("\x00asm\x01\x00\x00\x00")
	b = append(b, 2, 7, 1, 1, 'g', 1, 'f', 0, 0)          // import g.f, a function of type 0
	b = append(b, 10, 8, 2, 2, 0, 0x0b, 3, 0, 0x01, 0x0b) // two bodies: 2 and 3 bytes
	b = append(b, 11, 4, 1, 2, 3, 4)                      // data: 4 bytes
	name := []byte{4, 'n', 'a', 'm', 'e', 1, 8, 2, 1, 1, 'x', 2, 2, 'y', 'z'}
	b = append(append(b, 0, byte(len(name))), name...)
	m, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.imports != 1 || len(m.bodies) != 2 || m.bodies[0] != 2 || m.bodies[1] != 3 || m.data != 4 {
		t.Fatalf("parsed %+v", m)
	}
	if m.names[1] != "x" || m.names[2] != "yz" {
		t.Fatalf("names %v", m.names)
	}
	if _, err := parse(b[:len(b)-3]); err == nil {
		t.Error("a truncated file parsed")
	}
}
