package tab

// MaterialRGB is a sand cell's colour by material (0 empty, 1 sand, 2
// water, 3 wall): the page and the window draw the grid with it.
var MaterialRGB = [4][3]byte{
	{18, 18, 28},
	{222, 190, 112},
	{58, 118, 228},
	{128, 128, 140},
}

// playerRGB is the palette of players' colours.
var playerRGB = [...][3]byte{
	{255, 80, 80}, {80, 220, 100}, {255, 210, 60}, {200, 100, 255},
	{60, 220, 230}, {255, 140, 40}, {255, 120, 200}, {240, 240, 240},
}

// PlayerRGB returns player id's colour.
func PlayerRGB(id uint16) [3]byte { return playerRGB[int(id)%len(playerRGB)] }

// MaterialNames are the materials' names as the HUD shows the one chosen.
var MaterialNames = [4]string{"erase", "sand", "water", "wall"}
