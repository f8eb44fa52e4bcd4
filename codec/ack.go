package codec

import "github.com/rewindnet/rewind/codec/reliable"

// The wire form of a reliable.Ack inside ClientInputs and ServerTicks.

// appendAckRel writes a.Next relative to ref (zigzag varint) and the mask
// varint when present (flag handled by the caller).
func appendAckRel(b []byte, a reliable.Ack, ref uint32) []byte {
	b = appendUvarint(b, zigzag(int64(int32(a.Next-ref))))
	if a.Mask != 0 {
		b = appendUvarint(b, a.Mask)
	}
	return b
}

func ackRelLen(a reliable.Ack, ref uint32) int {
	n := uvarintLen(zigzag(int64(int32(a.Next - ref))))
	if a.Mask != 0 {
		n += uvarintLen(a.Mask)
	}
	return n
}

func readAckRel(b []byte, pos *int, ref uint32, hasMask bool) (reliable.Ack, error) {
	var a reliable.Ack
	z, err := readUvarint(b, pos)
	if err != nil {
		return a, err
	}
	d := unzigzag(z)
	if d < -1<<31 || d >= 1<<31 {
		return a, errMalformedf("ack offset %d", d)
	}
	a.Next = ref + uint32(int32(d))
	if hasMask {
		if a.Mask, err = readUvarint(b, pos); err != nil {
			return a, err
		}
		if a.Mask == 0 {
			return a, errMalformedf("ack mask flagged but zero")
		}
	}
	return a, nil
}
