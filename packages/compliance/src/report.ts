import type { SuiteReport, TestResult } from './types.js';

/** One result on one line, as the CLI prints it when the test finishes: mark, id, time, and why. */
export function formatResultLine(result: TestResult): string {
  const mark = result.status === 'pass' ? '✓' : result.status === 'skip' ? '-' : '✗';
  const why = result.failure
    ? ` [${result.failure.rule}] ${result.failure.message}`
    : result.skipReason
      ? ` skipped: ${result.skipReason}`
      : '';
  return `${mark} ${result.id} (${result.ms} ms)${why}`.replace(/\s*\n\s*/g, ' ');
}

/** The last line of a run: how many passed, failed and were skipped. */
export const formatSummary = ({ summary: { passed, failed, skipped } }: SuiteReport) =>
  `${passed} passed, ${failed} failed, ${skipped} skipped`;

/** A table for people: id, result, time, and the first failure with its rule. */
export function formatTable(report: SuiteReport): string {
  const rows = report.results.map((r) => [
    r.id,
    r.status.toUpperCase(),
    `${r.ms} ms`,
    r.failure ? `[${r.failure.rule}] ${r.failure.message}` : (r.skipReason ?? ''),
  ]);
  const widths = [0, 1, 2].map((i) =>
    Math.max(...rows.map((row) => row[i]!.length), ['id', 'result', 'time'][i]!.length),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd();
  return [line(['id', 'result', 'time', 'first failure']), ...rows.map(line), '', formatSummary(report)].join('\n');
}

/** Text made safe inside XML and HTML elements and attribute values. */
export const escapeMarkup = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** JUnit XML, for CI systems. */
export function formatJUnit(report: SuiteReport): string {
  const cases = report.results.map((r) => {
    const open = `  <testcase classname="openresponses.${r.transport}" name="${escapeMarkup(r.id)}" time="${(r.ms / 1000).toFixed(3)}">`;
    if (r.status === 'fail')
      return `${open}\n    <failure type="${escapeMarkup(r.failure!.rule)}" message="${escapeMarkup(r.failure!.message)}"/>\n  </testcase>`;
    if (r.status === 'skip')
      return `${open}\n    <skipped message="${escapeMarkup(r.skipReason ?? '')}"/>\n  </testcase>`;
    return `${open}</testcase>`;
  });
  const { passed, failed, skipped } = report.summary;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="openresponses-compliance" tests="${passed + failed + skipped}" failures="${failed}" skipped="${skipped}">\n${cases.join('\n')}\n</testsuite>\n`;
}
