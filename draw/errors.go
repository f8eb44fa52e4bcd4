package draw

import "errors"

var (
	// ErrTruncated indicates a draw list whose count or commands run past
	// the end of the memory it was read from.
	ErrTruncated = errors.New("draw: list runs past the end of memory")
	// ErrTooLarge indicates a draw list over MaxCommands commands, or
	// whose texts and cell blocks add up to more than MaxData bytes.
	ErrTooLarge = errors.New("draw: list too large")
	// ErrBadData indicates a text or cell command whose bytes lie outside
	// the memory the list was read from, or a cell block of no cells or
	// a side over MaxCellSide.
	ErrBadData = errors.New("draw: command's data outside memory")
)
