#!/usr/bin/env node
// resil-sim: the simulation lands with its issue; until then the command prints its usage.
console.log(`resil-sim: virtual-clock simulation of N replicas of @resil/limit (capacity planning)

usage: resil-sim [--replicas N] [--limit L] [--window second|minute|hour] [--load X] [--duration S]

The simulation engine is not built yet: this command only prints its usage.`);
