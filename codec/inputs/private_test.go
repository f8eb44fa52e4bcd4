package inputs

import (
	"reflect"
	"testing"
)

// TestPrivateFields checks the private tag: the fields' bytes are zeroed
// by HidePrivate and copied by CopyPrivate, the rest untouched, and a
// schema without private fields keeps its fingerprint.
func TestPrivateFields(t *testing.T) {
	type pub struct {
		A int8
		B uint16
		C bool
	}
	type priv struct {
		A int8
		B uint16 `rewind:"private,max=500"`
		C bool   `rewind:"private"`
	}
	ps, err := NewSchema(reflect.TypeFor[pub]())
	if err != nil {
		t.Fatal(err)
	}
	vs, err := NewSchema(reflect.TypeFor[priv]())
	if err != nil {
		t.Fatal(err)
	}
	if ps.HasPrivate() || !vs.HasPrivate() || ps.Fingerprint() == vs.Fingerprint() {
		t.Fatalf("HasPrivate %v %v, fingerprints %x %x", ps.HasPrivate(), vs.HasPrivate(), ps.Fingerprint(), vs.Fingerprint())
	}
	type plain struct {
		A int8
		B uint16 `rewind:"max=500"`
		C bool
	}
	if pl, _ := NewSchema(reflect.TypeFor[plain]()); pl.Fingerprint() == vs.Fingerprint() {
		t.Fatal("private changes nothing in the fingerprint")
	}
	in := []byte{0xff, 0x34, 0x01, 1}
	vs.HidePrivate(in)
	if string(in) != string([]byte{0xff, 0, 0, 0}) {
		t.Fatalf("hidden: % x", in)
	}
	vs.CopyPrivate(in, []byte{7, 0x10, 0x00, 1})
	if string(in) != string([]byte{0xff, 0x10, 0, 1}) {
		t.Fatalf("copied: % x", in)
	}
	if _, err := NewSchema(reflect.TypeFor[struct {
		A int8 `rewind:"secret"`
	}]()); err == nil {
		t.Fatal("an unknown tag option was taken")
	}
}
