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
