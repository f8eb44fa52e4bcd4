package codec

import (
	"errors"
	"testing"
)

func TestModuleRequest(t *testing.T) {
	sum := [32]byte{1, 2, 3, 31: 9}
	for _, m := range []ModuleRequest{
		{Tag: 1, Sum: sum, First: 0, Mask: 1},
		{Tag: 255, Sum: sum, First: MaxModuleChunks - 1, Mask: 1<<64 - 1},
		{Tag: 7, First: 300, Mask: 0x8000_0000_0000_0000},
	} {
		checkMessage(t, &m, ParseModuleRequest)
	}
	for name, m := range map[string]ModuleRequest{
		"mask":  {Tag: 1, Sum: sum},
		"first": {Tag: 1, First: MaxModuleChunks, Mask: 1},
	} {
		if _, _, err := ParseModuleRequest(m.Append(nil)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	chunk := (&ModuleChunk{Tag: 1, Total: 1, Data: []byte{0}}).Append(nil)
	if _, _, err := ParseModuleRequest(chunk); err == nil {
		t.Error("a chunk parsed as a request")
	}
}

func TestModuleChunk(t *testing.T) {
	full := make([]byte, ModuleChunkData)
	for i := range full {
		full[i] = byte(i)
	}
	for _, m := range []ModuleChunk{
		{Tag: 1, Index: 0, Total: 3, Data: []byte{0, 0x61, 0x73}},
		{Tag: 2, Index: 0, Total: 5000, Data: full},
		{Tag: 3, Index: 4, Total: 5000, Data: full[:5000-4*ModuleChunkData]},
		{Tag: 9, Index: MaxModuleChunks - 1, Total: MaxModuleBytes, Data: full[:MaxModuleBytes-(MaxModuleChunks-1)*ModuleChunkData]},
	} {
		checkMessage(t, &m, ParseModuleChunk)
	}
	for name, c := range map[string]struct {
		m    ModuleChunk
		want error
	}{
		"past":  {ModuleChunk{Tag: 1, Index: 1, Total: ModuleChunkData, Data: full}, ErrMalformed},
		"zero":  {ModuleChunk{Tag: 1, Index: 0, Total: 0}, ErrMalformed},
		"large": {ModuleChunk{Tag: 1, Index: 0, Total: MaxModuleBytes + 1, Data: full}, ErrTooLarge},
	} {
		if _, _, err := ParseModuleChunk(c.m.Append(nil)); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	req := (&ModuleRequest{Tag: 1, Mask: 1}).Append(nil)
	if _, _, err := ParseModuleChunk(req); err == nil {
		t.Error("a request parsed as a chunk")
	}
	// The data's length follows from Index and Total: bytes after it are
	// not the chunk's.
	b := (&ModuleChunk{Tag: 1, Index: 0, Total: 2, Data: []byte{5, 6}}).Append(nil)
	if m, n, err := ParseModuleChunk(append(b, 7)); err != nil || n != len(b) || len(m.Data) != 2 {
		t.Errorf("with a trailing byte: %d bytes of data, n %d, %v", len(m.Data), n, err)
	}
	if got := ModuleChunks(2*ModuleChunkData + 1); got != 3 {
		t.Errorf("ModuleChunks = %d, want 3", got)
	}
}
