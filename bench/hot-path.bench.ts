// The gateway against a floor (issue 35): the real CLI (`openresponses-server`, what `npm start` runs, with
// --chat-completions-url) and a bare translator (./fixtures/bare-translator.ts: read, JSON.parse, one
// keep-alive upstream call, parse, build and serialize the Responses object or its events) each in its own
// process in front of the same Chat Completions stub, driven by the same loader. The figure is each server
// process's CPU time (user + system, read from /proc, so the same way for both) per request, not requests/s,
// which a shared machine makes noise of; the two alternate round by round and the medians are compared.
// Then the time to first token of a streamed answer, one request at a time: direct to the stub, through two
// relays (the floor of one more process: bytes piped, then an HTTP exchange piped), through the bare
// translator and through the gateway, and what each adds.
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkStream, decodeSSE } from '@openresponses/events';
import { validateResponseResource } from '@openresponses/types/validate';
import {
  CLI_V8_FLAGS,
  load,
  median,
  processStat,
  startServerProcess,
  WARM_REQUESTS,
  WARM_SECONDS,
} from './fixtures/load.js';
import { startStub } from './fixtures/upstream-process.js';

/**
 * ms from sending a streamed request to reading `marker` (the first text delta), one request at a time over
 * one keep-alive connection (`node:http`: the client's own cost as small as it gets, the same for every path).
 */
function timeToFirstToken(url: string, body: string, headers: Record<string, string>, marker: string, agent: Agent) {
  return new Promise<number>((resolve, reject) => {
    const started = performance.now();
    let first = 0;
    let text = '';
    const sent = request(
      url,
      {
        method: 'POST',
        agent,
        headers: Object.assign(
          { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          headers,
        ),
      },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (first) return;
          text += chunk;
          if (text.includes(marker)) first = performance.now() - started;
        });
        response.on('end', () => resolve(first));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Both servers must answer as the spec says before their costs are compared: a JSON answer must be a valid
 * `ResponseResource`, and a stream must pass the toolkit's stream checker (every event valid, in the spec's
 * order, its terminal response matching what was streamed). A floor that sends less is not a gateway.
 */
async function assertSpecAnswers(
  name: string,
  url: string,
  headers: Record<string, string>,
  body: (stream: boolean) => string,
) {
  const post = (stream: boolean) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body(stream) });
  const json: unknown = await (await post(false)).json();
  const verdict = validateResponseResource(json);
  if (!verdict.success) throw new Error(`${name}: its JSON answer is not a spec ResponseResource`, { cause: verdict });
  const stream = decodeSSE((await post(true)).body!);
  const events: unknown[] = [];
  for await (const event of stream) events.push(event);
  const violations = checkStream(events, { sawDone: stream.sawDone }).filter((v) => v.severity === 'error');
  if (violations.length > 0 || events.length < 3)
    throw new Error(`${name}: its stream of ${events.length} events breaks the spec`, { cause: violations });
}

