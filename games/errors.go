package games

import "errors"

var (
	// ErrUnknown indicates a game name no game registered and no
	// resolver took (the error names the registered games).
	ErrUnknown = errors.New("games: no such game")
	// ErrDuplicate indicates a second game registered under a name.
	ErrDuplicate = errors.New("games: game registered twice")
	// ErrDef indicates a Def the registry cannot take: no name or New,
	// an input type the engine cannot carry, a bad setting.
	ErrDef = errors.New("games: bad game definition")
	// ErrSettings indicates a setting's value out of its range, or
	// settings a game cannot be made of.
	ErrSettings = errors.New("games: bad settings")
)
