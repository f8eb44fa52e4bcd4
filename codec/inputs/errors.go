package inputs

import "errors"

// Truncated input is reported as io.ErrUnexpectedEOF (possibly wrapped);
// the errors below are the other ways a schema, an input or its coding can
// be bad.
var (
	// ErrBadSchema indicates an input struct type that cannot be made a
	// Schema (a field of an unsupported kind, a malformed tag, too many
	// fields).
	ErrBadSchema = errors.New("inputs: bad input schema")
	// ErrBadEnum indicates an enum field whose value is outside its bounds.
	ErrBadEnum = errors.New("inputs: enum value out of range")
	// ErrSize indicates a packed input of the wrong length.
	ErrSize = errors.New("inputs: packed input of wrong size")
	// ErrMalformed indicates bits that are not a valid input coding (a bad
	// code, a value out of range, a non-canonical form). Package codec's
	// ErrMalformed is this same error, so one errors.Is test covers a
	// malformed message and a malformed input inside it.
	ErrMalformed = errors.New("codec: malformed encoding")
)