/*
 * Profile note (issue 35, main at 6c31cec, 2026-11-28 16:50 UTC, load average 3.5-6): where each process's CPU
 * per request goes, from `perf record -e cpu-clock -F 2999 -g` (every thread, kernel included; Node run with
 * `--perf-basic-prof-only-functions`) of the built CLI and the bare translator under this bench's loader, 15,015
 * requests a case after 5,000 of warm-up. Each sample is charged to its innermost JavaScript frame (a builtin
 * or Node C++ frame to the JS frame above it) unless it is GC, JSON, llhttp, the JIT or the kernel. Shares
 * from perf, scaled to the CPU per request measured without it in the same session (bare / gateway: 110 / 193
 * µs JSON store:false, 121 / 224 stored, 267 / 496 SSE):
 *
 *                                              JSON store:false      JSON stored        SSE stored
 *                                              bare   gateway        bare   gateway     bare   gateway
 *   Node: http JS, streams, net, events, ticks,  64      83            71      88         127     169
 *     C++ and libuv, llhttp (floor)
 *   kernel: socket writes/reads, epoll (floor)   13      19            15      20          25      38
 *   V8: JSON.stringify + JSON.parse (floor)       6       8             7      10          35      51
 *   V8: GC, every thread (floor)                  4       3             5      11          13      34
 *   V8: JIT, unattributed natives                19      21            20      23          24      44
 *   the bare translator's own JS                  4       -             4       -          45       -
 *   ours: turn (prepare, streamTurn, runner,      -      13             -      20           -      60
 *     output meter)
 *   ours: provider, upstream call, translation    -      19             -      18           -      48
 *   ours: adapter, handler, middleware, nodeFetch -      14             -      18           -      24
 *   ours: events writer, accumulator, encoder     -       8             -      10           -      14
 *   ours: service, quota, limits, validation      -       5             -       4           -       8
 *   ours: store and lru-cache                     -       -             -       2           -       6
 *
 * Ours is ~58 µs of a JSON store:false request (30%), ~72 stored, ~160 SSE. Node's own exchange costs the
 * gateway ~30% more than the bare translator's (83 against 64 µs) though both make the same calls (strace: 2
 * writev and 2 read a request each): the same optimized Node functions (clearBuffer, ClientRequest,
 * _storeHeader, processTicksAndRejections, removeListener) take 1.6-3x the samples a request beside a turn, and
 * reading `req.headers` builds Node's header object (matchKnownFields), which the bare server never reads. With
 * Node at the bare server's cost, 1.5x (165 µs) would leave ours 59 µs; at the cost it runs at beside the turn
 * (135 µs), ours would have to be ~30 µs, half of today's, for JSON store:false. In one process
 * (`service.handle`, the Chat Completions provider over a canned in-memory fetch) a turn is 33 µs store:false
 * and 45-49 µs stored, and allocates ~42-47 KB (new-space growth with a semi-space too large to collect; 50 KB
 * on 71ef7f9), spread over ~40 sites none above 5 KB (the sampling heap profiler with collected objects
 * included). Tried and dropped: a larger young generation (`--max-semi-space-size=32`: 1.02x / 1.00x), a
 * `Map`-ordered LRU for the store (8.2-8.8 µs a write against lru-cache's 0.64-0.84: V8's ordered hash map
 * walks the deleted slots at its front), one timer for the upstream call's idle and deadline bounds (0.4 µs).
 */
/*
 * Profile note (issue 35, json-turn, 2026-11-28 19:20 UTC, load average 4-8): the JSON turn after its writer
 * stopped building events nobody watches (the unwatched writer) and streamTurn became one object. The built
 * CLI of this branch and of main without those two commits side by side (interleaved rounds, CPU from /proc,
 * 11 rounds of 3 s): JSON store:false 223 -> 201 µs per request (0.90x), stored 259 -> 218 (0.84x), at load
 * 7.7-8.8; in one process (`service.handle` over a canned fetch, 31 interleaved rounds) 54.7 -> 48.6 µs
 * (0.89x) and 78.9 -> 65.8 (0.83x). `--cpu-prof` of the built CLI under this bench's loader (25,000 requests,
 * self time by file, scaled to the 205 / 265 µs per request measured with the profiler on):
 *
 *                                               store:false   stored
 *   writev (the kernel's socket writes, floor)        64         95
 *   Node's http client, agent, server, streams,       55         58
 *     events, microtasks (floor, and its extra)
 *   V8: GC, JIT (floor)                               13         18
 *   ours: JSON.stringify of the answer, JSON.parse    10         13   (the runner's one serialization for
 *     of the upstream's (the floor's own work)                           store + wire is in "turn" when stored)
 *   ours: turn (prepare, TurnStream, runner, echo)    13         24
 *   ours: provider, upstream call, translation        10         11
 *   ours: adapter, handler, middleware                 7          9
 *   ours: writer, nodeFetch, service, quota,           9         12
 *     telemetry, store
 *
 * Ours beyond the floor's own work is ~40 µs store:false, ~50 stored (at this load), spread over ~40
 * functions none above ~1.5 µs: the turn's largest are the part loop, the output meter's jsonBytes of
 * start/end/finish parts, prepareTurn, providerRequest and the 30-field starting response. If the 0.90x /
 * 0.84x hold idle, against a83c13e's idle figures store:false would be ~131 µs against a 1.5x bound of 125
 * (bare 83) and stored ~166 against 144 (bare 96): the lead's idle run on the final commit decides.
 */
