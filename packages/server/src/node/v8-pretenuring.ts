// The CLI's process turns V8's allocation-site pretenuring off (unless the node command line names it): a turn's
// objects (request, headers, upstream call, response) all lived across the first, small-heap scavenges of a
// warming server, so V8 allocated them in old space from then on, where each died as garbage for a mark-compact.
// With metrics on it did so for ~110 allocation sites instead of ~24, and a stored gateway JSON turn over HTTP
// cost +25-40 µs of CPU, half of it in the GC's helper threads (see the commit that added this file). The promise
// that tipped metrics over is gone (startTurn in responses/turn.ts: 12-15 sites tenured with metrics on, as with
// them off); the flag stays for the sites V8 tenures either way. Since a gateway turn's upstream exchange is an
// object V8 cannot tenure (models/upstream-provider.ts), what it still earns is small: streamed gateway turns over
// HTTP move 1.9-2.2 KB a request into the old generation with it and 2.1-2.7 KB without, and their instructions
// a request differ by 2% or less, either way (callgrind, one 2,500-request window each without a mark-compact,
// 2026-11-30: off 1,175,623 with it, 1,152,781 without; telemetry on 1,252,451 and 1,270,642). Imported by
// cli.ts alone: the library never sets V8 flags in an application's process.
import { setFlagsFromString } from 'node:v8';

if (!process.execArgv.some((arg) => arg.includes('allocation-site-pretenuring')))
  setFlagsFromString('--no-allocation-site-pretenuring');
