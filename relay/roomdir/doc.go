// Package roomdir is the rooms relay's directory: what every relay
// process knows of a room code (Record: the room's key, its owning relay,
// whether it ended). The hub of package relay calls it through Directory
// (Memory, in one process) and, for a fleet of relays, through Fleet
// (Redis: the rooms, the relays' liveness, the failed-join throttle per
// address, the on-demand slots and the relays' pub/sub channels). This is
// the only package of the relay that talks to Redis.
package roomdir