/*
 * Profile note (issue 35, seventh session, 2026-11-29 00:15-01:30 UTC, load average 4-19 from the other
 * sessions' work). `--cpu-prof` of the built CLI on aa9b58b under this bench's loader (35,015 JSON store:false
 * requests, load 4.4), self time a request with the profiler on (~600 µs a request profiled against ~280
 * unprofiled: shares carry over, µs do not). The provider's and the upstream call's files together:
 * node/http-fetch 9.4, models/upstream-provider 5.1, chat-completions/request 4.6, chat-completions/provider
 * 4.2, models/upstream-call 3.2, chat-completions/response 2.8, responses/context 1.6: ~31 µs profiled, ~5% of
 * the request, ~15 µs unprofiled. At zero they would not take 1.49x (283 against 190 µs idle) to 1.35x (256
 * µs): that needs ~27 µs. The largest single frames are the floor's own work, run cold beside a turn: the
 * answer's JSON.stringify (16 µs profiled; 6-9 µs for the same 1,050-byte object in a tight loop at that
 * load) and JSON.parse of the 330-byte completion (parseUpstreamJson 8-9 µs; 2.6-3.0 µs in a tight loop),
 * then Node's http client (addRequest, ClientRequest, socketOnData, the agent's free listener: ~30 µs).
 *
 * Cuts of this session, each measured in one process against aa9b58b's build, interleaved rounds:
 * - The JSON exchange in one async function instead of an async generator, and the whole-body read as chained
 *   promises (UpstreamModelProvider.open, UpstreamCall.text): provider.generate over a canned completion,
 *   11.50 -> 10.52 µs a call (median per-round 0.926, 15 rounds, load 11.4); whole service.handle turns over
 *   the same canned answer 33.9 -> 31.8 µs (0.958, 21 rounds, load 10.8).
 * - nodeFetch's header list: `concat` took V8's generic path (1.25-1.76 µs); a slice and a push 0.31-0.50.
 * - toChatRequest without route defaults as one literal, one-part text as its string: 168 -> 51 ns a call.
 * The provider with the first and third (canned fetch, 21 rounds, load 17.4): 7.97 -> 6.94 µs a call,
 * median per-round 0.858 (0.58-1.38). Callgrind of the same loop (instrumentation switched on for 5,000 or
 * 20,000 calls) read 52-95 thousand instructions a call for either build, run to run: V8's background
 * threads and the switching cost more than the difference, so no instruction figure is given.
 * Over HTTP (aa9b58b's built CLI and this session's in front of one stub, interleaved rounds of 2 s, CPU from
 * /proc, load 15-19): JSON store:false medians of the per-round ratio 0.82 and 0.90 (15 and 11 rounds; rounds
 * 0.52-1.50), stored 1.02 (11 rounds, 0.56-1.83; with ref-server's store change beside): more than the cuts
 * sum to one way and less the other, so the machine, not the code: the lead's idle run decides.
 * Measured and not done: one timer for the call's idle and deadline bounds (the two timers are ~1.0 of the
 * ~1.4 µs an UpstreamCall lives in a tight loop; one saves ~0.5 µs but needs a clock read and a deadline check
 * per event); `on` instead of `once` for the body's listeners (no difference); completionParts without the
 * chunk translator (0.6 µs a call in all).
 * The 1 MiB stored turn's rope (server.bench.ts): the input's JSON made item by item, so that no rope is
 * flattened, costs more than the flatten it saves (945 items, one process, load 6.4: JSON.stringify of the
 * array 3.37 ms, + the Latin-1 test that flattens it 4.24, + the Latin-1 copy 5.10; per item, stringify and
 * test 5.93, into one Latin-1 buffer 7.16): a JSON.stringify call per item costs more than one pass over
 * its bytes. Not done.
 */
