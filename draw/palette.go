package draw

import "unsafe"

// playerColors are the players' colours, the same in every game.
var playerColors = [...]Color{
	{255, 80, 80}, {80, 220, 100}, {255, 210, 60}, {200, 100, 255},
	{60, 220, 230}, {255, 140, 40}, {255, 120, 200}, {240, 240, 240},
}

// PlayerColor returns player id's colour: the engine's HUD and every
// built-in game draw a player in it.
func PlayerColor(id int) Color {
	return playerColors[(id%len(playerColors)+len(playerColors))%len(playerColors)]
}

// Colours the built-in views share.
var (
	// Background is the canvas's colour behind a game.
	Background = Color{8, 8, 12}
	// White is white.
	White = Color{255, 255, 255}
)

// The engine's HUD font, which text commands draw in, as a game lays out
// text: a glyph is about CharWidth pixels wide, a line LineHeight high,
// its baseline Ascent pixels below its top.
const (
	CharWidth  = 7
	LineHeight = 14
	Ascent     = 11
)

// Indexes returns cells (a grid of a byte-sized type, such as a game's
// materials) as the bytes Cells takes, without copying: they alias.
func Indexes[M ~uint8](cells []M) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(cells))), len(cells))
}
