package gateway

// SetOnTake has gw tell f each input's sequence and the newest tick sent
// to its player when the player took it. Call it before any connection.
func SetOnTake[I any](gw *Gateway[I], f func(seq uint64, tick uint32)) { gw.onTake = f }
