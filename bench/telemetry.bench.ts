// What OpenTelemetry costs the server, side by side in one run: off, metrics only, and spans and metrics on,
// for the embedded model and for the gateway in front of the Chat Completions stub; over HTTP (the CLI three
// times) and without HTTP (three processes running `service.handle` turns). See fixtures/telemetry-overhead.ts;
// first the SDK's own span path per span, stage by stage, against the API's no-op spans (fixtures/span-floor.ts),
// then whole turns' spans stage by stage in one process (fixtures/span-stages-turns.ts).
// First of all, "telemetry on" split by part against off in ONE process (fixtures/telemetry-split-turns.ts:
// metrics only; traces only at 0/10/100% sampled at the head; both; an application's own SDK sampling each span
// itself), for an embedded and a gateway JSON turn. TELEMETRY_SPLIT_ONLY=1 stops after it; TELEMETRY_SAMPLING_SWEEP=1
// runs only the sampling sweep (fixtures/sampling-sweep.ts).
// Every in-process row (split, stages, the four processes, the sweep, the floor in one process) exports every
// span it makes: each of a setting's 16 lanes yields to the event loop after each turn, as a server's concurrent
// requests do, and a span dropped at the export's queue fails the bench (SpanTally in fixtures/service-turns.ts;
// each fixture prints its spans made, exported and dropped when it ends). Before 2026-11-30 (bench-drops) the
// embedded turns, microtasks only, never let the export run until a slice ended: its 2,048-span queue full, most
// spans dropped (42,880 of 44,928 over six 2,496-turn slices), so the embedded rows' spans cost less than a
// server's; the gateway turns yield on the upstream's I/O and dropped none. Callgrind, instructions an embedded
// JSON turn (8 slices of 2,496 less 4, GC and compiler functions left out; telemetry set up as telemetry-turns.ts):
// off 101.7k without the yield, 110.2k with it (the event loop's turn, in off and on alike); spans and metrics
// on added 9.3k with the spans dropped (1.09x), 30.9k with every span exported (1.28x).
//
// Allocation note (issue 35's twenty-fourth session, tel-alloc; 2026-12-01, built on 50a2059, load 1-5 with two
// other sessions). Is the time telemetry costs past its instructions (this session's puzzle) its garbage? No. The
// built package, `service.handle` turns 16 at a time as telemetry-turns.ts runs them (the bench's settings: metrics
// = the Prometheus reader, both = that and OTLP http/protobuf spans and metrics), one process per setting, 8,000
// warm then 32,000 counted turns, `--trace-gc-nvp` with and without `--predictable`, default 16 MiB semi-space,
// two to four runs each: allocated a turn (total_size's growth between GCs) / scavenges a 10k turns / bytes a
// turn surviving a scavenge / promoted:
//   embedded JSON  off 21.5 KB / 16.6 / 1.69-1.73 KB / 1.64-1.68 KB; metrics 21.1-21.5 / 16.2-16.6 / same / same;
//                  both 23.3-23.9 KB / 17.8-18.1 / 1.66-1.69 KB / 1.61-1.64 KB
//   gateway JSON   off 40.7-41.7 KB / 30.0-30.6 / 1.76-1.95 / 1.65; metrics 41.1-41.4 / 30.6; both 42.6-43.6 KB /
//                  31.9-32.5 / 1.76-1.93 / 1.61-1.63
//   gateway SSE    off 80.6-81.2 KB / 58.8-59.1 / 2.08-2.14 / 1.64-1.65; metrics 80.5-81.8 / 58.8-59.7; both 82.3-
//                  82.4 KB / 60.6-60.9 / 2.19-2.41 / 1.66
// Mark-compacts: none to two in a 32,000-turn window, in every setting. What is promoted is the in-memory store's
// responses, the same with telemetry off. The sampling heap profiler counting only objects that outlived a scavenge
// (includeObjectsCollectedByMinorGC false) finds ~100 B a turn at telemetry's sites; with every object (64-byte
// interval, --no-turbo-inlining to name the sites) an embedded turn's +2.4 KB is its three fixed spans (OwnFixedSpan
// 200 B each with its start and end as 16-byte heap numbers, ~700 B; SpanIds 88 B each, 264 B), clock readings as
// heap numbers (~230 B), MeteredTurn (128 B), the export's onEnd (122 B) and the turn's traced options and closures
// (~300 B). So telemetry adds 1-11% to what a turn allocates, 3-9% more scavenges, and no survivors: scavenges on
// the main thread (--predictable) +0.5-0.9 µs an embedded turn (three pairs), +0.9-1.3 µs a gateway JSON turn and
// +0.6-1.2 µs a gateway SSE turn (one run each) of the +5-20 µs telemetry costs, each scavenge 10-30% longer with no
// more bytes to copy (callgrind counts the GC's instructions no higher: embedded 9.5k a turn off, 8.3k on; gateway
// JSON 16.3k off, 11.2k on; gateway SSE 33.3k off, 30.0k on; 4,000 turns each, --predictable), and a cut of the span
// objects (~1 KB a turn, ~4% of an embedded turn's scavenges) would save ~0.1 µs: none was made. What does move a
// round is the mark-compact: started when the old generation reaches its limit, which the store's promoted responses
// fill at the same rate in every setting (three in a process's first 68,000 gateway JSON turns, off or on), its
// concurrent marking costs V8's helper threads 50-200 ms at 55-117 MB (nvp background.mark), 2-6 µs a turn over a
// 32,000-turn window and 15-60 µs a turn in a 3,200-turn round it lands in; one gateway window with no mark-compact
// in it still showed the helpers at 11.5 µs a turn against 3.2-4.1 in the others (marking, it seems, that finished
// after it). Timed rows need enough rounds to hold as many mark-compacts in each setting (or the same count of
// stored turns before each round).
// Where the time goes instead, by callgrind's cache simulation (--cache-sim=yes with this host's L1: instructions 32
// KB, data 48 KB; 4,000 turns a window, --predictable, the metric export outside it; GC left out): an embedded JSON
// turn's instructions 107.6k -> 130.9k with telemetry (+22%), its L1 instruction misses 4,453 -> 5,973 (+34%) and
// data read misses 1,608 -> 2,243 (+39%); a gateway JSON turn's 295.8k -> 337.0k (+14%, its span batches' POSTs in
// the window), 11,860 -> 14,162 (+19%) and 4,413 -> 5,650 (+28%); a gateway SSE turn's 881.0k -> 938.8k (+6.6%),
// 23,301 -> 27,087 (+16%) and 6,856 -> 8,469 (+24%). The tracer and encoder miss once in 15 instructions, the turn
// code once in 16 and the natives once in 32: telemetry's code runs once or a few times a turn, cold each time
// behind a turn's code far larger than the 32 KB cache: TurboFan's code of the telemetry files is ~110 KB in 53
// functions (--perf-basic-prof's map: startFixed 8.4 KB with the constructors it inlines, writePair 6.5, SpanIds
// 5.5, endTurnSpan 5.4, writeSpan 5.3), and an embedded turn misses ~900 lines of it (~58 KB: the tracer and encoder
// 624, the span glue 200, metrics 81). At ~14 cycles a miss served from L2 that makes telemetry +27% of an embedded
// turn, +17% of a gateway JSON turn and +10% of a gateway SSE turn, against +22%, +14% and +6.6% in instructions:
// part of the gap to the timed rows (+32-43%, +18-23%, main thread +10.5-11.5%). What lowers it is less code run
// once a turn (fewer, smaller functions on the span path), not fewer objects; not TurboFan inlining less either
// (--max-inlined-bytecode-size-cumulative=460, half the default: the embedded turn's telemetry ran 1.1k instructions
// more and missed as often, +1,478 lines against +1,522).
//
// Span-cold note (2026-12-01 04:00-04:40 UTC, issue 35's twenty-fifth session, span-cold; load 2-11, three other
// sessions; nothing landed). Less span-path code a turn, tried two ways on a5d7ea7's build: stored gateway JSON and
// embedded JSON turns in process (both on), callgrind --cache-sim=yes, 3,000 turns counted after 3,000 + 3,000,
// compiles and sweeping left out; the tracer and encoder's JS a turn:
// - The rare parts out of line (ProtobufBuffer.reserve's growth, the id pool's refill, `end` with a given time, a
//   batch's new group, the export's timer, writeSpan's ids from hex and its fields from 10 on for events or links):
//   TurboFan's code of these files 66 -> 50 KB (perf map), but a gateway turn's instructions 12.3k -> 12.3k and L1
//   instruction misses 905 -> 884 (one run): the code cut was code never run; what runs is as long as before.
// - A turn's spans encoded together: the export holds a span under one of the process's spans until its local root
//   ends, then encodes them in the order they ended (same bytes), so the encoder runs warm from the second span on.
//   Alone: gateway 12.3k/12.4k -> 12.3k instructions, misses 905/910 -> 622 (-31%: writeSpan 122 -> 40,
//   encodeFromHead 112 -> 40, writeOwnIds 89 -> 35); embedded 9.06k -> 9.07k, 622 -> 466 (-25%). With the first
//   change too, TurboFan inlined encodeFromHead into the smaller writeSpan and called its helpers instead: +0.4-0.8k
//   instructions, about as many misses saved. Whole turns move by a mark-compact in the window (+30-57k), so only the
//   span path's rows are read.
// Timed, alternated A/B (one process each, 30 rounds of 4 x 1,600 turns after 40 slices, process CPU): the
// encoding together alone, gateway 61.6 -> 61.9 µs (lower in 13 of 30 rounds) and 57.0 -> 56.2 (15 of 30) at load
// 1.7-2.6, embedded 20.6 -> 20.1 (16 of 30); both changes at load 7.6-11, gateway +2.0% (10 of 30) and -1.0% (20
// of 30), embedded 16 of 30; scavenges and mark-compacts the same (37 and 3 in 20,000 gateway turns). -280 misses
// a gateway turn at the ~14 cycles the cold-code note supposes would be ~1.3 µs (~2%): not seen, so a cold line
// costs less here (L2 hits, prefetched) and the span path's misses are no visible part of telemetry's time. Time
// not lower: not landed; both are on the span-cold-wip branch (the second alone is its otlp-span-export.ts).
//
// Floor note (issue 35's fourteenth session, tel-floor; 2026-11-29 21:10-21:55 UTC, load 10-17 from four other
// sessions and this one's callgrinds). TELEMETRY_FLOOR_ONLY=1 runs only the telemetry floor: the least work any
// Node server must do to trace and meter a stored gateway JSON turn as the CLI does (fixtures/telemetry-floor.ts,
// the bare translator's BARE_TELEMETRY=floor: the caller's traceparent parsed, the CLI's four spans with pooled
// random ids and the upstream's traceparent, the same OTLP http/protobuf bytes batched 512 spans a POST to the
// sink process, the CLI's 8 histogram records and 3 counter adds into typed arrays, six clock reads). Its
// self-check decodes the floor's export and the CLI's (fixtures/otlp-decode.ts) and compares them span by span,
// field by field (ids, times and the response id by their shape and links): equal, and the same byte count.
// Then bare off / bare + floor / CLI off / CLI on over HTTP, and in one process (=process: that half alone)
// `service.handle` turns off / off + the floor's work / the CLI's spans and metrics, rotating rounds.
// - The floor's own work (floor-only loop of telemetry-floor-turns.ts, callgrind --predictable, 60,000 turns less
//   20,000, the sink in another process): 21.2k instructions a turn (31.1k before the floor kept the turn span's
//   model-bound attributes as one block and read the clock through perf_hooks), of which its JavaScript ~8k,
//   TypedArray set ~2.4k (about 12 copies of kept bytes), compilation still running ~2.6k; the kernel's copy of
//   the batches to the socket (~0.5 µs a span by the seventh note's profile) is not in it. Against a stored
//   gateway JSON turn of ~310-340k instructions off (the eighth and tenth notes), the floor alone is ~6.5% of
//   the turn: two thirds of the +10% (~32k) go to the least tracing and metering any Node server can do.
// - In one process, CPU a turn (9 rotating rounds of 3,200 after 8 x 3,200 each): off 283.6 µs, the floor +22.6
//   µs (+8.0%; the floor before that cut and before it reused its batch buffers), ours +52.7 (+18.6%) at load
//   11-13; off 277.0, the floor +14.5 (+5.2%), ours +51.2 (+18.5%) at load 10-12 (both on 54b3767's build);
//   on 0491c87's (tel-enc's a343d5d in), 11 rounds at load 6.6-8.7: off 249.8, the floor +16.4 (+6.6%), ours
//   +64.4 (+25.8%), off's rounds 172-273 µs. Ours spends 2.3-3.9x what the floor does, ~30-48 µs a turn above
//   it at this load (idle figures are about half: the lead's idle run decides). The instructions of ours are not
//   measured side by side here; the latest whole-turn counts are the tenth note's (spans +93.9k, metrics +34.6k
//   of which ~13k the scrape, on 76dc8a5) less the cuts since (store spans ~2.4k, encoder ~6k, metrics'
//   clock reads ~1.2k): of the order of +110-120k against the floor's ~21k, plus what either's export costs the
//   kernel.
// - Over HTTP the machine was too busy to read: bare 512 / 1,350 µs a request (idle ~80-110), the floor +21 /
//   +272 µs (2.8% / 10.0% of the gateway's off 739 / 2,714), ours +224 / +1,386 (30% / 51%), with per-round
//   differences of the floor from -372 to +503 µs (load 12.7, then 11.5-13 with two callgrinds beside).
// So "+10% a turn" cannot hold the CLI's four spans with ~20 attributes and 11 metric records at today's turn
// cost unless the spans' glue and encoding come down to near the floor's ~21k; the floor says the rest of the
// budget after the least work is ~11k instructions, less than the server's span glue alone measured before
// (+11-45k in the eighth and tenth notes).
//
// Sampling note (2026-11-29, issue 35's tenth session, load 5-11 from four other sessions). Why 10% sampled cost
// 60-100% of what 100% costs: fixtures/sampling-sweep.ts (TELEMETRY_SAMPLING_SWEEP=1 runs it alone, ~2-5 min):
// embedded JSON turns, one process per setting, metrics on in each, 48-64k warm turns, then 32-48 rotating rounds
// of 3,200 turns; main-thread CPU from /proc/self/task/<pid>/schedstat (ns; the stat file's 10 ms ticks were
// +-6 us a turn in a slice of 1,600), median round. The fixture's own run (load 6.2): metrics 23.6 us a turn,
// 0% 22.4, 10% 27.0 and 27.5 (two processes), 10% with its draws made to miss (`forced 0.1`) 20.5, 10% sampled in
// runs of 160 requests (`burst-0.1`) 26.4, 100% 30.6 and 30.1. (1) The 10% excess swings between runs and
// processes: 57-64% of what 100% adds in that run; in another (load 5.5-7) three 10% processes read 34.0, 33.2
// and 38.8 beside 0% 33.6/31.6 and 100% 40.3/40.7 (5%, 18% and 78%), where twins of 0% or of 100% agreed within
// 0.4-2 us; single 10% processes in four more runs: 7%, 14%, 39%, 173% (load 11). (2) Steady in every run: a 10%
// process's sampled-out turns cost what a 0% process's do (`forced` against 0%: 31.1/30.6, 22.6/21.9, 27.0/29.2,
// 20.5/22.4). The excess is the sampled turns': each costs 3-8x what a turn at 100% adds (+24 us against +7.4 in
// one run, +65 against +8.0 in the fixture's). (3) Not compilation still running, nor GC: --trace-opt after 48k
// turns, 2-3 TurboFan compilations in the next 48k at each of 0/10/100% and no deopts; scavenges 73/77/91 and one
// mark-compact per 48k turns; at 10% the sampled path's functions reach TurboFan after 13-16k turns (3,200 at
// 100%). (4) Not the interleaving of sampled and sampled-out turns (cold caches): bursts of 160 cost what random
// draws do (26.4 against 27.0/27.5; 29.8 against 29.6 in another run). (5) What differs is the compiled code
// (--trace-turbo-inlining, 64k turns of 0% and of 10%): the 10% process inlines the sampled path's callees into
// functions both paths run (the runner's begin: depsFor, startTurn, meterTurn; the traced store's put), and in
// that process not the untraced path's callees into prepareTurn (validateCreateResponseBody, normalizeInput,
// validatorFor, supports, randomId, each inlined at 0%). Likely, not proven per function: the sampled path runs
// code compiled for the untraced turns' feedback (shared functions' polymorphic sites, the store wrapper's
// per-turn closures, the runner's dependencies rebuilt for each traced turn), where at 100% it is compiled for
// itself. Not fixed this session: the remedy to try is fewer functions that both paths run (responses/runner.ts:
// the traced store and its dependencies kept apart from the untraced ones; the store wrapper a class), measured
// with two processes per setting (one process proves nothing either way). The 10% rows below ("10% sampled",
// "both-10", "sampled") carry this: read them beside a second run. Clock reads (item 2), CPU per call in a loop (9
// rounds of 2M, load 6): performance.now() 62-66 ns, process.hrtime.bigint() 65-69, Date.now() 51-55;
// performance.now stays, and a metered JSON turn reads it twice less (the answer's overhead and duration share one
// read, the model labels' age is checked against the turn's start): ~0.13 us of the metrics' 2-3 us. Traces at
// 0% beside metrics alone, three runs: -1.1, -0.3, -1.2 us (the head sampling check costs nothing seen).
// Sampling, instructions (2026-11-30, issue 35's twenty-first session, load 4-9). Callgrind of the built package
// (fbd1f97), JSON turns through `service.handle` in process, 16 lanes, parentbased_traceidratio, metrics off, no
// pause: 24k warm turns (a new service every 4k: the memory store slows past 10k entries), instrumentation on,
// 2.5k re-warm, ~2k counted, turns counted by Builtin_JsonParse calls (once a turn embedded, twice gateway);
// "steady" leaves GC and compiles out (a 2k-turn window holds 0-2 scavenges). Thousands of instructions a turn,
// total / steady / megamorphic IC calls; "missed": a 10% process warmed on 10%, its draws then made to miss:
//   embedded: 0% 118.5 / 106.4 / 22.1; 10% 120.8 / 109.4 / 22.2; 10% missed 118.6 / 106.7 / 22.1;
//             100% 140.7 / 129.9 / 22.6. 10% adds 13% of what 100% adds (steady), near a tenth.
//   gateway (stored): 0% 294.3 / 273.7 / 225; 10% 308.5 / 278.5 / 245; 10% missed 310.3 / 283.3 / 258;
//             100% 328.7 / 303.4 / 250. 10% adds 16% (steady). Every row with spans exported has +20-33
//             megamorphic calls a turn in node:http's agent and streams (keepSocketAlive, addRequest,
//             removeSocket, its 'free' listener), and the missed row's +9.6k is mostly there (node's code in
//             baseline or generic loads): the span export's own requests (another agent, maxSockets 1, another
//             peer's headers) share that code with the upstream calls, so every turn pays while any export
//             flows, sampled or not. One run each: the gateway's whole turn moves +-2-8k between runs.
// No deopt when a turn switches kind (--trace-deopt, 2k counted gateway turns: 6 at 0%, 6 at 10%, 5 at 100%, all
// in node's http and stream code). A trap in the callgrind harness of the last sessions (--predictable
// --no-incremental-marking --max-semi-space-size=64): without incremental marking each mark-compact deopts ~45
// functions at once ("weak objects": writeSpan, startFixed, endTurnSpan, the runner's run, ...); none with V8's
// defaults, --single-threaded-gc or --predictable alone. At 10% the sampled path then runs in Sparkplug code
// until its own calls make it hot again, ten times as many turns as at 100%. With that flag 10% read 124.0 /
// 112.1 embedded (23-27% of what 100% adds; writeSpan and the span ends at baseline in the profile), and what a
// sampled turn cost was the count window's luck. So in instructions the mix costs its parts once the harness
// keeps incremental marking (`--predictable --max-semi-space-size=64`); the timed rows' 10% excess above is not
// in instructions at this build: compare it in time, two processes per setting.
//
// Measure note (2026-11-29, issue 35's ninth session, load 5.7-9 from three callgrinds of other sessions).
// Why "the same without HTTP" (four processes) swung by 40-250 points a round: (1) warm-up. Each process ran
// 1,600 turns before its rounds, and the rounds were sized from the cheapest process at that point, which
// still cost ~180-270 us a turn (V8 compiling): 2,720 turns a round, ~75 ms of CPU at the steady ~27 us, not
// 0.5 s; and the measured rounds were still compiling (off read 80, 99, 46, 50, 41, 28, 26, 27 us over eight
// rounds; process CPU up to 2x its main thread's, the difference V8's compiler threads). Steady needs tens of
// thousands of turns. (2) CPU spent between rounds (the metric exporter's timer, span batches' export, the
// scrape: up to 35 us a turn in a round's terms) was not counted, or fell into whichever round it hit.
// (3) the machine's other work changes by the second, and a setting's round ran seconds after another's.
// Now: each process warmed for 3 s of its own CPU (chunks of ~0.25 s, interleaved), rounds of ~0.6 s at the
// steady cost (26,624 embedded JSON turns), each cut into 8 slices interleaved across the four processes,
// every microsecond a process spends charged to its next round (since its previous answer), the main
// thread's CPU beside the process's (from /proc/<pid>/task/<pid>/stat), 10 rounds, the lowest round too
// (other work only adds). Embedded JSON, per-round spread of "both on" against off: 150 points with the old
// warm-up (load 5.7: -44% to +106%), 57 points now at load 8.3 (+16% to +73%; 10% sampled 60, metrics 45
// points); medians off 27.5 us (main thread 23.7), metrics +10.9% (lowest rounds +5.8%), both +35.0% (lowest
// +38.4%), 10% sampled +44.4% (lowest +35.1%). The one-process tables (split, stages) warm their settings
// together for 6 s of CPU the same way. Over HTTP: each CLI is warmed by 20,000 requests of each case (was
// 5,000), 7 rounds (was 5), and CPU between rounds is charged to the server's next round; at load 11-12 its
// rounds still swung by 350 points (off 349 us a request, 3.5x an idle run): over HTTP needs an idle machine.
// 10% sampled against 100%: with the steady measure a 0% sampled process costs what metrics alone cost (the
// sampled-out path is a check: startServerSpan's extract and decision, one shared UNTRACED scope), yet 10%
// costs 60-100% of what 100% costs, in four processes and in one. No deoptimization in the measured rounds
// (--trace-deopt: 0 in each of zero/10%/100% after 100k turns); a CPU profile of 10% against 0% spreads the
// difference over the turn's own functions (response-json's fastText, the middleware, parseJson, the
// deterministic model's parts, createStreamWriter as a frame of its own, i.e. not inlined: +0.4-1.2 us each),
// not over the span code. Likely (not proven here) the 10% process's compiled code serving two shapes of turn,
// traced and not, where 0% and 100% serve one; a sampled request's context is now of the same class either way.
// Four processes at 0/10/100% beside metrics only (embedded JSON, 16,000-turn rounds after 32,000 warm, load
// 9-10, on 05c6abc): medians metrics 27.7, 0% 29.4, 10% 33.8, 100% 34.1 us; lowest rounds 27.0 / 27.5 / 31.6 /
// 31.7. Rows with the steady measure (05c6abc's build less its last cut, load 8.5-10.6; median, [lowest round]):
// embedded JSON off 35.7 us, metrics +11.0% [+8.2%], both +50.1% [+40.1%], 10% +39.1% [+28.7%]; embedded SSE
// off 550, +1.6% [+3.4%], +16.7% [+13.5%], +12.0% [+7.4%]; gateway JSON off 177, +14.0% [-0.3%], +85.0%
// [+76.3%], +66.1% [+50.1%]; gateway SSE off 361, +14.2% [+14.2%], +49.2% [+47.6%], +27.8% [+28.4%]. Cuts of
// this session (35ff05a, 05c6abc, 9a58426; base and new builds interleaved in one run, load 7-14): metrics
// only 0.960x, 10% 0.968x, both 0.984x a turn (embedded JSON); a metric value 22 -> 11 ns, an attribute set
// 46 -> 8 ns; a 10% sampled gateway JSON turn 0.906x (before tel-enc's 79d3337, which takes the same path).
// Callgrind could not give the after-figures here either: 6,000 warm turns under valgrind at load 12 read
// 467k/416k instructions a turn for the base and 195k/174k for the new build, a JIT-state difference, not ours.
// Profile note (2026-11-28, issue 35 item 3, load 13-19 from other jobs). The processes of the rows below
// differ by tens of points from one another with the same code, so the spans' cost was also taken in one
// process: the SDK registered, then trace.disable() and re-registering its provider in alternating rounds
// (metrics on throughout), on main up to 963bb38. Spans added 26-41 us per stored embedded JSON turn (3 spans,
// +33-39% of its ~71-89 us), 19-74 us per embedded SSE turn (2 spans, +4-15%), and 145-206 us per stored
// gateway JSON turn (4 spans, +48-72%); without the client span or without propagation the gateway figure
// stayed ~150 us. span-floor puts the SDK's path at ~8.5 us a span (lowest round; ~2.5 us its span object,
// ~6 us the OTLP exporter: transform and JSON.stringify ~2.5 us, its HTTP writes the rest; http/protobuf
// the same), no-op spans at 0.25 us. A time-sliced profile of the gateway rounds (samples of the on and the
// off rounds apart, per turn, profiler-inflated) put the added CPU in garbage collection +36 us, the
// exporter's writev +23 us and serialization +21 us, the SDK's startSpan/SpanImpl/time stamps +26 us, the
// API's context and the server's own span glue ~20 us. The gateway's excess over 4 x 8.5 us is not
// explained by any one frame (most of it GC and the exporter's writes, as the spans outlive the upstream
// wait). Even at the floor, the 10% target needs turns of ~250 us (3 spans) to ~340 us (4 spans) of CPU.
//
// Stage note (2026-11-28, issue 35's last session, load 3.4-8.8; fixtures/span-floor.ts and
// span-stages-turns.ts, OTLP receivers in another process, no span dropped). Per span of a stored turn's
// three: the API's no-op span 0.23-0.36 us; the SDK's span started and ended 2.2-3.7 us (a span id 0.13-0.16,
// a trace id 0.18-0.21, time stamps 0.35-0.58, sanitizing 4 attributes 0.09-0.18 us per call; the rest the
// span object, sampler, setAttribute and end); the batch queue +0.2-0.3; OTLP serialization +4.0-5.1 (the
// SDK's protobuf writer, each call serving a size estimator and then a writer, costs what its JSON transform
// and JSON.stringify do); the whole OTLP export 8.2-11.6 us a span over http/protobuf (the default), the same
// over http/json, 10.4-14.1 over gRPC. Batches of 2,048 cost what 512 do (7.3 vs 7.6 us), 128 more (13.4).
// Whole embedded JSON turns in one process (off 38-40 us): the server's own span work, with spans that cost
// nothing, +4.1 to +8.4 us; the SDK's spans without export +5 to +22; their export +3 to +19. At ~9-10 us an
// exported span, +10% needs ~90-100 us of turn per span: 270-300 us for a stored embedded turn (3 spans),
// 360-400 us for a gateway turn (4 spans). SSE rounds in process swing by +-50 us, more than the spans cost.
//
// Split note (2026-11-28, issue 35's fifth session, three runs at load 10-2.4; the first table, every setting
// against off in one process). Head sampling (the CLI decides once per request, before the SDK) leaves a
// sampled-out request within the rounds' spread (embedded JSON: -1.0 / +3.3 / +6.4 us; gateway JSON: -2 / +11
// / +7 us), where an application's own SDK sampling each span costs +4.3 / +18 / +13 and +51 / +20 / +42 us.
// Metrics' own calls are 0.83 us a turn measured alone. 10% sampled costs more than a tenth of 100% in most
// runs: each sampled turn 5x, 5x and about 1x what it costs when all are sampled (embedded), 1.4x and 3.5x
// (gateway). Ruled out: deoptimization (--trace-deopt: one a setting in the measured rounds). Profiles of one
// setting per process (--cpu-prof, 80,000 embedded JSON turns each, load 2.5-3.4) say where it goes: garbage
// collection 7.1 us a turn off, 7.4 at 0%, 11.7 at 10%, 13.0 at 100%: at 10% GC adds 80% of what it adds at
// 100%, as a sampled span lives until its batch of 512 is exported (10x longer at 10%: it is promoted to the
// old generation instead of dying young); and each sampled span's SDK work costs ~3x per call at 10% (the
// SDK's startSpan 2.9 us a call against 0.9 at 100%: code and data run a tenth as often, cold). A batch of 51
// at 10% cost what 512 did in a short check outside the bench (not settled). So sampling saves less than its
// share on cheap turns; what would save it is a span that does not live as an object graph until export (an
// encoder writing each ended span at once), which is item 4 below.
// A span path of our own (item 4) was not built in the sixth session (its arithmetic: ~3-4 us a span, 2.5-3x
// cheaper). Own span path note (2026-11-29, issue 35's seventh session, load 9-16 throughout: figures are
// relative, same process, interleaved). Built and made the CLI's default for OTLP http/protobuf:
// telemetry/otlp-protobuf.ts encodes each span into its batch's buffer as it ends (byte-equal to the SDK's
// ProtobufTraceSerializer, test/otlp-protobuf.test.ts), node/otlp-span-export.ts POSTs the batches (bounded,
// drops counted), node/own-tracer.ts replaces the SDK's tracer behind the API (pooled random ids, one
// performance.now() a start and an end, starting attribute sets kept as given and, frozen, encoded once).
// span-floor (three spans of a stored turn, 9 rotating rounds, load 13.1), CPU us per span, median (lowest):
// the SDK's span alone 2.62 (2.54); the SDK's spans + its OTLP http/protobuf export 9.89 (8.99); the SDK's spans
// + our export 6.31 (5.27); our spans + our export 3.90 (3.66): the whole span path 2.5x cheaper, the export
// alone (minus the SDK's span) 7.3 against 3.7 us, 2.0x. Encoding alone (a scratch loop over the same spans,
// load 9-12): ours 2.6-3.3 us a span, the SDK's serializer 5.2-7.5. A profile of our path alone (load ~13):
// the batches' writev to the socket is the largest frame (~12% of the CPU: ~0.5 us a span, the kernel's copy
// of ~130 KB a batch), then hex ids, the attribute encoding, performance.now (2 a span); GC ~3%. Whole turns
// in one process under callgrind (instructions per embedded JSON turn, counters zeroed after 800 warm turns,
// 1,600 turns; the OTLP sink in another process): off 861k, the SDK's spans and export 2,013k (+134%), ours
// 1,407k (+63%): the spans' added instructions cut 2.1x; with spans that cost nothing (span-stages' `own`
// stage: the server's own span work alone) 1,262k (+47%), so of the +546k our tracer and export are 145k and
// the server's span glue (telemetry/tracing.ts, service/telemetry.ts: contexts, attribute sets, traceparent,
// end-of-turn attributes) 401k, now the larger part (the SDK's tracer and export were 751k). Under callgrind
// the glue may include V8 still compiling the traced paths after 800 warm turns; the next cut is there. The split table of `npm run bench -- telemetry` (load
// 13.8): traces 100% sampled +13.4 us (+39.5%) on a 38.7 us embedded JSON turn, both +22.4 us; the idle runs on
// b6a1ea3 (the SDK's path) read +30.8 / +39.4 and +30.2 / +44.9. The SDK's path stays for http/json, grpc,
// compression, certificates, other exporters (OPENRESPONSES_OTEL_SPAN_EXPORT=sdk brings it back), and its
// tracer for span limits (OPENRESPONSES_OTEL_TRACER=sdk).
// What remains against +10%, per row, at 100% sampling: our span costs ~3.7-3.9 us (ids 0.2-0.5, clock 0.4,
// encoding 1-1.5, its share of the HTTP write ~0.5-1, the span object and attributes the rest), plus the
// server's own span glue (+4-8 us a turn, its contexts, attribute sets and traceparent, unchanged here). A
// stored embedded JSON turn (3 spans, 38-60 us) pays ~15-20 us: +30-50%, and +10% would need the whole span
// path under ~1.3 us a turn per span including the glue: not on Node (two clock reads, two ids and one socket
// write share alone are ~1 us). SSE embedded (2 spans, 280-540 us): ~12 us, +2-4%, met. Gateway JSON (4
// spans, 160-300 us): ~20-24 us, +7-15%: at the edge, met on the slower turns. Gateway SSE (4 spans, ~465 us):
// ~5%, met. Over HTTP the same microseconds ride on the CLI's dearer requests (embedded JSON ~100-130 us:
// +12-20%; gateway ~250-330 us: +6-10%). Sampling is the lever for the embedded JSON rows: a trace sampled out
// at the head costs the check alone.
// Glue note (2026-11-29, issue 35's eighth session, load 1.7-10). The server's own span work re-profiled under
// callgrind with 12,000 warm embedded JSON turns (service.handle, main thread, JIT frames named through
// --perf-basic-prof's map; base 182663b): off 164.0k instructions a turn, spans that cost nothing 186.4k
// (+22.4k, +13.7%; the earlier +401k counted V8 still compiling after 800 turns). Of the +22.4k: the API's
// context.with and global lookups per scope ~3.5k (megamorphic keyed loads in getGlobal), the runner building
// its dependencies again on every traced turn (the store-span wrapper is a new store each turn, so depsFor's
// cache misses) with sealerFor's getter literal on V8's slow path ~2.7k+, Object.assign of the turn options
// 1.4k, then closures, promises and their GC. Cut (eeb2419): within() skips context.with without a registered
// context manager, children take their tracer from the parent's context, span names and start attributes
// made once, the sealer a class, the options spread, the metric meter one object. One process, base and
// after interleaved, 11 rounds of 3,200 turns (load 7.9 and 9.8: lowest rounds): spans that cost nothing
// +3.9/+3.4 -> +2.0/+3.7 us over off (medians +6.1 -> +1.7); the CLI's own spans and export +10.7/+10.6 ->
// +7.7/+7.6 us on a ~27 us turn; metrics alone +2-6 us either way (noise). Callgrind could not give the
// after-figures: under valgrind V8 leaves 85-124 functions at the baseline tier after 12k turns (360 with the
// own export on), so one build read 186k-213k; with --single-threaded the counts include compilation (500k).
// Left in the glue, outside telemetry/: storeSpans' per-turn wrapper (six closures) and the depsFor miss it
// causes (responses/runner.ts could key its cache by owner and take the traced store apart), and the
// middlewares' per-request closures. What remains against +10%, at 100% sampling: an embedded JSON turn of
// ~27-40 us pays ~7.6 us for 3 spans (~2.5 us a span with its glue) plus metrics 2-5 us: +25-45%; +10% needs
// under ~1 us a span all in, below two clock reads, two ids, an encoding (~1 us) and a share of the export's
// write. Gateway JSON in process (the same A/B, 7 rounds of 1,600 turns, load 9, rounds swinging 125-590 us;
// lowest rounds): off 145 -> 127 us, spans that cost nothing +29 -> +33, the CLI's spans and export +69 -> +84
// us: +50-65%, far more than 4 spans at ~2.5 us; the per-span arithmetic of the seventh note (+7-15%) does
// not hold for the gateway, whose excess (GC of spans and scopes that outlive the upstream wait, the client
// span's traceparent) was not profiled here. SSE embedded (2 spans, 280-540 us) ~2-3%: met.
// Gateway profile note (2026-11-29, issue 35's eighth session, load 4-5.5 with CI beside it; main 133dfec,
// built dist). A stored gateway JSON turn (Chat Completions stub in another process, the OTLP sink in a third)
// through `service.handle`, 16 at a time, the span-stages way (one process, one switching provider, W3C
// propagators): 6 x 3,200 warm turns of off / spans that cost nothing / the CLI's own spans and export, then
// twice 1,600 turns of each, counters zeroed and dumped around each (callgrind, --predictable, JIT frames named
// through --perf-basic-prof's map). Instructions a turn: off 338k / 310k; spans that cost nothing 349k / 350k
// (+11k / +40k, +3-13%); the CLI's spans and export 432k (+94k, +28%) / 624k, where an incremental
// mark-compact fell in the window (GC 179k a turn, write barriers in marking mode; without GC +147k). Keep-alive
// is not lost: 16 connections established to the stub in every setting, none in TIME-WAIT (nodeFetch's one
// keep-alive Agent whatever the tracing), one export POST per 512 spans. GC (--trace-gc, 16,000 turns a round,
// three rounds): scavenges off 54, spans that cost nothing 59-60, the CLI's 63; mark-compacts ~1 per 16-48k
// turns in every setting. Where the +94k goes: the encoding, 58k (writeSpan inclusive, 14.4k a span: the
// gateway's spans carry ~11 attributes each, not in frozen sets): the ids' hex to bytes 10.3k (11 calls a turn,
// ~940 instructions each, ~125 ns a call in a loop outside: two charCodeAt, a table lookup and a typed array store
// through `this.bytes[this.pos++]` a byte), attribute strings 13k (writeValue and string; the same
// `this.bytes[this.pos++]` loop: a 44-character value ~500 ns, ~115-215 with locals, noisy), Object.hasOwn in
// writeAttributes' for-in 5.7k (44 keys a turn), tags, opens, varints and times ~9k, the batch buffer doubling
// from 16 KiB to 256 KiB in every batch and copied again by request() ~9k (memset and memcpy; callgrind counts
// rep-string steps, less in CPU); our tracer's start and end ~6k, ids 1.3k. The server's glue (+11-40k): the
// W3C propagator's inject (isValidHex 1.3k, inject 0.6k, the carrier's keyed stores), the traced headers'
// copy, which misses nodeFetch's header-list cache, so that list is rebuilt a call (headerListOf, flat,
// toLowerCase, Map ~4-5k, Node validating the longer list ~1k), slow global lookups (LookupIterator,
// Runtime_GetProperty ~3.6k), the runner's deps rebuilt (+0.8k). The cuts this points to (not made): span and
// trace ids kept as the pool's bytes and written as bytes (hex only when a context is read; a turn's 4 spans
// share one trace id), ProtobufBuffer's loops on local copies of bytes and pos, writeAttributes over own keys
// without Object.hasOwn, a batch buffer that starts at the last batch's size (or is reused) and is not copied
// again, and the client span's traceparent appended to the cached header list (written from our own span's
// ids, not through the composite propagator). Estimated together ~25-35k of the 94k: the gateway JSON turn
// stays at ~+18-20% in instructions; +10% of ~310-340k allows ~8k a span with its glue, below this encoder's
// cost for spans of this size.
// The four cuts made (issue 35's ninth session, tel-enc; 2026-11-29, load 6-10 with three other sessions):
// ids kept as the pool's bytes and written as bytes, hex only when read (own-tracer.ts, telemetry/span-ids.ts);
// the attributes set after a span's start kept as keys and values, so the encoder walks no object (Object.keys
// measured no better than for-in + Object.hasOwn: ~2.4k instructions for 12 keys each, for-in alone 0.8k); a
// batch's buffer starting at the last batch's size and sent in place (telemetry/span-batch.ts); the upstream
// call's traceparent written from the client span and appended to nodeFetch's cached header list under the
// W3C propagators (telemetry/traceparent.ts). A gateway turn's 4 spans through the own tracer into an OTLP batch
// (in process, no network; callgrind, --predictable, 20,000 turns after 10,000): 77.3-79.1k -> 71.0k (ids) ->
// 58.6k instructions a turn; CPU in one process, 15 interleaved rounds, load 10.3: 9.79 -> 8.93 -> 8.33 us.
// The whole stored gateway JSON turn (span-stages fixture, main with and without the cuts in two processes, 15
// interleaved rounds of 3,200 turns, load 7.8-8.8, rounds swinging +-100 us): off 157.4 / 156.7 us, the CLI's
// spans and export +83.5 -> +60.6 us (medians; +53% -> +39%). What remains of the 58.6k (callgrind with JIT
// names): the writer's calls per field (tag 3.7k, open 3.3k, varint 1.8k, string 1.8k, time 1.6k, writeValue
// 3.7k, writeAttribute 2.6k), id copies 4.7k (a typed-array byte loop: ~200 instructions an id), TypedArray
// set 2.6k (each cached key and frozen set appended), Object.hasOwn 2.0k (a starting set that is not frozen, the
// restate check), the tracer's start 3.2k and end, clock 1.7k. Against +10%: the eighth note's +94k less
// ~19k (spans) and ~5k (traceparent) leaves ~+70k on a 310-340k turn, ~+21%; +10% allows ~31-34k for 4 spans
// with their glue and export, about half of what the spans alone cost now. Not reachable by trimming this
// encoder: it would take spans with fewer attributes, or an encoder that writes a span's fixed fields from a
// template (tags and lengths precomputed), and the server's glue (+11-40k) gone.
// Encoder note (issue 35's tenth session, tel-enc3; 2026-11-29, load 6-9 with three other sessions). A gateway
// turn's four spans through the own tracer into OTLP batches, the server's span calls as the turn makes them
// (startServerSpan, startTurnSpan, startClientSpan and its traceparent, the store span through storeSpans, the
// end-of-turn attributes; no network, no head sampler, so the environment's sampler is asked per span), under
// callgrind (--predictable, counters zeroed after 10,000 turns, 20,000 turns): 70.4k instructions a turn on main
// (8101349's code) -> 55.9k (6329da0) -> 54.1k (76dc8a5); without the store glue and promise 66.2k -> 52.5k.
// Timings of the same, processes alternating, 9 rounds of 30,000 turns (load 7.6-9.1): 8.31 -> 7.48 us (0.90x).
// What it took: byte loops over typed arrays cost ~26 instructions a byte (16 bytes ~420; `set` of a `subarray`
// ~610), DataView words ~77 for 16 bytes, so ids, key fields and frozen sets are copied through views; a
// KeyValue of a short ASCII string, boolean or small integer is written in one pass; a key's content is kept
// once the same value came twice in a row (a route, a model, a status code); the usual tail (no events, links,
// status message or drops) is 16 bytes written at once; wall-clock ms kept, no [s, ns] pairs; `performance`
// imported (the global is a getter Node runs on every read); String.fromCharCode.apply over a plain array, not
// a typed array (V8's slow elements path: a traceparent 6.0k -> 2.3k). Not a cut: the store span's attributes
// as a frozen set (measured 55.9k either way: its per-call object now encodes from kept pairs). What remains of
// the 54k: writing the added attributes ~9k (writeSpanAttributes, writeAttribute, writePair; the Map lookup of
// each key ~1k), the tracer's startSpan 3.3k and end 1.3k, writeSpan's own 3.2k, names and other strings 2.6k,
// the ids 2.1k, traceparent ~3.5k with its string, Object.hasOwn of the restate check 1.2k, the batch buffer's
// zeroing 1.2k, a span past 127 bytes moved a byte by close() ~0.6k.
// The whole stored gateway JSON turn after these cuts (76dc8a5; service.handle, the stub and the OTLP sink in
// other processes, the settings registered as the CLI registers them, one process, 6,000 warm turns of each
// setting interleaved, then windows of 1,600 turns off / metrics / both / off / metrics / both, callgrind
// counters zeroed and dumped around each, all threads, --predictable; load 3.5-6). Instructions a turn: off
// 318.8k / 317.9k; metrics 398.3k / 352.6k; spans and metrics 479.6k / 446.5k. GC frames were alike in every
// window (9-10k, no mark-compact), but the first windows ran while V8 still compiled: the second set is the
// one to read: metrics +34.6k (+10.9%), spans on top +93.9k, both +128.5k (+40%). Metrics' +34.6k: ~13k is the
// Prometheus scrape (label sanitizing regexes, string building; one scrape a 1,600-turn window here, so its
// share a turn shrinks with a real scraper's interval), the rest the turn's records (metrics' ended,
// recordHttpRequest, lookups). Spans' +93.9k: the encoder ~28k (attributes ~12k, writeSpan 3.6k, strings 2.6k,
// ids 2.5k, the writer's small calls ~4.6k, the batch buffer's zeroing 1.6k), the tracer ~5k (start 3.4k),
// traceparent ~2.6k, Object.hasOwn 1.2k, key Map lookups and string hashes ~1.9k, TurboFan still compiling
// ~6k, the rest (~45k) spread thin over the server's glue, promises and scavenges, no frame over 1k. Against
// +10% of ~318k (~32k for spans and metrics together) the encoder alone is near the whole budget: the next cut
// is fewer bytes to write (a span's attributes made at its start as one frozen set where the server knows them
// then; the turn's end attributes as one kept block per model and status) and the glue's ~45k, measured
// frame by frame with the spans that cost nothing (span-stages' `own` stage).
// Store-span note (issue 35's eleventh session, tel-cut; load 8-11 with four other sessions). A store call's span
// now starts with a frozen set per store class and operation, the traced store is one class, and a frozen list
// (finish reasons) is written from kept bytes: a gateway turn's four spans through the own tracer and encoder
// alone (no server; callgrind, --predictable, instructions of a 20k-turn run less a 10k one): 44.2k (a store
// attribute object per call, as before) -> 42.6k (frozen store set) -> 41.8k a turn (kept list; 43.1k -> 41.8k
// measured 60k less 30k). The whole gateway JSON turn under callgrind (8,000 warm turns a setting, windows of
// 3,200) could not show cuts of this size: off windows of one process read 730k and 479k, spans and metrics
// 752k and 463k (mark-compacts and TurboFan in the windows, with --perf-basic-prof), so read the spans' cost
// in the one-process tables, not from one window (ref-turn's turn counts used --no-incremental-marking, which
// may steady them; not tried here). Span names written from kept bytes (d000051): the server's
// telemetry functions 28.1k -> 26.8k self instructions a turn of the same four spans (--perf-basic-prof).
// Twelfth session (tel-glue; 2026-11-29, load 4-14 with four other sessions). Whole-turn callgrind windows with
// --predictable --no-incremental-marking --max-semi-space-size=64 were still not steady in one process whose
// settings alternate (the split fixture's way): embedded stored JSON off 107.5k / 118.8k instructions a turn,
// metrics 119.6k / 137.3k, both 186.9k / 149.1k; gateway JSON off 1,355k / 553k, metrics 739k / 467k, both
// 1,084k / 461k; with one setting alone (metrics, no OTLP metric export, no scrape) 124.2k / 137.7k, of which
// compilation and GC swung by 17k and 8k. Under valgrind a window takes minutes, so the metric exporter's 5 s
// timer and TurboFan's background jobs land in windows unevenly: a cut of ~1k is not readable there. The 10%
// anomaly under --trace-deopt (sampling-sweep-turns at 0.1, 16 rounds of 3,200 turns): 16,000 to 51,000 turns in, the
// sampled path's functions are deoptimized eagerly for "Insufficient type feedback" (the own tracer's
// startSpan, the encoder's writePair, the batch's write, a span's onEnd: optimized while only sampled-out turns
// had run them, then met a sampled turn's values), and mark-compacts throw away optimized code that embedded
// objects since collected ("weak objects": turnRequest, endedWith, createResponse, recordedRequest), so a
// sampled turn runs more of its path in the lower tiers than a turn at 100% does; which functions and when
// differs between processes. Not fixed here.
// SSE time note (2026-12-01, issue 35's twenty-fourth session, gw-sse-time; load 2.7-5.6 from two other sessions).
// Why the gateway SSE row's time outgrows its instructions. One process per setting (telemetry-turns.ts with a
// per-thread print), 12 warm slices, then 8-10 rounds of 4 alternated slices of 800 turns each (the bench's slice),
// CPU from /proc/self/task/*/schedstat over the rounds: process, off 104.0/105.7/106.1 us a turn; metrics
// +4.6/+3.0/+4.1% (two more runs: -2.0%, +0.7%), main thread +3.7/+2.8/+3.2%; both +13.8/+15.7/+11.0%, main
// +13.7/+11.9/+9.4% (another run: +29%). Rounds of one process spread by +-5%: metrics alone is within that. By
// thread, a turn: main 91-101 off, 96-104 metrics, 106-114 both; V8's four platform workers 6.7-9.5 in all off,
// 7.9-9.4 metrics, 11.2-13.8 both; the export threads 0.4-0.6 (both only). What the workers run (perf -e
// cpu-clock, --perf-basic-prof): in every mode parallel scavenge and the freeing of the upstream reads'
// ArrayBuffers (SweepYoung, free, BackingStore destructors: the server's own, ~1-2 us a turn); with spans also
// TurboFan and concurrent marking.
// - GC is not it: --trace-gc-nvp over 32k steady turns, allocated 79.3 / 79.6-79.9 / 82.4 KB a turn (off / metrics /
//   both), survived 2.22 / 2.27 / 2.22 KB, promoted 1.70 / 1.71 / 1.70 KB, 59 / 59 / 61 scavenges and 0.3 / 0.3 /
//   0.6 mark-compacts per 10k turns. Its pauses are wall time: for the same work they read 9.9 and 21.0 us a turn in
//   one run (parallel scavenge waits for helpers the loaded machine does not run), so GCProfiler's or the nvp
//   pause times are no CPU figure here; both's 4 extra mark-compacts are memory-reducing GCs in the export
//   workers' isolates (36 ms per 32k turns).
// - Callgrind (gateway SSE turns in process, 2,000 after 6,000, --predictable, GC and compiles left out, no metric
//   export in the window): off 774.4k, metrics 781.6k (+0.9%), both 838.9k (+8.3%). The GC rows of such a window
//   swing with the marking that lands in it (both 224k against off's 101k there): read GC from the nvp bytes.
// - Metrics: +0.9% instructions, plus the fixture's scrape after every slice: 0.33-0.46 ms CPU a scrape (34 KB of
//   text), 0.4-0.6 us a turn at 800-turn slices; metrics without it read +3.5% (against +4.6) and +2.8% (+4.1) in
//   alternated runs, so the scrape is ~1.2 points of the metrics row (a 15 s scrape at ~10k turns/s: ~0.01). The
//   rest is inside the rounds' spread; the idle runs' +8.9-9.6% was not reproduced.
// - Compilation: --trace-opt over 25.6k turns after 9.6k, TurboFan jobs off 11 (17.9 ms on the workers), metrics
//   16 (36.7 ms: the scrape's histogramText, entries, SumAccumulation), both 27 (70.9 ms, 2.8 us a turn). In one
//   both process over 102k turns they stop only after ~51k: the span path's writeString, utf8ByteLength, SpanIds,
//   startFixed (own-tracer.ts, deoptimized at ~40-50k turns for "insufficient type feedback" in two runs of two)
//   recompile late. The first OTLP metric export (5 s in) starts the export worker, whose streams and port have
//   maps the turns' code had not seen: 13 eager deopts ("wrong map": Readable.on/read/resume/flow, addListener,
//   removeListener, listenerCount, ReadableState, setupPortReferencing, processTicksAndRejections) and 39 TurboFan
//   jobs (108 ms) in the next 12.8k turns against 13 (40 ms) and no deopt with no export in the run. The bench warms
//   3 CPU s (~30k gateway SSE turns), so part of both's tail lands in its rounds (~1 us a turn on the workers).
// - Kernel time of the main thread (stat ticks): off 7.4-11.3 us a turn, metrics 9.0-10.2, both 10.6-10.9; too
//   spread to assign to the span export's writes.
//   The pipe of that worker's stdout and stderr into the process's ran those functions: unpiped since this note
//   (node/otlp-post-worker.ts), callgrind reads a gateway SSE turn after the worker's start 8-11k instructions
//   lower (+14.3k over no worker with the pipe, +3.3k without); a time A/B could not resolve it at load 4. The
//   worker's start still deopts 6 (ReadableState, addListener, listenerCount, setupPortReferencing,
//   processTicksAndRejections, the timers' insert) and is followed by 36 TurboFan jobs (90 ms) in 12.8k turns.
// Otherwise metrics' time is its instructions and the scrape; spans' is their instructions, ~3% more allocation
// and the compile tail above.
// JSON time note (2026-12-01, issue 35's twenty-fourth session, gw-json-time; load 1.2-4.6 from two other sessions).
// Stored gateway JSON turn, in process (telemetry-turns.ts with a per-thread print, one process per run, 40 slices of
// 1,600 turns, steady over the last 32). perf -e cpu-clock (--perf-basic-prof), one run each, main thread: off 50, both
// 58 us a turn; of the +8: the tracer and encoder ~4, turn code ~3 (its optimised code differs when traced:
// upstream-call.js, the store, middleware), Node's natives ~2 (Builtins_LoadIC 46 -> 126 samples, from Node's http
// client: _http_agent, ClientRequest), performance.now's clock_gettime +0.4; GC on the main thread no more; V8's
// workers +2.6 (parallel scavenge, concurrent marking, TurboFan). The span export's POST (one every 512 spans, ~138 KB)
// cost 3-4 us a turn of process CPU against the same export answered at once (~7%; user ticks, not the kernel; a
// 64-byte body cost as much: the request, not its bytes) while callgrind gave it +3.4k instructions (1.1%): its request
// options (URL and a headers object) were another shape than the upstream calls' (flat header list), which kept the
// http client's ICs polymorphic for every upstream call. With the same shape (2b9f22c) -3.1 us (53.7 -> 50.6, 5 of 5
// alternated rounds) and -2.3k/-3.3k instructions; the POST then reads ~1.2 us a turn over no POST (4 rounds). Off 42.2
// against both 50.6 in 3 alternated rounds after it (+20%, load 1.5-1.9): the rest is the tracer, the glue and the
// turn's code run differently, not yet cut. Moving the POST to OtlpPoster's worker read worse (process 54.8-62.9
// against 55.5-58.9, 3 rounds at load 3-4).
// Traced-code note (2026-12-01, issue 35's twenty-fifth session, traced-code; load 1-8 from three other sessions).
// Why the stored gateway JSON turn's own code (upstream call, store, middleware) ran ~3 us slower traced (the JSON
// time note's perf split). Callgrind, built package, in process, 64k warm turns (a new service every 4k), 3,000
// re-warm, 3,008 counted, compiles and sweeping left out, no metric export in the window: steady off 272.0k / 271.9k
// / 277.7k (a mark-compact in the last), both 299.5k / 299.6k. By function the turn's code is the same run to run of
// one setting (within ~0.3k) and differs little between settings: both against off, the server's non-telemetry JS
// +1.6k (the metrics' part meter in turn.js run/arrived +0.5k, httpMetrics' answered +0.55k; the traced turn's store
// wrapper, runner.js begin/depsFor/StoreDependencies, +0.45k), Node's JS +0.9k, mostly inlining moved (keepSocketAlive
// inlines setKeepAlive, unref and the headers getter off, calls them on; stream.js run splits in advance and
// stopParts). Spans alone (one run): the server's non-telemetry JS -0.2k (runner.js begin inlined into the glue).
// Compiles (--trace-opt --trace-deopt, 70k turns): TurboFan jobs off 342, both 440, the extra ones telemetry's own
// and a second round of a few turn functions in warm-up (depsFor, send, ended, ClientRequest); no turn function
// deoptimises past 28k turns in either. So not shapes: the turn's code misses the L1 instruction cache more behind
// telemetry's cold code (the allocation note's cache simulation, 4,000 turns: turn code +2.2k instructions, +203
// instruction misses a turn (+8%), +138 data read misses; Node's JS +2.0k, +201 instruction misses): ~585 misses at
// ~14 cycles is ~3.1 us at 2.6 GHz, the ~3 us. What lowers it is less telemetry code a turn, not the turn's shapes.
// startFixed's deopt at 40-50k turns ("insufficient type feedback", --trace-deopt-verbose: at span-clock.js
// wallClockMs inlined through OwnFixedSpan's constructor): the clock's 10-s re-check (Date.now), taken at the first
// call (before V8 keeps feedback for it, it seems) and next 10 s in, 40-50k turns of a bench row; once a process, not
// the steady state. The metric worker now starts with telemetry (f4d2306): 3 deopts at the first export gone.
// Mark-compact note (2026-12-01, issue 35's twenty-fifth session, bench-mc; load 5-7.5 with three other sessions). The
// four processes' rounds (compareTurns) now count each setting's mark-compacts a round (the `gc` performance entries of
// kind major, in telemetry-turns.ts) and read each row twice: over all rounds, as before, and {over the rounds in which
// the setting had as many as off}. TELEMETRY_TURNS_ONLY=1 runs those rows alone (~5 min; TELEMETRY_TURNS_ROUNDS=n
// rounds). Two runs of 10 rounds: a round holds 0-2 mark-compacts in the JSON rows (embedded JSON, 35-41k turns a
// round: about one every other round; gateway JSON, 10-12k turns: 1-8 in a setting's 10 rounds; gateway SSE, 5.4k
// turns: 1-7), none in the embedded SSE row (store: false, its rounds spread 2-11 points). A round with one costs V8's
// helper threads ~30-50 ms more: +1 us an embedded JSON turn (2.0-2.5 -> 3.3-3.5 us), +2-5 a gateway JSON turn, +7-10 a
// gateway SSE turn. Spread of the per-round ratio to off (process CPU), all rounds -> the matched rounds (how many),
// run 1 / run 2: embedded JSON both 26 -> 5 points (4) / 29 -> 24 (7), metrics 26 -> 3 (2) / 30 -> 17 (7); gateway JSON
// both 26 -> 26 (8) / 25 -> 12 (8); gateway SSE both 32 -> 8 (3) / 14 -> 14 (10), metrics 33 -> 12 (4) / 15 -> 13 (6).
// Medians as the bench prints them (the upper of the middle two of 10), run 1 / run 2, all rounds -> matched: embedded
// JSON both +37.5/+37.4 -> +37.1/+37.4%, metrics +7.6/+3.8 -> the same; gateway JSON both +30.0/+17.4 -> +27.4/+17.4,
// 10% sampled +17.0/+8.7 -> +10.8/+6.5; gateway SSE both +19.1/+12.7 -> +11.7/+12.7, metrics +9.5/+8.7 -> +4.9/+3.8. So
// the matched read narrows a row's spread in most rows, and the two runs' difference in some (gateway SSE both 6.4 ->
// 1.0 points, gateway JSON 10% sampled 8.3 -> 4.3, gateway JSON both 12.6 -> 10.0) but not in others (embedded JSON
// both 0.1 -> 0.3, gateway JSON metrics 5.6 -> 6.2): at this load the machine moves a round as much as a mark-compact
// does (main-thread spreads 11-27 points), so the idle runs decide. Nor is the rate always the same in every setting:
// gateway SSE's metrics-only process had 7 and 6 against off's 3 and 1 (both on 7 and 1), and its matched read leaves
// those out (+9.5/+8.7 -> +4.9/+3.8): where a setting has more than off in every run they are its own cost and the
// all-rounds median is its figure; read the counts (printed a round, with each setting's total) beside the matched
// read. Rejected: a full GC forced between rounds (--expose-gc), its CPU left out of them: the slice after it cost 4-5x
// (236-281 against ~50 us a gateway JSON turn, main thread 104-132 against ~45: V8 optimising again what it threw away)
// and the rounds then held more mark-compacts, not fewer (10-20 a setting in 10 gateway JSON rounds against 3-8; off
// read 88 us a turn against 51-60). Rounds long enough to hold several each would leave 2-3 rounds in the same run
// time. At load 7 the embedded "both on" process dropped 3.3-3.4% of its spans in two runs of two (the gateway's 1.4-2%
// in two of four): that fails the bench (SpanTally), as it should; an idle machine has not.
// HTTP note (2026-12-01, issue 35's twenty-fifth session, http-tel3; load 3.5-11 with three other sessions). Why the
// stored gateway JSON turn's telemetry costs more over HTTP (the CLI, +13.7-14.2 us) than in process (+7.2-7.5): not
// per-request work of the HTTP side, which does none for telemetry (the server span, traceparent, metrics, overhead
// header and request log are the service's answer stages, run in process too; the adapter only answers the
// `traceparent` and `baggage` lookups). Callgrind of the built CLI (30k warm requests, 2-3k counted, compiles left
// out): telemetry's JavaScript a request is the in-process figure (tracer and encoder 9.8k, glue 2.5k, metrics 1.6k;
// Node's JS +2.7k, of it ~1k node:http's checks of the upstream call's traceparent header); whole requests cannot be
// read there: all three traced windows held a mark-compact and 155-229k instructions a request of compiles under
// valgrind (off: one of three, 57-65k), where at full speed --trace-opt shows ~4 compiles per 10k requests past 30k
// and GC is alike (224 / 236 scavenges, 2 / 1 mark-compacts in 60k requests off / on). perf -e cpu-clock, on against
// off, two runs of 40k requests after 60k: main thread telemetry's JIT code +5.2 / +4.1 us, the turn's +4.2 / +1.9,
// Node's http and stream JIT +2.9 / +2.3, natives +5.9 / +8.9, kernel +2.1 / +2.4; other threads ~0. Likely (not
// proven) the in-process split plus Node's own http code, which runs beside telemetry's cold code over HTTP only (the
// traced-code note's cache misses): fewer telemetry functions a request would lower both. The span POST on the turns'
// thread, not settled at this load: CLI processes alternated over HTTP (process CPU, medians of per-round
// differences), 6 rounds of 20k requests after 40k at load 5-8 / 10 rounds of 15k after 60k at load 7.7-11: on
// +20.5 / +9.7 us against off, the POST patched out -6.2 / +1.7 against on (rounds -72 to +29), the POSTs in a
// worker thread (OtlpPoster, second run only) +6.0 against on. An idle run of on / POST patched out decides.
// Idle run (the lead, 05:37-05:39 UTC, load 1.3-2.0, af3a439's build; the same alternation, 10 rounds of 15k
// requests after 60k, four CLIs): on +14.4 us against off (81.3 -> 96.0, higher in 10 of 10), the POST patched out
// -2.0 us against on (lower in 6 of 10, rounds -14.6 to +8.7), the metric worker started at the first export as
// before f4d2306 -1.0 us (lower in 6 of 10, rounds -18.6 to +11.3): neither the POST nor the worker's early start is
// the gap. And the span-cold note's timed A/Bs (-31% of the span path's L1 misses, time not lower) leave the cache
// model above unproven too: what telemetry adds over HTTP beyond in process stays unexplained by parts.
// Bench-gc note (2026-12-01 06:10-06:50 UTC, issue 35's twenty-sixth session, bench-gc; load 4-13 with four other
// sessions). In process (compareTurns), how many mark-compacts land in a setting's ten rounds is the run's luck, not
// the setting's: the lead's two idle runs on af3a439 counted gateway JSON off 9/7, metrics 4/11, both 8/6, sampled 6/8,
// gateway SSE off 9/13, metrics 13/11, both 12/9; one process of gateway JSON turns (slices of 1,840 with 0.4 s pauses,
// --trace-gc) made 10 off and 8 both on in 128,800 turns, 3 and 5 of them in its first 36,800. So each round's
// mark-compacts are now replaced by the run's rate of them (all settings' over all rounds), at what one adds to a
// round: the slope of a setting's round cost over off's in the same round on its count over off's, pooled over the
// settings (markCompactSlope, atMarkCompactRate): 3.3-3.5 µs a gateway JSON turn, 4.5-9.5 a gateway SSE turn, 1.0-1.5
// an embedded JSON turn, ~0 on the main thread (the marking is V8's helper threads'). Read on the same printed rounds,
// the lead's two idle runs then differ by 15.7 points summed over the nine rows with mark-compacts, against 41.6 for
// the median of the rounds as measured (gateway SSE both +17.3/+8.3% -> +10.2/+10.5%, metrics +7.4/+0.7 -> +3.5/+3.3;
// gateway JSON 10% sampled +3.3/+15.3 -> +10.0/+8.4; worse in two: gateway JSON both 0.3 -> 1.2 points apart, gateway
// SSE sampled 0.2 -> 3.9), and each row's spread of the per-round ratios narrows in 17 of 18 (gateway SSE both 30/16 ->
// 15/13 points); last session's two runs at load 5-7.5, 45.1 -> 33.7. Timed here, two runs of the gateway rows (load
// 7.6-13, then 4.9-7): spreads narrower in 11 of 12 rows (gateway SSE both 25 -> 20 and 29 -> 14 points; gateway JSON
// both 23 -> 24 and 23 -> 16), the two runs' medians 19.0 points apart summed over the six rows against 22.8 as
// measured; an A/A run (TELEMETRY_TURNS_MODES=off,both,off,both, load 8.6): gateway JSON off against off -1.1%, spread
// 12 points (as measured -0.3%, 26), both +16.8/+18.5% (as measured +18.3/+19.2%); gateway SSE at load 8 noise-bound
// either way (off +5.7%, both +6.2/+13.3%, as measured +1.7/+10.3%). Where mark-compacts are rare (embedded SSE, store:
// false: 0-1 a setting in ten rounds) the slope rests on one or two rounds (66 µs in one run at load 9, a round that
// cost +75% as measured): read that row as measured, printed beside it in braces. Not kept: each setting at its own
// count (the ratio of its totals: 28.8 points apart on the idle runs; its own rate: 29); a fixed GC schedule
// (--heap-growing-percent=300, the factor 4.0 V8 chose at every mark-compact here, and --no-memory-reducer) with every
// process topped up to the same turn count before the rounds: its embedded JSON mark-compacts came in the same rounds
// for four rounds, then drifted (off 6, both 4 in ten). Over HTTP (compareTelemetry), each case is now warmed right
// before its rounds: warmed up front, a case's first rounds ran after the other cases' warm-up, and a CLI warmed by
// 60,000 gateway JSON then 60,000 gateway SSE requests ran 46, 48 and 34 TurboFan jobs and 7, 0 and 0 deopts in its
// next three 2-s gateway JSON rounds (--trace-opt --trace-deopt, load 11), where warmed SSE then JSON it ran none (load
// 7.5): the first rounds' +53.0%, +45.9%, +37.9% falling to +20% (run 1 of af3a439). And one round of each is now run
// uncounted before the counted ones, here and in the floor run over HTTP (its gateway on read 105 and 122 µs in its
// first rounds against ~90 after): a CLI with spans and metrics on, warmed by 20,000 or by 60,000 gateway JSON
// requests, ran 34 and 30 TurboFan jobs and 5 and 4 deopts in its first 2-s round, 8 and 16 jobs in its second, 2-4
// after (--trace-opt --trace-deopt, load 9), so not a short warm-up: each round's new loader and connections, it seems.
// ~40 s more a run.
// Instructions note (2026-12-01 06:12-07:08 UTC, issue 35's twenty-sixth session: span-instr, glue-cut, turn-meter;
// load 4-13 with four other sessions). Callgrind of the built package, stored gateway JSON turns in process, both on,
// the metric export out of the counted window, compiles and GC left out. A whole turn moves by up to 13k instructions
// between runs of one build (V8's IC builtins, 35-45k a turn, and tiering; up to 20k with the stub over a socket),
// so a cut under ~1k shows only in its own functions and in medians over many alternated runs. Landed: the overhead
// header's text without Number.prototype.toFixed (108520e: the answered stage 2,044 -> ~1,240 a turn, telemetry on
// or off); the span ends setting a fixed span's fields in one call and the traced-turn check read from the request's
// own span (1cf9713, e0bacfe: those functions 2,140 -> 1,701, the glue 3,430 -> 2,923, the whole turn's median
// 225.8k -> 225.2k over 13 alternated runs with the upstream answered in process, lower in 10 of 13); the span
// clock's re-check moved to an unref'd timer (e69e9a2: startFixed's one deopt a process at 40-50k turns gone, by
// --trace-deopt-verbose; ~90 fewer a turn). Our tracer and encoder, a turn of four spans (span-instr, before
// e69e9a2): startFixed 2,694 (plus ~380 in natives for four clock reads: performance.now's brand check calls
// hasOwnProperty, ~54, then its fast call, ~42), writeSpan 1,664, encodeFromHead 1,577 (plus 752 in
// TypedArray.prototype.set), writeOwnIds 1,423 (19 DataView operations a span), msAt 1,085 (8 calls, not inlined,
// a boxed number each), setAttribute 652, add 612, writePair + writeKeyValue 756, end 277, take 175: ~10.9k,
// spread thinly (hole checks on module-level lets, ~10 map transitions while a span is built, two allocations a
// span: SpanIds and the span). The floor keeps a turn's four times in one object and writes its spans in one
// function straight into the batch; ours goes end -> onEnd -> add -> writeSpan -> encodeFromHead, re-reading the
// span through getters at each layer. Reading one `plain` getter instead of eight cut the encoder by 68 a turn
// (branch span-instr f74297d, not landed). So what is left is structural: a per-turn writer, not edits. Glue left
// (~2.9k): the traced turn's setup (~436: the provider found and the options built, then looked up again by the
// runner), the request span's start (~357), the ends (250-320 each, mostly the span's own end inlined), setFields
// (~440, ~150 of it checking the frozen finish-reasons array), `within` (151: rest arguments and apply). Metrics:
// no call into V8's runtime left after 108520e; the store wrapper (StoreDependencies ~100, depsFor 65) and the part
// meter (~100) too small to show. In both settings, not telemetry's: Node's Agent.addRequest copies its options
// through V8's slow path (`{ __proto__: null, ...options, ...this.options }`), ~26.5k a gateway turn (~8%; the bare
// translator pays it too), and response-json.ts' charCodeAt loops fall into V8's slow path (~8k a turn) with a
// NEEDS_ESCAPE test from TurnEnd.store (~5.1k).
// Knock-on note (2026-12-01, issue 35's twenty-sixth session, http-natives at load 5-13, then the lead's two idle
// runs 07:58-08:01 UTC, load 1.1-2.3). What are the +6-9 µs of natives telemetry adds a request over HTTP (the HTTP
// note above)? Callgrind of the built CLI, on minus off: +24.9k instructions a request, natives only +5.5k of them
// (Node's header checks for the upstream traceparent +2.2k, TypedArray.prototype.set +1.0k from the encoder,
// performance.now's checks +0.9k, megamorphic load stubs +2.4k against -2.9k of monomorphic ones: the span POST's
// second Agent origin makes _http_agent's load sites megamorphic). By perf (cpu-clock, main thread, CLIs side by
// side), the natives run +9% more time for +1.8% more instructions, Node's JS +11% for +2.3%, the turn's JS +14% for
// +4.8%; strace counts the same syscalls a request. So telemetry slows the request's other code. To find by what, an
// off CLI with 200 dummy functions called once a request (/tmp/http-natives/v: straight code, 79 KB of optimised
// code; the same with 1,600 taken jumps; with 1,600 data-dependent branches) beside off and on, rotating rounds,
// one perf over all. At load 6.7-6.9 only the data-dependent branches slowed the rest as telemetry does. The two idle
// runs (6 x 6,000 and 8 x 8,000 requests a CLI after 25,000; off 86.6 / 81.3 µs) read the rest's slowdown against
// the added code's own time: straight +1.5 / +4.8 µs against 2.1 / 2.6 (0.7-1.9x), taken +1.6 / +3.3 against 2.6 /
// 2.9 (0.6-1.1x), data-dependent +16.8 / +15.0 against 15.4 / 15.2 (1.0-1.1x), telemetry +6.7 / +9.2 against ~4.8 /
// ~5.1 (1.4-1.8x, its own natives taken as ~1.5 µs from callgrind's +5.5k). So any code added to a request slows the
// rest by about as much again on this machine, telemetry by somewhat more; neither code size nor branches alone
// account for it, and callgrind's branch simulator (telemetry's own ~510 conditional mispredicts a request, most in
// writeSpan, startFixed, writeOwnIds and encodeFromHead) cannot show interference. Fewer instructions on the span
// path remain the lever: each one saved saves about as much again elsewhere.
// CLI-rows note (2026-12-01 08:41-09:10 UTC, issue 35's twenty-seventh session, bench-cli; load 3.9-8 with four other
// sessions). Why the over-HTTP rows (compareTelemetry) spread by 20-40 points a round, by A/A runs
// (TELEMETRY_CLI_MODES=off,both,off,both: the same setting in two processes, each against the first off). As they were
// (a loader process started per 2-s round, rounds alternated setting by setting, CPU from /proc's stat), load 4.1-7.0:
// off against off -4.0% embedded JSON (rounds -29.0 to +12.9%), -13.6% gateway JSON (-34.7 to +4.8%); both against both
// +33.5/+38.0% and +6.9/+3.6%. Where it came from, by each slice's CPU logged: (1) mark-compacts, 0-5 a setting's round
// at random, each adding ~30 µs a request to the 0.1-0.25 s slice it lands in (~60 ms: the store is up to 256 MiB), so
// one process with 5 in seven rounds and another with none read off against off -19.8%; (2) the machine's moment: a
// round's cost drifted by 25% within a minute (others' work), and a setting's whole round fell in one moment; (3) both
// on's first GET /metrics, 100-200 ms once a process, charged to the first counted round (+68% and +103% slices, in
// both on processes at once); (4) the 10 ms ticks of /proc's stat (1-3% of a round of the cheap turn). Slices and a
// loader kept up, without (1) and (3), left it as it was (off against off -1.4% and -19.8% embedded, -9.5% and -0.8%
// gateway JSON, spreads 15-46 points, load 5-8). Now a round is 8 slices of the same count of requests a setting (about
// 2 s a round at the median setting's rate), the settings alternating slice by slice, by one loader process kept up
// (load.ts' startLoader, fixtures/http-loader.ts --serve); each CLI preloads fixtures/cpu-report.mjs (its getrusage in
// µs and its mark-compacts, over an IPC channel); the rounds are read with their mark-compacts at the run's rate
// (compareTurns' atMarkCompactRate; as measured on the line below each row, with the slope, the spreads and the
// counts); one scrape before the counted rounds; the warm-up may take 30 s (15 s were ~50,000 gateway SSE requests, and
// both on's first rounds ran +30% against +10-12% in its last). A/A after (load 3.9-5.3): off against off +0.5%
// embedded JSON (spread 4 points; as measured -2.4%, 14), -2.7% gateway JSON (6; -2.8%, 16), -1.7% embedded SSE (5),
// +1.3% gateway SSE (8); both against both +45.7/+43.9% embedded JSON, +11.1/+16.0% gateway JSON, +4.3/+7.7% embedded
// SSE, +12.0/+18.5% gateway SSE (before the 30-s warm-up). Left: both on's rounds still spread 9-23 points (its exports
// land in some slices, and its first rounds), and two both on processes read up to 6.5 points apart at load 4-5; the
// idle runs will say how much of that is the others' load. The printed table keeps its columns; each row now has a
// second line, and the header says how it was measured. About as long as before (~4.2 min the two JSON or the two SSE
// cases, four CLIs each). The floor run over HTTP (fixtures/telemetry-floor-run.ts) is measured the same way
// (slicedRounds, atRunRate: the bare translator preloads cpu-report.mjs too); its header now names the slice size, the
// slope and each server's mark-compacts a round. First run so, 09:16 UTC at load 6.7-7.9: bare 67.3, floor 75.5,
// gateway off 88.7, on 100.4 µs (floor +8.2, ours +11.7 µs); 1.7 min. And in both, one round of slices is now run
// uncounted before the counted ones: the first round of slices after the warm-up ran dear in most runs above (both on
// +53% against +45% in the rest, +30% against +12%; at load 7-9.6 metrics, both on and 10% sampled +35-40% against
// +6-17%), ~8 s more a case. A/A so (09:24-09:33 UTC, load 2.2-7.8): off against off -2.4% embedded JSON (spread 3
// points), -3.1% gateway JSON (15: one round -15.9%), +0.9% embedded SSE (4), +1.2% gateway SSE (3); both against both
// +39.8/+35.4%, +9.4/+4.1%, +7.2/+4.9%, +14.1/+13.1%. Read the rows against these, not against the rows before: gateway
// SSE both on reads +13-14% here where the old method's two idle runs read +3.3/+1.4%.
// Per-turn note (2026-12-01 08:48-09:35 UTC, issue 35's twenty-seventh session: turn-writer, then turn-slots; load
// 3-11 with three other sessions). Last session's closing note named a per-turn span writer as the change left on the
// span path. Two prototypes, both measured by callgrind of the built package (stored gateway JSON turns in process,
// both on, metric export out of the window; 3,000 warm, pause, 3,000 re-warm, 2,400 counted; compiles and GC left
// out; windows with a mark-compact dropped), neither landed. (1) One function writing a fixed span straight into the
// batch (`encodeSpan`, called from the batch's add; branch turn-writer-encodespan fff27be): the encoding functions
// 5,032 -> 5,415 a turn, the whole turn 300,159 -> 300,448. The layers it removed (end -> onEnd -> add, ~240 a span)
// were nearly free; writeSpan's 416 a span is real work (the head's lookup, the open, the tail, the length) and came
// back inside the one function; merged, V8 stopped inlining writeFields, reserve, slotHead and varintSize (+716);
// with --max-inlined-bytecode-size-cumulative=2000 still worse (5,360 -> 5,833). (2) The two leaf spans (the
// upstream call and the store's put) as slots of their parent's fixed span, started and ended through tracing.ts
// and span-ends.ts, ended into one shared view encoded at once (branch turn-slots 7e058e3; all 320 leaves of 160
// turns took the slot; the span tests pass unchanged): startFixed -1.64k, add/onEnd/the ends -1.5k, against the
// slot's start +0.89k and end +1.03k and SpanIds no longer inlined +0.66k: the span path's own JS 12.91-13.19k ->
// 12.74-12.81k (-0.25k); the whole turn level when both builds ran clean (291.9k against 291.6k; less IC and
// unoptimised-tier builtins 254.3-255.3k against 254.9-255.8k). So the span objects and the layers between them
// cost little; what the floor saves is work (fixed templates for a turn's spans, ids as one slice, raw readings),
// and the encoding itself (writeSpan, encodeFromHead, writeOwnIds, msAt: ~5.7k for four spans, ~1.4k a span) is
// where the instructions are. A version that wrote a turn's spans from a per-turn template would have to show ~2k
// in those functions alone before the parents are reworked too (tracing.ts, service/telemetry.ts and the ends
// pass Span objects that are the OTel contexts of their children).
// Metrics-time note (2026-12-01 08:48-09:22 UTC, issue 35's twenty-seventh session, gw-metrics; load 1.9-12.6).
// Why metrics alone cost a stored gateway JSON turn in process +5-6.5% (bench rows) for ~0.85% more instructions.
// compareTurns with TELEMETRY_TURNS_MODES=off,metrics,off,metrics, 8 rounds (load 1.9-5.6): metrics +7.8/+6.5%
// (main thread +5.6/+4.8%), off against off -0.0/-0.2%. Callgrind, all threads, 3,008 turns after 6,000, no
// mark-compact in the window: off 279.0k, metrics 281.4k (+2.4k: ended ~826, MeteredTurn 216, record 135, the
// attribute sets' get 210, the answered stage +371, the part meter +620, model labels 41). Per-thread A/B from /proc,
// 16 and 20 alternated rounds (load 5.9 and 4.2): main thread off 37.2-38.2 µs, metrics 38.6-38.8 (+1.1 µs); the
// SDK started with recording disabled reads as off, so the time is the recording's. perf (main thread): the +~4 µs
// (process) is spread over every group (kernel +1.2, libc +0.65, natives +0.6, builtins +0.5, server JS +0.4, Node's
// JS +0.2, GC +0.2, telemetry JS +0.2), no function standing out. Ruled out: the metric export (the metrics-only
// process has none, no worker), the scrape (once a round: at most 0.13 µs a turn), timers, syscalls and context
// switches (the same), GC (3 mark-compacts each in 70k turns), deopts (8 against 11 in 60k turns). Likely, not
// proven: the metering touches ~60-70 long-lived cache lines a turn (bindings, series, boxed doubles, counts;
// callgrind counts ~140 more L1 data misses a turn in its functions), which a gateway turn's 40 KB of allocation and
// its socket I/O push out between turns (the embedded turn pays ~2.5x its instruction share, the gateway ~5x). Each
// series' numbers in one Float64Array (branch gw-metrics 31d7a9e, not landed) trimmed those misses 61-65 -> 53 a
// turn, under what time resolves. Also seen: the CLI with --metrics loads @opentelemetry/sdk-node for a
// Prometheus-only set-up (+310 modules, +4.6-5.7 MB of live heap for every mark-compact to mark; ~0.3 µs a turn by
// the bench's mark-compact slope); a bare MeterProvider would do there, not done (a second set-up path, not shown in
// time).
// Floor-gap note (2026-12-01 11:20-12:05 UTC, issue 35's twenty-eighth session, floor-gap; new machine: Xeon,
// KVM; load 3.5-7 with two other sessions). Callgrind of the built package, telemetry-floor-turns.ts one process a
// setting (16,000 warm turns, 3 windows of 1,600 after 800 re-warm, main thread, compiles and GC left out, the
// metric export out of the windows; one process rotating settings left windows with Node's http client or the
// server stage's answered in baseline code after a deopt, +30-60k). Instructions a turn, medians: gateway JSON off
// 270.9k, floor +16.4k (+6.0%), ours +30.0k (+11.1%); embedded JSON off 90.3k, floor +14.2k (+15.7%), ours +22.3k
// (+24.7%). Ours against the floor, gateway: span start 3.3k / ~0.9k (two objects a span, ~630 instructions of
// straight-line construction a startFixed by its optimised code: map transitions, id draws, the clock's brand
// check), ends and glue 4.0k (0.6k off) / ~3.6k, encoding 9.0k / 6.3k, export 1.35k / ~0, propagation 2.0k + Node's
// header checks 1.05k / 0.3k (the floor in process sends no traceparent), metrics 1.9k / 1.7k, knock-on +8.1k /
// +2.6k. Timed, in process, 11 alternated rounds, load 3.8-5.3: gateway off 53.9 µs, floor +6.0%, ours +20.6%;
// embedded off 13.3 µs, floor +22.8%, ours +39.3% (a second run at 4.7-5.0: +8.1/+21.9, +31.0/+40.6%).
// Tried, none landed: the span's clock read before super() (startFixed -132, the glue +0.2k by inlining), within
// through Reflect.apply (glue up), the traceparent from Buffer hex slices (5.0k against 3.4k, micro). Clock reads
// are 1.06% of the on process by perf (~30 ns each). So the embedded JSON turn cannot meet +10% even at the floor;
// for the gateway, ours is 13.6k above the floor, most of it in the span objects, the encoding and the knock-on.
// Span-template note (2026-12-01 11:20-12:30 UTC, issue 35's twenty-eighth session, span-template; new Xeon machine,
// load 4-10 with two other sessions). The per-turn note's last idea: a fixed span written whole from a template of the
// last one of its head and block (node/own-span-template.ts): the general writer's bytes kept on the block, one `set`
// a span, then its ids (8 DataView words), times and the fields after the block patched in where each takes the
// template's bytes (a response id of one length, token counts of one varint size); same bytes (span-template.test.ts).
// Callgrind of the built package, stored gateway JSON turns in process, both on, 2,400 counted after 6,000 warm
// (callgrind_control around the window, JIT frames named by --perf-basic-prof), 3-4 runs a build, spread under 10:
// the encoding functions 8,315 -> 5,995 instructions a turn (writeSpan 1,832, encodeFromHead 1,756, writeOwnIds 1,713,
// msAt 1,150, writePair + writeKeyValue 895, set 970 -> writeWhole 3,990, set 655, writeSpan 584, msAt 539). Three
// spans of ids and times only: 6,922. Patching the response id by charCodeAt cost ~2k a turn (a concatenated
// string, ~50 a character): it goes through Buffer's utf8Write as writePair does. msAt as a module function ~67 a
// time stamp, not 144 (still not inlined). The whole turn stays within its run noise (clean windows 314.2k before,
// 312.2k/314.3k after; most windows held a mark-compact). Timed, alternated, in process (11 rounds, load 4.7-10):
// gateway JSON 155.7 -> 143.1 µs (lower in 7 of 11), embedded JSON 42.6 -> 43.2 (4 of 11): inconclusive at that
// load (spread 30-100%, effect under 1% of a turn). Landed (cfeb880, 93eddcc) on the instruction count; the idle
// runs decide its time. What is left in writeWhole: the ids' 8 DataView word pairs (~32 instructions each, ~250 a
// span), `bytes.set`'s LoadIC in append and the builtin (~300 a span), the field checks.
// Metrics-SDK note (2026-12-01 11:20-12:05 UTC, issue 35's twenty-eighth session, prom-metrics; new machine: Intel
// Xeon, Sapphire Rapids class, KVM, 2 cores; load 3-7 with two other sessions). Metrics without spans (--metrics
// alone; OTLP or console metrics with OTEL_TRACES_EXPORTER=none or a metrics endpoint alone) now register the metrics
// SDK's MeterProvider alone (node/metrics-sdk.ts, d6ff98c), not @opentelemetry/sdk-node. The built CLI (--api-key,
// --metrics with its key) against main's build, 8 alternated rounds, a probe (--import) reading require.cache and,
// after a forced GC (--expose-gc), heapUsed: OpenTelemetry packages 30 -> 6, CommonJS modules 483 -> 177 (off 64);
// live heap after startup 25.0 -> 20.8 MB (off 19.5), after 800 JSON turns 28.1 -> 23.8 MB (off 22.2); spawn to
// listening, medians, 512 -> 420 ms (off 368), its CPU (/proc stat) 455 -> 390 ms (off 338). OTLP metrics alone (a
// metrics endpoint, 3 rounds): 484 -> 252 modules, 25.1 -> 21.4 MB. In process (service.handle turns, 16 lanes, both
// builds side by side, 16 alternated rounds, load 4-6.6): live heap after warm-up 46.5 -> 42.3 MB (gateway JSON; off
// 40.8); CPU a turn, after against before, +0.8% (embedded JSON), +0.2% (gateway JSON), before against before
// -3.7/+1.2%: not resolved. Callgrind (all threads, 6,000 embedded JSON turns after 20,000, callgrind_control -i):
// before 98.7k/98.9k instructions a turn, after 98.5k/99.4k, off 97.2k: the turn runs the same code. Fifteen forced
// full GCs after 20,000 turns: before 209.3M instructions, after 196.0M, off 186.7M, so metrics' GC surcharge
// +22.6M -> +9.3M: ~330 instructions a turn at one mark-compact per ~40k embedded turns (if a mark-compact costs
// what a forced GC does), under what time resolves. The gain is memory, modules and startup; metrics' CPU a turn
// stays what the Metrics-time note found. OTEL_NODE_RESOURCE_DETECTORS still takes the Node SDK, which reads it
// (test/metrics-sdk.test.ts compares the two paths' scrapes byte for byte).
// Span-path note (2026-12-01 14:20-15:10 UTC, issue 35's twenty-ninth session, span-path; Xeon, load 6-11 with two
// other sessions). The export hand-off, by function: callgrind of the built package, stored gateway JSON turns in
// process, both on, one process a build, 3 windows of 1,600 counted after 16,000 warm + 800 (floor-gap's driver, GC
// and compiles out). Whole-turn totals swung 295k-400k between windows (natives with no JS caller, Node's JS), so only
// our functions' self counts compare (spread under 40). On 2fe5e82: onEnd 757 + add 153 a turn (4 spans, 3 through
// onEnd: ~250 a span), the POST once in 128 turns (seal ~1.2k a turn inclusive, plus Node's http, which the floor pays
// too). Tried (branch span-path, 731d9dd): the bounds in the export's own fields, the batch's last group kept (no
// loop a span): onEnd + add -> 207, but onEnd then inlined into span-ends' functions (+432 there): ends, export,
// encoding and template 9,280 -> 9,009-9,071 (-210 to -270), under the 500 asked; not landed. Last session's
// second-read leftovers: msAt's arithmetic shared with ProtobufBuffer.nanosecondsAt through one module function
// (span-path-leftovers, 7cf1075): writeWhole inlines msAt and calls the shared function (879 a turn against 539; one
// module call a span for both times, ~170 worse still); ProtobufBuffer.varintAt for every varint loop
// (span-path-varint, 46b916d): not inlined into writeWhole (124-132 a turn), the encoding functions 5,320 ->
// 5,419-5,445. Neither landed: writeWhole's inlining budget is spent, so a helper it shares is a call; the two copies
// stay, each with its reason at its place. The upstream traceparent: Node checks every header given to http.request
// (array or object, ~1.4k instructions a header here, 5 a turn); only headers already in its table (setHeader, which
// checks them) skip it, so no public path sends ours unchecked.
// Span-start note (2026-12-01 14:20-15:10 UTC, issue 35's twenty-ninth session, span-start; Xeon, load 6.5-11; the
// method of the span-path note, each function the same in every window within 6 instructions). On 2fe5e82 a turn's
// four span starts are startFixed 2,656 (OwnFixedSpan's and SpanIds' constructors inlined into it) + take 195: ~710
// instructions a span, nearly all of it the constructors' work, not the second object. A span holding its ids itself
// (PooledIds: pool offsets, flags, trace state as its fields; its SpanContext made when asked, then kept; the
// encoder, template, export and traceparent reading the span; branch span-start-one-object, e8c94a7) put
// OwnFixedSpan's constructor in a frame of its own (2,771), no longer inlined: Builtins_FastNewObject +754 a turn,
// the span path's functions 10,056 -> 10,370. Not landed; inlined, the one object would save ~100. Clock reads:
// performance.now() is 184 instructions a call (micro, 300k calls less an empty loop), 54 of them Node's receiver
// check through ObjectPrototypeHasOwnProperty; process.hrtime() with its arithmetic 76. In the turn (the built
// package patched to read hrtime): startFixed -113, end -199, hasOwnProperty natives -432, FastPerformanceNow -80,
// Node's now -107, the new reader +801 (not inlined, ~100 a read): ~-130 a turn, not kept. The fieldAt/fieldValue
// merge (0f4a634) left the encoding functions unchanged (writeWhole 3,990, fieldAt 122). So the span start's ~2.4k
// above the floor is the constructors' field stores, the parent's lookup and the ids' draw, not an object to remove.
// Knock-on-2 note (2026-12-01 17:05-18:00 UTC, issue 35's thirtieth session, knock-on; Xeon, load 4-9 with two
// other sessions). What are the floor-gap accounting's +8.1k instructions of "the rest of the turn" with telemetry
// on? Callgrind of the built package, stored gateway JSON turns in process (floor-gap's driver, one process a
// setting, 16,000 warm, 3 windows of 1,600 after 800, main thread, compiles and GC left out), 5 off and 6 on
// processes. With --no-memory-reducer: off 269.82-269.86k, on 295.5/295.7/296.0k (clean windows): +25.7k, telemetry's
// own JS (dist/telemetry, node/own-*, otlp-*, span-clock, the SDK) +14.0k. The other +11.7k: natives +7.2k (builtins
// +2.8k, runtime and allocation +2.7k, megamorphic IC +1.8k), our turn code's JS +1.85k, Node's checks of the upstream
// traceparent +1.36k JS and +0.46k regexp natives, telemetry glue in turn files (service/telemetry.ts, store-spans,
// part-meter, httpMetrics' answered) +0.92k, Node's other JS +0.35k. By function the turn code's rise is telemetry
// inlined or called there (endedWith +663: the notes' span end and the meter; Started.run +436: the part meter) and
// V8's inlining moving (stream.js run -965 / advance +717; the admission and bodyLimit closures +603 / tenantLimits
// -241); _http_agent's keyed loads go megamorphic with the span POST's second origin (+1.2k against -1.7k of
// KeyedLoadIC and PolymorphicName); addRequest is optimised with 13 generic LoadICs (+1.2k) where off leaves it in
// baseline. With --no-turbo-inlining the non-telemetry JS that rises is where telemetry calls (header checks +2.4k,
// performance.now +727, the glue +1.8k), unchanged code a few hundred (UpstreamCall.send +134, advance +132). So no
// site goes megamorphic or takes another path that a change of ours could make common: the traceparent's header
// checks are Node's (per header, its 55 characters through two regexps), the rest is telemetry's own work counted
// by file. Tried: the span POST's Agent with the upstream's option keys (maxSockets set after): 298.1k against
// 295.5/295.7k, no change in _http_agent's ICs; not landed. Also learnt: parts.py counts writeWhole (3,990) as turn
// code and misses scavenger natives (3-12k a turn); callgrind's on windows spread 300-372k from deopt waves (lazy
// "weak objects" after memory-reducer mark-compacts, eager ones at a window's start) with Node's http client then in
// baseline code, none of which the process shows without valgrind in 160,000 turns (--trace-deopt): run the
// accounting with --no-memory-reducer (off's spread 32 instructions) and read windows by their baseline share. The
// readers (decomp.py, top.py, calls.py, tiers.py, knock.py, a deopt-count driver) are on branch knock-on, 7e2b1cd.
// Glue-ICs note (2026-12-01 20:15-21:30 UTC, issue 35's thirty-first session, glue-ics; Xeon, load 1-10 with two
// other sessions). Which objects make the generic loads in the turn's glue (~1k a traced turn by knock-on's call
// arcs: staged, before, begin, within, the quota's settle, httpMetrics' answered)? Callgrind of the built package,
// stored gateway JSON turns in process (floor-gap's driver, one process a setting, 12,800 + 800 warm, 3 windows of
// 1,600, --no-memory-reducer), IC builtins charged to their JS callers by call arcs (calls.py), each generic load's
// name read from --print-opt-code (--redirect-code-traces-to a file), V8's IC log and %HasFastProperties. All of
// those sites were one object: the OpenTelemetry API's registry (globalThis[Symbol.for('opentelemetry.js.api.1')]),
// which telemetry-floor-turns and telemetry-split-turns left a dictionary by registering the tracer first and
// unregistering it first (V8 undoes only the deletion of the last-added property); its reads (instruments, tracing,
// contextManaged, the W3C checks) went through LoadIC: 1.22k a traced turn that the CLI, registering once, never
// pays. The fixtures now register in startTelemetry's order (registerAll / unregisterAll, 60ba81c): those calls
// are gone. So the in-process floor, split and knock-on "on" figures before 60ba81c carry ~1.2k of that artefact;
// telemetry-turns.ts (one registration a process) did not. request.traceContext, the facts and the turn options
// are monomorphic; staged's stage.before / answered are polymorphic at V8's limit of 4 maps (4 stages): logging or
// CORS makes a fifth and them megamorphic. With telemetry off two were ours: resolveLimits' Object.assign({}, 26
// defaults) made a dictionary (the stream's take 656, readBody 73, createResponse 73) and parentOr's
// context.active() the API's megamorphic keyed lookup (136 a call, begin and startClientSpan). Either cut alone
// moved V8's inlining and saved nothing (medians of the windows, off: 269.3/270.0/270.3k in 3 processes before;
// the spread alone 270.0/269.6k, parentOr alone 270.2k); both: 268.9/268.2/268.7k, -1.25k, every window below the
// same window of each process before (438773f, badd4fb). On (fixed fixture), the clean windows: 295.5k before,
// 294.5k after. Left: the Chat Completions translator's this.open[kind] / PART_TYPES[kind] (~0.5k a gateway turn,
// megamorphic keyed), response-json's and input-json's LoadIC_Megamorphic (~1.6k, items of many shapes), Node's
// _http_agent and streams.
// Stage-shape note (2026-12-01 23:18 - 2026-12-02 00:23 UTC, issue 35's thirty-second session, stage-shape; Xeon,
// load 3-19 with three other sessions). Does a server with the request log or CORS make staged's stage.before /
// stage.answered megamorphic (the Glue-ICs note's fifth map)? Stages: the bench's 4 (server spans, httpMetrics,
// requestIds, errorMapping); the CLI always adds logging (failureLogger without --log-format, requestLogger with
// it); the library's `cors` adds corsHeaders (and corsPreflight, a middleware); the CLI has no CORS option. Maps
// (%HaveSameMap on the built stages): httpMetrics', logging's and corsHeaders' {answered} literals share one map, so
// every setup has 4: spans, {answered}, {before, answered}, {answered, failed}. V8's IC log (--log-ic, read by code
// range) shows both sites 0 -> 1 -> P with 4 maps, bench's stages and logging + CORS alike: never megamorphic, and
// AnswerStage is internal (options.middleware takes Middleware only). One shape for every stage would save only a
// 4-way map check, tens of instructions a turn: not made. What logging + CORS cost (callgrind, built package, stored
// gateway JSON turns, floor-gap's driver with the stages chosen, 12,800 + 800 warm, 3 windows of 1,600,
// --no-memory-reducer, windows with a baseline wave left out): off +1.3k a turn over the bench's stages, of which
// corsHeaders' Object.assign(response.headers, record) was 971 (Builtins_SetDataProperties), logging's answered 62.
// The stage now sets its four headers by name (96-101 a request): off 268.2-269.6k (median 269.05k) in 3 processes
// before, 266.8-267.8k (267.1k) in 3 after, every window below every window before; on 295.0-303.9k (298.4k) and
// 293.9-299.8k (296.9k), within the windows' spread (628a60e). Tools on branch stage-shape-tools (d699868).
// Kind-loads note (2026-12-01/02 23:18-00:30 UTC, issue 35's thirty-second session, kind-loads; Xeon, load 7-16 with
// three other sessions). The two sites glue-ics left: what made them generic, and what a cut saved. V8's IC log
// (--log-ic over 3,200 stored gateway JSON turns, events mapped to functions by code-creation) and callgrind of the
// built package (floor-gap's driver, one process a setting, 12,800 + 800 warm, 3 windows of 1,600,
// --no-memory-reducer), IC builtins charged to their JS callers by call arcs (calls.py). (1) The Chat Completions
// translator: this.open[kind] and PART_TYPES[kind] were keyed loads by three names, megamorphic in end (which closes
// the reasoning before every text delta and all three kinds in finish) and translate: 503 instructions a JSON turn
// (finish 295, translate 208), once a delta more in a streamed one. Each kind's open item is now an object (OpenItem:
// id and part types, named fields): 0, its JS +95. Alone within the processes' spread (medians of the windows, off:
// 269.86/268.70k before, 269.79/269.12k after); the translator alone on the stub's streamed chunks (a micro under
// callgrind, by difference of two run lengths): 11,983/12,672 -> 10,521/10,021 a turn (925c45c). (2) response-json /
// input-json: every generic load there (LoadIC_Megamorphic, 1,768 a turn) was one site, plainFields' two loads
// (constructor, toJSON) inlined into hasKeys and its callers, which met 11 maps a turn (response, text, format,
// usage, two token details, metadata, message, output_text; input message and part); no item-kind field read and
// no keyed load there was generic by call arcs. Each group of up to four shapes now has a check of its own
// (plainTop, plainDetail, plainItem; plainFields input-json's), itemText one check for both message shapes: 0.
// Both cuts, off (2 processes a side, not 3: a run took ~8 min at that load): windows 267.85/268.73/267.12k and
// 268.00/269.17/267.24k against 269.84/271.33/269.86k and 268.70/270.02/267.79k before, every window below every
// process's before, -1.0 to -2.0k by median (f90a37d). On, one process a side: 291.96/295.92/292.13k, all clean,
// against 296.06k, the one clean window before (329.2/310.8k with deopt waves); these files' generic loads 2,271 -> 0
// a turn either way. Left: Node's streams and _http_agent (the turn's other generic loads, ~10k by call arcs:
// Readable.on/removeListener, _http_incoming's get), and a streamed-turn callgrind driver (the floor fixtures make
// JSON turns only). Tools on branch kind-loads-tools, 005cc1b.
// Span-gap note (2026-12-02 02:25-03:20 UTC, issue 35's thirty-third session, span-gap; Xeon, load 4-16 with three
// other sessions). The gateway JSON turn's telemetry against the floor by part, on 4315296: callgrind of the built
// package, stored gateway JSON turns in process (floor-gap's driver, one process a setting, 12,800 warm, 3 windows
// of 1,600 after 800, --no-memory-reducer, main thread, GC and compiles out); 4 on, 3 floor, 2 off processes, read
// only in windows whose baseline share (JS:^/~ frames, *_Baseline builtins) is under ~1.1k (the others +4-37k).
// Off 266.2-268.3k; floor +16.9-18.7k (own work 13.6k, rest +4.3k); ours +25.0-30.3k (median +26.6k; own 18.1k,
// rest +8.4k): +9.3k above the floor (the Floor-gap note's 13.6k). By part, ours / floor, with their natives: span
// start 3.3k + propagation 1.7-1.95k / 1.3k (the floor's begin, ids, traceparent, clocks); Node's checks of the
// upstream traceparent 1.25k / 0 (value regexp 0.79k, name 0.23k, processHeader; the floor in process sends none);
// ends and glue 3.2-3.3k / 3.35k; encoding 5.6k (writeWhole 4.0k, which parts.py had as turn code) / 6.3k; export
// 1.15-1.4k / ~0; metrics 1.85k / 1.84k. Per span: startFixed 663, onEnd 126-252 (inlining varies by process),
// writeSpan 146, writeWhole ~1k. Clock reads: 19 performance.now() a traced turn against 8 off; the 11 more (4 span
// starts, 4 ends, 3 of the turn meter) cost ~100 instructions each in natives (the receiver check's hasOwnProperty
// 55, uv_hrtime, the fast call, clock_gettime), ~1.7-2.0k a turn with their JS, and about 8 of them fall in the same
// synchronous stretch as a read the turn makes anyway (staged's start and the server span's before; httpMetrics'
// answered and endServerSpan; UpstreamCall's start, its answer and the client span; runner.begin, the turn span
// and MeteredTurn; the store's use-order and its span). Tried (micro, callgrind, 100,000 traceparents, each with
// Node's header check): today 2,910 instructions, hex pairs in a scratch Buffer read by toString('latin1') 2,838, by
// the undocumented latin1Slice 2,456 (Node-only, not public: not for telemetry/), the pool's hex made once and
// sliced 3,158. No cut made: span start, export and the traceparent were tried before and don't reach 0.8k; the
// second window of every process carries ~1.6k of Map/Set rehashes in every setting (the store's tables).
// Tools on branch span-gap-tools (own.py, floorparts.py, callers.py).
// SSE-turns note (2026-12-02, issue 35's thirty-third session, sse-turns; load 6-22 from three other sessions).
// A streamed gateway turn by instructions: fixtures/callgrind-turns.ts (telemetry-turns.ts under callgrind, one
// process a setting, the stub's 15 parts read to the stream's end, main thread, GC and compiles left out,
// --no-memory-reducer, the metric export at 1 h). Off 830.0-831.0k a turn (3 windows of 400 after 6,400), another
// off process 835.6-842.5k (process spread 5-12k: StringTable lookups, malloc_consolidate); metrics 837.9-838.4k in
// the cleanest windows of two processes (+0.9%); both 858.1-859.2k and 857.2-857.6k in two clean processes (25,600
// warm, 800 a window): +27.9k (+3.4%) against the first off, +16.6k against the second. Two of four both processes
// still warmed or scavenged 4-7x as often (19 in 400 turns, 28-38 in 800, against 4-5 in 800: V8 sizes the young
// generation by allocation per wall-clock ms, which valgrind stretches); CALLGRIND_TURNS_NODE=--min-semi-space-size=16
// held it (windows within 0.4k). Scavenge roots (IterateObjectCache, RootScavengeVisitor) are GC that parts.py
// misses: leave them out too. By part (both against off, medians): telemetry's own JS 14.0k (encoding 5.3k, of it
// writeWhole 4.1k; span start 2.9k; ends and glue 2.3k; metrics 1.9k; propagation 0.9k; export 0.6k), glue in the
// turn's files 1.8k, turn code knock-on 2.2k (the part meter inlined in turn/stream.ts' resume +0.87k, in metrics
// too), Node's header checks 1.4k + regexps 0.5k, Node's other JS 1.5k (the HTTP agent's inlining), natives ~9k
// (process-dependent). The same four spans and the same ~14k of own JS as a gateway JSON turn; streamed-only are the
// part meter's check of each part (~0.9k; time to first token is already taken once), the stream-end watchers
// (StreamDuration, ServerSpanEnd, ~0.3-0.7k) and knock-on in the stream's code: ~1.5-2k a turn, no span event,
// metric or encoding per event or delta. No cut: what runs per part is below the processes' spread. By
// instructions a streamed turn's telemetry is +2-3.5%, so the gateway SSE row's +15.1% in time is not its
// instructions: allocation, GC and cold code (the SSE time note's GC and compile tail, the Allocation note's cache
// sim).
// Sampled-10 note (2026-12-02, issue 35's thirty-third session, sampled-10; load 1.8-12.5). Is 10% dearer than its
// parts? Sweep (TELEMETRY_SAMPLING_SWEEP=1 / =gateway, two processes a setting, main thread, median round): gateway
// JSON off 127.9 | 156.1/138.3, metrics 130.7/159.1 | 156.6/147.2, 0% 159.4/137.9 | 167.9/153.0, 10% 144.5/142.9 |
// 148.0/161.0, 100% 162.8/157.7 | 203.8/186.4 µs: 10% +12.4% / +5.0% against its parts' +14.5% / +6.1%. Met by its
// parts; twins of one setting 1-22% apart, so the one-process 10% rows (+19.1%) are within a process's luck.
// Embedded JSON (three runs): 10% over its parts by +1.2-1.9 µs (~5%); paired in its own process, a sampled turn
// adds 25.9-44 µs where a turn at 100% adds 10.1-12.3 (2.6-3.6x); sampled-out turns cost what 0% turns do.
// Callgrind (built package, one process a setting, --no-memory-reducer, incremental marking kept): gateway 0%
// 269.5-273.0k, 100% 296.2-300.5k, 10% sampled windows 272.1-277.7k against its forced 269.1-272.1k; per sampled
// turn the JS parts equal 100%'s (span start 2.89/2.87k, glue 2.70/2.59k, encoding 1.41/1.33k), the rest window
// noise x10. Embedded: 0% 88.9-90.9k, 100% +15.8k, a sampled turn +33k (2.1x): same JS, the excess IC builtins
// (+3.6k LoadIC), Sparkplug builtins (+2.3k), code creation (+1.1k); I1 misses +1.76k vs +1.01k, mispredicts 2x.
// Why: at 10% the sampled path reaches TurboFan late (--trace-opt, gateway: writeSpan, endTurnSpan, putNow,
// depsFor at 22-29k turns; own-span end, the export's onEnd, startsOfStore at 37-46k; ~3.2k at 100%), and V8
// inlines no callee below 0.15 of its caller's calls (--min-inlining-frequency), so sampled-only callees of
// shared functions never are. With 0.05 the embedded sampled turn came to its parts in instructions (+12-16k,
// one process), not in time (24.4 vs 7.6 µs): what is left is a cold path (caches, branch predictors).
// So: the gateway's 10% rows are noise; the embedded's excess is real and mostly cold code and baseline tiers,
// not the shared runner or store (tools on branch sampled-10-tools, 225f55e).
import { startOtlpSinks } from './fixtures/otlp-sink-process.js';
import { startStub } from './fixtures/upstream-process.js';
import { compareSamplingRatios } from './fixtures/sampling-sweep.js';
import { compareSpanPaths } from './fixtures/span-floor.js';
import { compareTelemetryFloor, compareTelemetryFloorInProcess } from './fixtures/telemetry-floor-run.js';
import {
  compareSpanStages,
  compareTelemetry,
  compareTelemetrySplit,
  compareTurns,
} from './fixtures/telemetry-overhead.js';
import { EMBEDDED_JSON_TURN, gatewayTurn } from './fixtures/turn-bodies.js';

