package raw

// BotsConfig is a process's raw bots.
type BotsConfig struct {
	// Server is the raw loop's UDP address; Local the bots' IP address.
	Server, Local string
	// Count is the number of bots, Size the bytes of each datagram,
	// Rate the datagrams a second of each.
	Count, Size, Rate int
}
