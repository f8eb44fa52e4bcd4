// Package inputs is rewind's input schema and its bit-exact packing: a
// game declares its input as a struct of fixed-size fields, NewType reads
// it once by reflection into a Schema (NewSchema does the same for an
// untyped reflect.Type), and from then on the server, the clients and the
// wire handle inputs in packed form (Schema.Size bytes); Type.Pack and
// Type.Unpack convert without reflection. The server sanitizes every input
// it accepts (Schema.Sanitize: bounds clamped, enums checked, NaN made 0)
// so every machine applies the same bytes.
//
// A player's inputs form a stream coded as deltas (Schema.EncodeDelta and
// DecodeDelta over a State, written to a BitWriter and read from a
// BitReader): an unchanged input costs one bit, a changed one a few bits
// per changed field. AppendInputs and Decoder code a run of inputs (the
// payload of package codec's ClientInputs); AppendState and LoadState
// carry a State whole (a Welcome's roster). docs/wire.md, "Input schema
// and packed inputs" and "Input delta", gives the bits.
//
// The package knows no message, no player and no clock; package codec
// frames what it codes.
package inputs