const embeddedSse = JSON.stringify({
  model: 'openresponses-deterministic',
  input: 'Tell me a long story [long]',
  stream: true,
  store: false,
});

export async function run(): Promise<void> {
  const embedded = [
    { title: 'JSON, embedded model', body: EMBEDDED_JSON_TURN },
    { title: 'SSE, embedded model', body: embeddedSse },
  ];
  const gateway = [
    { title: 'gateway JSON', body: gatewayTurn(false) },
    { title: 'gateway SSE', body: gatewayTurn(true) },
  ];
  // What the SDK's span path costs by itself, stage by stage, against the API's no-op spans: the floor under
  // "both on"; then a turn's spans stage by stage (the server's own span work, the SDK's spans, their export).
  const sinks = await startOtlpSinks();
  const stub = await startStub();
  try {
    // TELEMETRY_SAMPLING_SWEEP=1: only the sampling sweep (the tenth session's note above), embedded JSON turns,
    // ~5 min; =gateway: gateway JSON turns (0 / 10 / 100% and metrics, two processes each, and off), ~8 min.
    if (process.env.TELEMETRY_SAMPLING_SWEEP === '1') {
      await compareSamplingRatios(sinks, ['metrics', '0', '0.1', 'forced 0.1', '0.1#2', 'burst-0.1', '1', '1#2']);
      return;
    }
    if (process.env.TELEMETRY_SAMPLING_SWEEP === 'gateway') {
      const settings = [
        'off',
        'off#2',
        'metrics',
        'metrics#2',
        '0',
        '0#2',
        '0.1',
        'forced 0.1',
        '0.1#2',
        'forced 0.1#2',
        '1',
        '1#2',
      ];
      await compareSamplingRatios(sinks, settings, stub.url, 40_000, 800, 24);
      return;
    }
    // The telemetry floor beside the CLI over HTTP (fixtures/telemetry-floor-run.ts); TELEMETRY_FLOOR_ONLY=1: it alone.
    // TELEMETRY_FLOOR_ONLY=process: only its in-process half (the gateway's and the embedded turn's floors);
    // =embedded: only the embedded JSON turn's floor in one process.
    if (process.env.TELEMETRY_FLOOR_ONLY === 'embedded') {
      await compareTelemetryFloorInProcess(sinks, '-');
      return;
    }
    if (process.env.TELEMETRY_FLOOR_ONLY === 'process') {
      await compareTelemetryFloorInProcess(sinks, stub.url);
      await compareTelemetryFloorInProcess(sinks, '-');
      return;
    }
    if (process.env.TELEMETRY_FLOOR_ONLY === '1') {
      await compareTelemetryFloor(sinks, stub.url);
      await compareTelemetryFloorInProcess(sinks, stub.url);
      await compareTelemetryFloorInProcess(sinks, '-');
      return;
    }
    // TELEMETRY_TURNS_ONLY=1: only the four processes' in-process rows (compareTurns; TELEMETRY_TURNS_ROUNDS=n
    // rounds, 10 unless set; TELEMETRY_TURNS_MODES=off,both,off,both for an A/A check), ~4 min; =gateway: the
    // gateway's alone.
    if (process.env.TELEMETRY_TURNS_ONLY === '1' || process.env.TELEMETRY_TURNS_ONLY === 'gateway') {
      if (process.env.TELEMETRY_TURNS_ONLY === '1') await compareTurns(embedded, sinks);
      await compareTurns(gateway, sinks, stub.url);
      return;
    }
    // TELEMETRY_CLI_ONLY=1: only the CLI's rows over HTTP (compareTelemetry), ~5 min; =embedded or =gateway: that
    // half (TELEMETRY_CLI_ROUNDS=n rounds, 7 unless set; TELEMETRY_CLI_MODES=off,both,off,both for an A/A check).
    const cliOnly = process.env.TELEMETRY_CLI_ONLY;
    if (cliOnly === '1' || cliOnly === 'embedded' || cliOnly === 'gateway') {
      if (cliOnly !== 'gateway') await compareTelemetry(embedded, sinks);
      if (cliOnly !== 'embedded') await compareTelemetry(gateway, sinks, ['--chat-completions-url', stub.url]);
      return;
    }
    // "Telemetry on" split by part, each setting against off in one process: the evidence per setting.
    await compareTelemetrySplit(embedded.slice(0, 1), sinks);
    await compareTelemetrySplit(gateway.slice(0, 1), sinks, stub.url);
    if (process.env.TELEMETRY_SPLIT_ONLY === '1') return;
    await compareTelemetryFloor(sinks, stub.url);
    await compareTelemetryFloorInProcess(sinks, stub.url);
    await compareTelemetryFloorInProcess(sinks, '-');
    await compareSpanPaths(sinks);
    await compareSpanStages(embedded, sinks);
    await compareSpanStages(gateway, sinks, stub.url);
    // The SDK is global to a process: each setting runs in its own.
    await compareTurns(embedded, sinks);
    await compareTelemetry(embedded, sinks);
    await compareTurns(gateway, sinks, stub.url);
    await compareTelemetry(gateway, sinks, ['--chat-completions-url', stub.url]);
  } finally {
    stub.stop();
    sinks.stop();
  }
}
