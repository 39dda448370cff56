// The CLI's process turns V8's allocation-site pretenuring off (unless the node command line names it): a turn's
// objects (request, headers, upstream call, response) all lived across the first, small-heap scavenges of a
// warming server, so V8 allocated them in old space from then on, where each died as garbage for a mark-compact.
// With metrics on it did so for ~110 allocation sites instead of ~24, and a stored gateway JSON turn over HTTP
// cost +25-40 µs of CPU, half of it in the GC's helper threads (see the commit that added this file). The promise
// that tipped metrics over is gone (startTurn in responses/turn.ts: 12-15 sites tenured with metrics on, as with
// them off); the flag stays for the sites V8 tenures either way. Imported
// by cli.ts alone: the library never sets V8 flags in an application's process.
import { setFlagsFromString } from 'node:v8';

if (!process.execArgv.some((arg) => arg.includes('allocation-site-pretenuring')))
  setFlagsFromString('--no-allocation-site-pretenuring');
