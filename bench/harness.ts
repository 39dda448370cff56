/** A small side-by-side benchmark harness: each case runs in alternating rounds so machine noise hits all alike. */
export interface BenchCase {
  name: string;
  run: () => unknown;
}

export interface BenchResult {
  name: string;
  opsPerSecond: number;
}

export function measure(cases: BenchCase[], options: { rounds?: number; roundMs?: number } = {}): BenchResult[] {
  const rounds = options.rounds ?? 5;
  const roundMs = options.roundMs ?? 200;
  const totals = new Map<string, { ops: number; ms: number }>(cases.map((c) => [c.name, { ops: 0, ms: 0 }]));
  for (const c of cases) for (let i = 0; i < 200; i++) c.run(); // warm up the JIT
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      const total = totals.get(c.name)!;
      const start = performance.now();
      let ops = 0;
      let elapsed = 0;
      while (elapsed < roundMs) {
        for (let i = 0; i < 50; i++) c.run();
        ops += 50;
        elapsed = performance.now() - start;
      }
      total.ops += ops;
      total.ms += elapsed;
    }
  }
  return cases.map((c) => {
    const total = totals.get(c.name)!;
    return { name: c.name, opsPerSecond: (total.ops / total.ms) * 1000 };
  });
}

export function printTable(title: string, results: BenchResult[], baseline: string): void {
  const base = results.find((r) => r.name === baseline)!.opsPerSecond;
  console.log(`\n${title}`);
  console.log(`${'case'.padEnd(44)} ${'ops/s'.padStart(12)} ${`vs ${baseline}`}`);
  for (const r of results) {
    console.log(
      `${r.name.padEnd(44)} ${Math.round(r.opsPerSecond).toLocaleString('en-US').padStart(12)} ${(r.opsPerSecond / base).toFixed(2)}x`,
    );
  }
}

/** One case's throughput relative to another's, from the same run. */
export function printRatio(results: BenchResult[], name: string, reference: string): void {
  const ops = (n: string) => results.find((r) => r.name === n)!.opsPerSecond;
  console.log(`${name} / ${reference}: ${(ops(name) / ops(reference)).toFixed(2)}x`);
}

/**
 * Two cases head to head, for a ratio target on a shared machine: alternating slices of about `sliceMs`
 * of this process's CPU time each (time the scheduler gives other processes counts for neither side),
 * `pairs` times; the median of the per-pair ratios a/b, with the quartiles of those ratios. A run that
 * returns a promise is awaited (a stream read through its async iterator); a synchronous one is not.
 */
export async function headToHead(
  a: BenchCase,
  b: BenchCase,
  /** `batch`: runs between two readings of the CPU time (fewer for long runs). */
  options: { pairs?: number; sliceMs?: number; warmup?: number; batch?: number } = {},
): Promise<{ ratio: number; low: number; high: number; aOps: number; bOps: number }> {
  const pairs = options.pairs ?? 31;
  const sliceMs = options.sliceMs ?? 40;
  const batch = options.batch ?? 50;
  const runOnce = async (c: BenchCase) => {
    const result = c.run();
    if (result instanceof Promise) await result;
  };
  for (let i = 0; i < (options.warmup ?? 2000); i++) {
    await runOnce(a);
    await runOnce(b);
  }
  const slice = async (c: BenchCase) => {
    const start = process.cpuUsage();
    let ops = 0;
    let ms = 0;
    while (ms < sliceMs) {
      for (let i = 0; i < batch; i++) {
        const result = c.run();
        if (result instanceof Promise) await result;
      }
      ops += batch;
      const used = process.cpuUsage(start);
      ms = (used.user + used.system) / 1000;
    }
    return (ops / ms) * 1000;
  };
  const ratios: number[] = [];
  let aTotal = 0;
  let bTotal = 0;
  for (let i = 0; i < pairs; i++) {
    const aOps = await slice(a);
    const bOps = await slice(b);
    aTotal += aOps;
    bTotal += bOps;
    ratios.push(aOps / bOps);
  }
  ratios.sort((x, y) => x - y);
  const at = (q: number) => ratios[Math.floor(q * (ratios.length - 1))]!;
  return { ratio: at(0.5), low: at(0.25), high: at(0.75), aOps: aTotal / pairs, bOps: bTotal / pairs };
}

/** Runs {@link headToHead} and prints its line. */
export async function printHeadToHead(
  a: BenchCase,
  b: BenchCase,
  options?: Parameters<typeof headToHead>[2],
): Promise<void> {
  const r = await headToHead(a, b, options);
  const ops = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `${a.name} / ${b.name}, head to head: ${r.ratio.toFixed(2)}x (quartiles ${r.low.toFixed(2)}-${r.high.toFixed(2)}; ${ops(r.aOps)} vs ${ops(r.bOps)} ops per CPU second)`,
  );
}
