package world

import "errors"

var (
	// ErrNotPlain indicates a type registered in a schema holds something
	// that is not plain fixed-size data (a pointer, slice, map, string,
	// interface, channel, func, a platform-sized int, or padding).
	ErrNotPlain = errors.New("world: type is not plain data")

	// ErrSchema indicates a bad registration: an empty or repeated name, a
	// capacity or size out of range, or a registration after the schema was
	// frozen by New.
	ErrSchema = errors.New("world: bad schema")

	// ErrFull indicates a table already holds as many records as its
	// capacity.
	ErrFull = errors.New("world: table full")

	// ErrLayout indicates a snapshot, world or encoding belongs to a
	// different layout (other registrations, other order, other page size).
	ErrLayout = errors.New("world: layout mismatch")

	// ErrCorrupt indicates encoded world bytes that cannot be decoded into
	// a valid world: truncated or malformed data, a length beyond a table's
	// capacity, a bool byte other than 0 or 1, non-zero bytes past what is
	// in use, or a reference to a page the receiver does not have.
	ErrCorrupt = errors.New("world: corrupt encoding")

	// ErrBase indicates a delta was decoded against a base other than the
	// one it was encoded against.
	ErrBase = errors.New("world: delta base mismatch")

	// ErrMismatch indicates a decoded world does not hash to the world the
	// encoder had (pages applied to a world that changed since its page
	// hashes were taken, or a page-hash collision).
	ErrMismatch = errors.New("world: decoded world hash mismatch")

	// ErrPageList indicates a page list that is not strictly ascending or
	// names a page beyond the world.
	ErrPageList = errors.New("world: bad page list")
)