/*
 * Note (issue 35, tenth session, gw-cut, 2026-11-29 09:15-10:00 UTC, load average 5-12 from four sessions).
 * The ninth session made the turn synchronous until its first wait (7bf1f29, 8e6f607, c457697, 5c43e04,
 * 499fa5b). Whether that costs a provider that waits: a gateway JSON `store: false` turn through
 * `service.handle` (ChatCompletionsProvider over nodeFetch to the stub process, 16 in flight), built bcd3e33
 * against built main (4274093). Callgrind, `node --predictable`, main thread, instrumentation switched on after
 * 10,000 turns for 3,000: bcd3e33 425.8k / 426.0k instructions a turn (two runs), main 413.9k / 414.0k (-2.8%).
 * CPU a turn, the two builds in two processes, interleaved rounds of 4,000 turns after 20,000: main / bcd3e33
 * median per-round 0.935 (11 rounds, 0.87-0.99, load 7.5-10) and 0.997 (15 rounds, 0.83-1.19, load 8-11).
 * Main costs no more; nothing to fix.
 *
 * Time to first token, the floor: two relays in front of the stub (fixtures/relay.ts), measured in the same
 * interleaved run. At load 5 (2,000 requests each; the warm-up of the CPU rounds skipped): direct 0.506 ms,
 * TCP relay +0.182, HTTP relay +0.585, bare translator +0.880, gateway (its JIT cold) +1.40; at load 8-9 the
 * TCP relay +0.22-0.31, the HTTP relay +0.65-0.84. This bench whole at load 5.1, warmed: direct 0.331 ms, TCP
 * relay +0.216, HTTP relay +0.715, bare translator +0.782, gateway +1.027 (its CPU rows in that run: 1.44x,
 * 1.64x, 1.52x, bare SSE 364 µs against 395-398 idle before the bare's batched writes). One HTTP server and client exchange in one more process
 * (the HTTP relay, which passes the stub's bytes through untranslated) already adds more than the 0.35 ms
 * target on this shared 2-core machine under load; the idle run of the lead says whether it does idle. What the
 * gateway writes before the first token (strace, one request): a writev of the upstream request, one read of the
 * upstream's whole answer, then one writev of the head and the events up to the first delta, the rest after a
 * setImmediate; no wait for anything it does not need. The bare translator wrote each event in its own write
 * (see its note); it now writes an upstream read's events at once.
 */
/*
 * Note (issue 35, eleventh session, sse-cut, 2026-11-29 12:20-13:00 UTC, load average 5-11). Where the gateway's
 * SSE request goes beyond the bare translator's: callgrind (`node --predictable`, instrumentation switched on
 * after 3,000 streamed requests for 1,000, JIT frames named through --perf-basic-prof's map) of each server
 * process over HTTP, this bench's stub, 16 keep-alive connections, on 23478cd. Instructions a request, bare /
 * gateway: 1,032k / 1,380k (1.34x); V8's runtime (JSON, IC misses, strings) 695 / 621k, builtins 108 / 229k,
 * JIT code 71 / 177k, compilation still running under valgrind 40 / 159k, GC 19 / 87k, libc 58 / 65k, Node's
 * C++ 38 / 36k. JSON.stringify is the floor's (the gateway's is less: the stored text is the last event's).
 * The gateway's own, a request: the turn's part loop (turn/stream.ts take, handle, resume and the provider's
 * `streamed`, ~28k self), megamorphic loads and stores in Node's streams (Readable.on and removeListener ~45
 * calls, the headers getter of the request and of the upstream's answer), Object.assign copies ~17k (the
 * terminal response's one of them cut), the depth check of each upstream chunk ~15k (cut), the upstream frame
 * split ~11k (cut), the accumulator ~10k, the output meter ~3.4k, the wire check ~2.8k; the first token's
 * setImmediate and second write ~30k (kept: time to first token). Cut: 7c9863b (the depth check skips text
 * shorter than 2 * limit + 2: the stub's 15 chunk payloads 15,257 -> 879 instructions), b169c47 (a data-only
 * block taken whole: its 15-frame stream 22,978 -> 14,079), 0627066 (the terminal response spread: a watched
 * 20-event writer turn 55,849 -> 48,254): ~31k of a request's ~1,380k (~2%). The whole gateway SSE turn in
 * process (service.handle, 16 in flight, counters on after 6,000 turns for 1,500), without GC and compilation
 * (which swing 38-133k and 65-90k between runs): 978.5k -> 951.3k / 947.9k (two runs; 0.97x). Not measured
 * here: the CPU ratio of this bench's SSE row; the lead's idle run decides.
 */
