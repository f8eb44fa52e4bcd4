package module

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewindnet/rewind/world"
)

// Describe names where in a module's world a difference lies (world.Diff,
// the desync debugger): "address 2056 (0x808)" for a byte of the linear
// memory, "global 3" for a mutable global (by its index in the module),
// "memory size" for the page count; d itself formatted for anything else.
func Describe(d world.Difference) string {
	switch d.Table {
	case "memory":
		if d.Row < 0 || d.Field == "row" {
			return "memory size"
		}
		i, err := strconv.Atoi(strings.Trim(d.Field, "[]"))
		if err != nil {
			return d.String()
		}
		a := d.Row*wasmPage + i
		return fmt.Sprintf("address %d (0x%x)", a, a)
	case "globals":
		return "global " + strconv.Itoa(d.X)
	}
	return d.String()
}
