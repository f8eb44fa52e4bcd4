package codec

import "testing"

func TestWorldChunk(t *testing.T) {
	data := make([]byte, MaxChunkData)
	for i := range data {
		data[i] = byte(i)
	}
	for _, m := range []WorldChunk{
		{Tag: 1, Transfer: 1, Tick: 99, Index: 0, Count: 1, Offset: 0, Total: 3, Data: []byte{1, 2, 3}},
		{Tag: 200, Transfer: 1 << 31, Tick: 1<<32 - 1, Index: MaxChunks - 1, Count: MaxChunks, Offset: MaxTransfer - MaxChunkData,
			Total: MaxTransfer, Data: data},
		{Tag: 2, Transfer: 5, Tick: 1, Index: 1, Count: 2, Offset: 10, Total: 10},
	} {
		checkMessage(t, &m, ParseWorldChunk)
	}
	for name, m := range map[string]WorldChunk{
		"index":  {Index: 2, Count: 2, Total: 1},
		"count":  {Index: 0, Count: 0, Total: 1},
		"past":   {Index: 0, Count: 1, Offset: 1, Total: 3, Data: []byte{1, 2, 3}},
		"total":  {Index: 0, Count: 1, Total: MaxTransfer + 1},
		"chunks": {Index: 0, Count: MaxChunks + 1, Total: 1},
	} {
		_, _, err := ParseWorldChunk(m.Append(nil))
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