/*
 * Note (issue 35, twelfth session, sse-margin, 2026-11-29 15:10-15:50 UTC, load average 3-13). The whole gateway
 * SSE turn in process as above (service.handle, 16 in flight, the stub in its own process, counters on after
 * 6,000 turns for 1,500; --predictable --no-incremental-marking --max-semi-space-size=64), on bf1b7b2: 982k
 * instructions a turn, of which compilation 33k and GC with malloc/free 62k (both swing between runs), the rest
 * 887k. The floor's share of it: JSON.stringify 231k (the events and the stored text), JSON.parse 187k (the 15
 * upstream chunks and the body), Node's Agent#addRequest 26k (`{ __proto__: null, ...options, ...this.options }`
 * copies dictionary objects in V8's runtime; the bare translator's requests pay it too). Ours in JIT code ~100k
 * self (turn/stream.ts 21k, the upstream provider 9k, the accumulator 7k, response-json 7k, turn-end 7k, the
 * frame split 6k); a cons string flattened by a charCodeAt 7.6k (the stored text, in the store's path). Cut:
 * 1f35fda (the writer's finished item, part and output kept by its accumulator, not deep-copied again): the rest
 * 887.0k -> 876.3k -> 874.2k (-1.4%; megamorphic keyed stores 11.7k -> 7.0k). Tried and dropped, each within
 * the noise: an open lane's parts delivered without the lanes Map lookup (-1.0k), the terminal response as one
 * clone plus Object.assign instead of the double spread (-0.8k). The ~10% that SSE <= 1.35x asks is in no one
 * place. The per-event pipeline (events.bench's, callgrind after 40 runs of 2,000 events in 16 KiB chunks):
 * 14.6k instructions an event with late compilations, JSON.parse alone 8.7k; not changed this session (see the
 * eighth session's profile in events.bench.ts).
 */
/*
 * Note (issue 35, fifteenth session, sse-gw, 2026-11-30 00:05-01:00 UTC, load average 3-5). What a gateway SSE
 * request does per upstream chunk that the bare translator does not. Callgrind (`node --predictable`, JIT frames
 * named from --perf-basic-prof-only-functions' map, instrumentation switched on after 3,000 requests for 1,003)
 * of each server process over HTTP, this bench's stub, 4 keep-alive connections, on 351f011: 1,707k / 1,423k
 * instructions a request, of which compilation still running under valgrind 465k / 330k; without it 1,242k /
 * 1,093k (1.14x). By kind, gateway / bare: V8's runtime 384 / 400k, builtins 255 / 182k, JIT code 172 / 81k,
 * JSON.stringify 151 / 209k (the gateway's stored text is its own serializer's and its last event reuses it),
 * JSON.parse 100 / 101k, GC 79 / 24k, libc 69 / 65k, Node's C++ 20 / 19k. Both make 3 writev and 2 reads a
 * request (strace -c, 2,000 requests); the gateway 971 futex calls to the bare's 513 (GC helper threads:
 * it allocates ~83 KB a turn, by the sampling heap profiler with collected objects, in process). A request is
 * 16 upstream frames (a role chunk, 12 words, finish, usage, [DONE]), 15 parts and 20 events. Ours, a turn in
 * process (service.handle over nodeFetch to the stub process, 16 in flight, on after 6,000 turns for 1,600;
 * JIT self and the builtins inlined into it):
 *
 *   step, per upstream chunk or what it makes                     ours, a turn    bare translator
 *   socket read to frames: MessageReader, the SSE frame decoder   ~11k (0.7k a    indexOf('\n\n') and slice
 *     (bytes to text, line split, the event and stream bounds)       frame)         in its read loop
 *   JSON.parse behind the depth bound (skipped for short text)    100k (floor)    100k
 *   the wire check (isChatChunk), the chunk translator to parts   ~6.4k (0.4k)    reads delta.content
 *   the provider's batch loop (a batch a read, first-output test)  ~8.8k (0.55k)   -
 *   the part loop (TurnStream: cancellation, output meter, token  ~24k (1.6k a    -
 *     count, lanes, delivery to the open item)                       part)
 *   the writer and its accumulator (the response kept current),   ~11k (0.55k an  the event object, text +=
 *     ids, sequence numbers                                          event)         delta, sequence numbers
 *   out: TurnEnd (the terminal event held until stored), the      ~6.2k (0.3k)    pending += frame
 *     emitter, the SSE frame, the burst buffer
 *   JSON.stringify of the events                                  151k            209k (its stored copy too)
 *   the stored text (response-json), the store                    ~7.7k           JSON.stringify, a Map
 *   a promise and microtask layer a read (not a chunk or event),  ~5k             for await over the message
 *     the first output's setImmediate (time to first token)
 *
 * and, spread over all of it, megamorphic loads and stores, Map lookups, string joins (builtins +73k over HTTP)
 * and the garbage (+55k, more with helper threads in a real run). No step is a tenth of the margin. Cut this
 * session: the encoder's line-break search once for a repeated type (0f03054), the chunk translator's open
 * items without a Map (e087faa), and response.in_progress reusing response.created's response JSON (one of the
 * turn's three response serializations; JSON.stringify 151k -> 135k a turn). In process, without compilation
 * and GC: 942.8k -> 915.0k instructions a turn (-2.9%).
 */
