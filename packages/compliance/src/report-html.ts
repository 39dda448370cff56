// The suite's report as one self-contained HTML file: a summary, then every test with its verdict, the
// rule that failed, and the requests it sent with what came back (JSON bodies, SSE streams, WebSocket
// messages). No script and no external resource: it opens from disk and can be attached to a CI run.
import { escapeMarkup } from './report.js';
import type { Exchange, SuiteReport, TestResult } from './types.js';

/** Each request, response or stream body is cut at this many characters in the report. */
const MAX_BODY_CHARS = 20_000;

function body(text: string | undefined): string {
  if (!text) return '';
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON (an SSE stream, plain text): shown as it came.
  }
  const cut = shown.length > MAX_BODY_CHARS;
  return `<pre>${escapeMarkup(cut ? shown.slice(0, MAX_BODY_CHARS) : shown)}${cut ? `\n… (${shown.length - MAX_BODY_CHARS} more characters)` : ''}</pre>`;
}

function exchange(item: Exchange, index: number): string {
  const head = `${index + 1}. ${item.kind === 'websocket' ? 'WebSocket' : 'HTTP'} ${item.method} ${item.url}`;
  const answer =
    item.status === undefined ? (item.error ? `no answer: ${item.error}` : 'no answer') : `answered ${item.status}`;
  const headers = Object.entries(item.responseHeaders ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return `<div class="exchange">
<h4>${escapeMarkup(head)} — ${escapeMarkup(answer)}</h4>
${item.requestBody ? `<h5>request</h5>${body(item.requestBody)}` : ''}
${headers ? `<h5>response headers</h5><pre>${escapeMarkup(headers)}</pre>` : ''}
${item.responseBody ? `<h5>${item.kind === 'websocket' ? 'messages received' : 'response'}</h5>${body(item.responseBody)}` : ''}
</div>`;
}

function result(test: TestResult): string {
  const verdict =
    test.status === 'fail'
      ? `<p class="failure">rule <code>${escapeMarkup(test.failure?.rule ?? '?')}</code>: ${escapeMarkup(test.failure?.message ?? '')}</p>`
      : test.status === 'skip'
        ? `<p class="skip">skipped: ${escapeMarkup(test.skipReason ?? '')}</p>`
        : '';
  const exchanges = test.exchanges ?? [];
  return `<details class="${test.status}"${test.status === 'fail' ? ' open' : ''} id="${escapeMarkup(`${test.transport}-${test.id}`)}">
<summary><span class="status">${test.status}</span> <code>${escapeMarkup(test.id)}</code> <span class="transport">${test.transport}</span> ${escapeMarkup(test.description)} <span class="ms">${test.ms} ms</span></summary>
${verdict}
${exchanges.length ? exchanges.map(exchange).join('\n') : '<p class="none">no requests recorded</p>'}
</details>`;
}

/** The report as one HTML document. */
export function formatHtml(report: SuiteReport): string {
  const { passed, failed, skipped } = report.summary;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Open Responses compliance: ${failed ? `${failed} failed` : 'all passed'} — ${escapeMarkup(report.baseURL)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 75rem; padding: 0 1rem; color: #1d2330; }
h1 { font-size: 1.3rem; }
.summary span { margin-right: 1.2rem; font-weight: 600; }
details { border: 1px solid #dde1e8; border-radius: 6px; margin: 0.4rem 0; padding: 0.3rem 0.6rem; }
details.fail { border-color: #e3a49f; background: #fff6f5; }
summary { cursor: pointer; }
.status { display: inline-block; min-width: 2.6rem; font-weight: 700; text-transform: uppercase; font-size: 0.75rem; }
.pass .status { color: #1f8a4c; } .fail .status { color: #b3261e; } .skip .status { color: #8a6d00; }
.transport, .ms { color: #6b7280; font-size: 0.85rem; }
.failure { color: #b3261e; font-weight: 600; }
.exchange { border-top: 1px solid #eef0f4; margin-top: 0.5rem; }
h4 { font-size: 0.9rem; margin: 0.5rem 0 0.2rem; } h5 { font-size: 0.8rem; margin: 0.3rem 0 0.1rem; color: #4b5563; }
pre { background: #f6f7f9; padding: 0.4rem; overflow: auto; max-height: 24rem; font-size: 12px; }
</style>
</head>
<body>
<h1>Open Responses compliance report</h1>
<p>Server: <code>${escapeMarkup(report.baseURL)}</code></p>
<p class="summary"><span>${passed} passed</span><span>${failed} failed</span><span>${skipped} skipped</span></p>
${report.results.map(result).join('\n')}
</body>
</html>
`;
}