/*
 * Note (issue 35, eighteenth session, gw-sse, 2026-11-30 09:45-10:20 UTC, load average 2-5). Whether the SSE row's
 * rise (1.40x / 1.41x on 9c9d3d8, 1.60x / 1.55x on 1f0210d) is code: callgrind of the built CLI process over
 * HTTP (this bench's streamed stored request and stub, 16 keep-alive connections, telemetry off; `node
 * --predictable --no-incremental-marking --max-semi-space-size=64 --perf-basic-prof`, TurboFan, Sparkplug and
 * lazy compiles toggled out, instrumentation on after 8,000 or 20,000 requests, zeroed after 500 more, 3,015
 * counted). Instructions a request, less GC (`Heap::CollectGarbage` and the sweeping allocation does, both
 * inclusive), two runs each:
 *   9c9d3d8                               1,025.4k (8,000 warm-up)   1,020.5k (20,000)
 *   main b596a81                          1,023.1k                   1,017.9k
 *   one upstream timer (14673e8)          1,014.6k / 1,015.8k (20,000, two runs)
 *   bare translator (same harness, tsx)   1,003.8k (20,000)
 * The code did not get dearer (the writer's TextPart moved inlining between append and turn-end's `watched`,
 * no more). Left out above, GC: gateway 93-95k a request, bare 28.7k; allocated in process (service.handle, 16
 * in flight, the sampling heap profiler with collected objects) 79.6 KB a streamed turn, the largest sites the
 * events' JSON (7.5 KB), the 16 parsed chunks (6.4 KB), Node's http client and TextDecoder (~8 KB). Outside GC,
 * the gateway runs ~1.01x the floor's instructions: the CPU row's gap is most likely GC (on helper threads too in
 * a real run) and what callgrind does not count (cache misses), not instructions run.
 */
export async function run(): Promise<void> {
  const stub = await startStub();
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bare = await startServerProcess(
    [...CLI_V8_FLAGS, '--import', 'tsx', path.join(here, 'fixtures/bare-translator.ts'), stub.url],
    (port) => `http://127.0.0.1:${port}`,
  );
  const serverPackage = createRequire(import.meta.url).resolve('@openresponses/server/package.json');
  const apiKey = 'hot-path-bench-key';
  const gateway = await startServerProcess(
    [
      path.join(path.dirname(serverPackage), 'bin/openresponses-server.js'),
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--api-key',
      apiKey,
      '--chat-completions-url',
      stub.url,
    ],
    (line) => /^Open Responses server on (http:\/\/\S+)\/v1\/responses/.exec(line)?.[1],
  );
  const body = (stream: boolean, store: boolean) =>
    JSON.stringify(
      Object.assign(
        { model: 'stub-model', input: 'Hello! What can you do?' },
        store ? {} : { store: false },
        stream ? { stream: true } : {},
      ),
    );
  const servers: Array<{ name: string; url: string; pid: number; headers: Record<string, string> }> = [
    { name: 'bare translator', url: `${bare.url}/v1/responses`, pid: bare.pid, headers: {} },
    {
      name: 'gateway (CLI)',
      url: `${gateway.url}/v1/responses`,
      pid: gateway.pid,
      headers: { authorization: `Bearer ${apiKey}` },
    },
  ];
  for (const s of servers) await assertSpecAnswers(s.name, s.url, s.headers, (stream) => body(stream, false));
  const concurrency = 16;
  const rounds = 3;
  const seconds = 3;
  console.log(
    `CPU µs per request of each server process (user + system), ${concurrency} concurrent keep-alive connections, ${rounds} alternating rounds of ${seconds} s, medians; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `${'case'.padEnd(28)} ${'bare µs'.padStart(8)} ${'gateway µs'.padStart(11)} ${'gateway/bare'.padStart(13)}  per-round ratios (target <= 1.5x)`,
  );
  const cases = [
    { title: 'JSON, store: false', stream: false, store: false },
    { title: 'JSON, stored', stream: false, store: true },
    { title: 'SSE, stored', stream: true, store: true },
  ];
  // Every path of both servers warmed (JIT) before the first measured round, by requests rather than by time:
  // under load, 2 s were a few hundred requests, and the first case measured (JSON store: false) paid for the
  // rest of the gateway's compilation (per-round ratios falling 6.1x, 4.9x, 2.1x in one run).
  for (const { stream, store } of cases)
    for (const s of servers)
      await load(s.url, body(stream, store), concurrency, WARM_SECONDS, WARM_REQUESTS, s.headers);
  for (const { title, stream, store } of cases) {
    const text = body(stream, store);
    const perRequest = servers.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++)
      for (const [index, s] of servers.entries()) {
        const before = processStat(s.pid).cpuMicros;
        const result = await load(s.url, text, concurrency, seconds, Infinity, s.headers);
        perRequest[index]!.push((processStat(s.pid).cpuMicros - before) / result.requests);
      }
    const [b, g] = perRequest.map((values) => median(values, (x) => x));
    const ratios = perRequest[1]!.map((value, round) => value / perRequest[0]![round]!);
    console.log(
      `${title.padEnd(28)} ${b!.toFixed(0).padStart(8)} ${g!.toFixed(0).padStart(11)} ${`${(g! / b!).toFixed(2)}x`.padStart(13)}  ${ratios.map((r) => r.toFixed(2)).join(' ')}`,
    );
  }
  // The added latency row (issue 35): one streamed request at a time, the paths interleaved request by
  // request, so a busy moment of the machine falls on all of them alike. The two relays are the floor under
  // any gateway: one more process in the way (TCP relay), and that process's HTTP server and client exchange
  // (HTTP relay), the stub's own chunks passed through untranslated.
  const count = 1_000;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const relays = await Promise.all(
    ['tcp', 'http'].map((mode) =>
      startServerProcess(
        ['--import', 'tsx', path.join(here, 'fixtures/relay.ts'), mode, stub.url],
        (port) => `http://127.0.0.1:${port}/v1`,
      ),
    ),
  );
  const chatRequest = (root: string) => ({
    url: `${root}/chat/completions`,
    body: JSON.stringify({
      model: 'stub-model',
      messages: [{ role: 'user', content: 'Hello! What can you do?' }],
      stream: true,
      stream_options: { include_usage: true },
    }),
    headers: {},
    marker: '"content":"Hello!"',
  });
  const paths = [
    { name: 'direct to the stub', ...chatRequest(stub.url) },
    { name: 'TCP relay (floor)', ...chatRequest(relays[0]!.url) },
    { name: 'HTTP relay (floor)', ...chatRequest(relays[1]!.url) },
    ...servers.map((s) => ({ ...s, body: body(true, true), marker: 'response.output_text.delta' })),
  ];
  const times = paths.map(() => [] as number[]);
  for (let i = 0; i < 100 + count; i++)
    for (const [index, p] of paths.entries()) {
      const ms = await timeToFirstToken(p.url, p.body, p.headers, p.marker, agent);
      if (i >= 100) times[index]!.push(ms);
    }
  agent.destroy();
  const p50 = times.map((values) => median(values, (x) => x));
  console.log(
    `\nTime to first token, one streamed request at a time (${count} each, interleaved), p50; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  for (const [index, p] of paths.entries())
    console.log(
      `${p.name.padEnd(28)} ${p50[index]!.toFixed(3).padStart(7)} ms${index === 0 ? '' : `  added ${(p50[index]! - p50[0]!).toFixed(3)} ms${index === paths.length - 1 ? ' (target <= 0.35 ms)' : ''}`}`,
    );
  console.log(`load average after: ${loadavg()[0]!.toFixed(1)}`);
  for (const relay of relays) relay.stop();
  gateway.stop();
  bare.stop();
  stub.stop();
}
