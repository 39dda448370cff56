// The playground page (browser entry, bundled by build.mjs): sends a request over HTTP streaming or
// WebSocket with our client and events packages and shows the stream as it arrives: the answer, a
// timeline of events, the tree of items and parts, and the stream checker's verdict for every rule.
// Recorded SSE text (pasted or dropped) goes through the same view.
import { createClient } from '@openresponses/client';
import { decodeSSE, SSEDecodeError, type StreamWarning } from '@openresponses/events';
import { StreamInspector, type TimelineEntry, type TreeNode } from './inspector.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  status: byId<HTMLSpanElement>('status'),
  model: byId<HTMLInputElement>('model'),
  models: byId<HTMLDataListElement>('models'),
  apiKey: byId<HTMLInputElement>('api-key'),
  instructions: byId<HTMLTextAreaElement>('instructions'),
  prompt: byId<HTMLTextAreaElement>('prompt'),
  tools: byId<HTMLTextAreaElement>('tools'),
  continue: byId<HTMLInputElement>('continue'),
  previousId: byId<HTMLElement>('previous-id'),
  send: byId<HTMLButtonElement>('send'),
  recording: byId<HTMLTextAreaElement>('recording'),
  inspect: byId<HTMLButtonElement>('inspect'),
  answer: byId<HTMLPreElement>('answer-text'),
  final: byId<HTMLDivElement>('final'),
  events: byId<HTMLTableSectionElement>('events'),
  eventCount: byId<HTMLSpanElement>('event-count'),
  tree: byId<HTMLUListElement>('tree'),
  rules: byId<HTMLUListElement>('rules'),
};

const basePath = document.querySelector<HTMLMetaElement>('meta[name="openresponses-base-path"]')?.content || '/v1';
const baseURL = new URL(basePath, location.href).href.replace(/\/$/, '');
// The API key comes in the URL fragment (never sent to the server with the page request).
ui.apiKey.value = new URLSearchParams(location.hash.slice(1)).get('key') ?? '';

let previousResponseId: string | undefined;

/** Browsers cannot set headers on a WebSocket: the key travels as a subprotocol the server accepts. */
class KeyedWebSocket extends WebSocket {
  constructor(url: string, options?: { headers?: Record<string, string> }) {
    const key = options?.headers?.authorization?.replace(/^Bearer /, '');
    super(url, key ? ['openresponses', `openresponses-api-key.${key}`] : ['openresponses']);
  }
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function setStatus(text: string, state: 'running' | 'done' | 'error' | 'ready') {
  ui.status.textContent = text;
  document.body.dataset.state = state;
}

/** One view of one stream: clears the panels and renders each event as it is pushed. */
class StreamView {
  readonly inspector = new StreamInspector();
  private readonly rows: HTMLTableRowElement[] = [];
  private ended = false;

  constructor() {
    ui.events.replaceChildren();
    ui.tree.replaceChildren();
    ui.answer.textContent = '';
    ui.final.replaceChildren();
    this.renderRules();
  }

  push(event: unknown, at: number) {
    const entry = this.inspector.push(event, at);
    this.rows.push(this.renderRow(entry));
    if (entry.violations.length) this.markViolations(entry);
    ui.eventCount.textContent = `(${this.inspector.entries.length})`;
    ui.answer.textContent = this.inspector.text;
    this.renderTree();
    if (entry.violations.length) this.renderRules();
  }

  end(sawDone: boolean) {
    this.ended = true;
    this.inspector.end(sawDone);
    for (const entry of this.inspector.entries) if (entry.violations.length) this.markViolations(entry);
    for (const violation of this.inspector.endViolations)
      ui.final.append(element('div', 'error', `end of stream: ${violation.rule}: ${violation.message}`));
    const response = this.inspector.response;
    if (response) {
      const usage = response.usage ? `, ${response.usage.input_tokens} in / ${response.usage.output_tokens} out` : '';
      ui.final.prepend(element('div', undefined, `${response.id}: ${response.status}${usage}`));
      if (response.error) ui.final.append(element('div', 'error', `${response.error.code}: ${response.error.message}`));
    }
    this.renderTree();
    this.renderRules();
  }

  fail(message: string) {
    ui.final.append(element('div', 'error', message));
  }

  private renderRow(entry: TimelineEntry): HTMLTableRowElement {
    const row = element('tr');
    row.dataset.index = String(entry.index);
    row.dataset.type = entry.type;
    row.title = JSON.stringify(entry.event, null, 2).slice(0, 4000);
    row.append(
      element('td', undefined, String(entry.index)),
      element('td', undefined, String(Math.round(entry.at))),
      element('td', 'type', entry.type),
      element('td', undefined, entry.sequenceNumber === undefined ? '—' : String(entry.sequenceNumber)),
      element('td', undefined, entry.outputIndex === undefined ? '' : String(entry.outputIndex)),
    );
    ui.events.append(row);
    return row;
  }

  private markViolations(entry: TimelineEntry) {
    const row = this.rows[entry.index];
    if (!row) return;
    row.classList.add('violation');
    row.dataset.rules = [...new Set(entry.violations.map((v) => v.rule))].join(' ');
    row.title = `${entry.violations.map((v) => `${v.rule}: ${v.message}`).join('\n')}\n\n${row.title}`;
  }

  private renderTree() {
    const render = (node: TreeNode): HTMLLIElement => {
      const item = element('li', node.state, node.label);
      item.dataset.key = node.key;
      if (node.children.length) {
        const list = element('ul');
        list.append(...node.children.map(render));
        item.append(list);
      }
      return item;
    };
    ui.tree.replaceChildren(...this.inspector.tree.filter(Boolean).map(render));
  }

  private renderRules() {
    ui.rules.replaceChildren(
      ...this.inspector.verdicts.map((verdict) => {
        const state = verdict.violations.length ? 'fail' : this.ended ? 'pass' : 'pending';
        const item = element(
          'li',
          state,
          `${verdict.rule}${verdict.violations.length ? ` (${verdict.violations.length})` : ''}`,
        );
        item.dataset.rule = verdict.rule;
        item.title = verdict.violations.length
          ? verdict.violations.map((v) => `event ${v.eventIndex}: ${v.message}`).join('\n')
          : verdict.description;
        if (verdict.violations.length)
          item.addEventListener('click', () => this.select(verdict.violations[0]!.eventIndex));
        return item;
      }),
    );
  }

  private select(index: number) {
    for (const row of this.rows) row.classList.remove('selected');
    const row = this.rows[index];
    row?.classList.add('selected');
    row?.scrollIntoView({ block: 'center' });
  }
}

function requestBody(): Record<string, unknown> {
  const body: Record<string, unknown> = { model: ui.model.value.trim(), input: ui.prompt.value };
  if (ui.instructions.value.trim()) body.instructions = ui.instructions.value;
  if (ui.tools.value.trim()) {
    const tools: unknown = JSON.parse(ui.tools.value);
    if (!Array.isArray(tools)) throw new Error('Tools must be a JSON array.');
    body.tools = tools;
  }
  if (ui.continue.checked && previousResponseId) body.previous_response_id = previousResponseId;
  return body;
}

const client = () => createClient({ baseURL, apiKey: ui.apiKey.value || undefined, validate: 'off', maxRetries: 0 });
const authHeaders = (): Record<string, string> =>
  ui.apiKey.value ? { authorization: `Bearer ${ui.apiKey.value}` } : {};

async function sendOverHttp(body: Record<string, unknown>, view: StreamView, start: number) {
  const response = await fetch(`${baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...authHeaders() },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!response.ok || !response.body) {
    view.fail(`HTTP ${response.status}: ${await response.text()}`);
    return;
  }
  const events = decodeSSE(response.body, { profile: 'lenient', onWarning: (w) => view.fail(warningText(w)) });
  for await (const event of events) view.push(event, performance.now() - start);
  view.end(events.sawDone);
}

async function sendOverWebSocket(body: Record<string, unknown>, view: StreamView, start: number) {
  const session = await client().responses.connect({ WebSocket: KeyedWebSocket });
  try {
    const stream = session.create(body as Parameters<typeof session.create>[0]);
    try {
      for await (const event of stream) view.push(event, performance.now() - start);
    } catch (error) {
      // A failed response still streamed its events; the view shows them and the checker's verdict.
      if (!view.inspector.entries.length) throw error;
    }
    view.end(true); // WebSocket turns have no [DONE].
  } finally {
    session.close();
  }
}

async function send() {
  let body: Record<string, unknown>;
  try {
    body = requestBody();
  } catch (error) {
    setStatus(`bad request: ${(error as Error).message}`, 'error');
    return;
  }
  const transport = document.querySelector<HTMLInputElement>('input[name="transport"]:checked')?.value ?? 'http';
  const view = new StreamView();
  ui.send.disabled = true;
  setStatus(`streaming over ${transport}…`, 'running');
  const start = performance.now();
  try {
    if (transport === 'websocket') await sendOverWebSocket(body, view, start);
    else await sendOverHttp(body, view, start);
    const id = view.inspector.response?.id;
    if (id && view.inspector.response?.store !== false) {
      previousResponseId = id;
      ui.previousId.textContent = id;
      ui.continue.disabled = false;
    }
    setStatus(`${view.inspector.response?.status ?? 'ended'} in ${Math.round(performance.now() - start)} ms`, 'done');
  } catch (error) {
    view.fail((error as Error).message);
    setStatus('failed', 'error');
  } finally {
    ui.send.disabled = false;
  }
}

function warningText(warning: StreamWarning) {
  return `decoder: ${warning.code} at event ${warning.eventIndex}: ${warning.message}`;
}

async function inspectRecording(text: string) {
  const view = new StreamView();
  setStatus('inspecting recording…', 'running');
  const events = decodeSSE(new Blob([text]).stream(), {
    profile: 'lenient',
    onWarning: (w) => view.fail(warningText(w)),
  });
  try {
    for await (const event of events) view.push(event, 0);
  } catch (error) {
    view.fail(error instanceof SSEDecodeError ? `decoder: ${error.message}` : String(error));
  }
  view.end(events.sawDone);
  const failed = view.inspector.violations.filter((v) => v.severity === 'error').length;
  setStatus(`recording: ${view.inspector.entries.length} events, ${failed} violations`, 'done');
}

async function loadModels() {
  try {
    const response = await fetch(`${baseURL}/models`, { headers: authHeaders() });
    if (!response.ok) return;
    const list = (await response.json()) as { data?: Array<{ id: string }> };
    ui.models.replaceChildren(
      ...(list.data ?? []).map((model) => Object.assign(element('option'), { value: model.id })),
    );
  } catch {
    // No model list: the field stays free text.
  }
}

ui.send.addEventListener('click', () => void send());
ui.inspect.addEventListener('click', () => void inspectRecording(ui.recording.value));
ui.recording.addEventListener('dragover', (event) => {
  event.preventDefault();
  ui.recording.classList.add('drop');
});
ui.recording.addEventListener('dragleave', () => ui.recording.classList.remove('drop'));
ui.recording.addEventListener('drop', (event) => {
  event.preventDefault();
  ui.recording.classList.remove('drop');
  const file = event.dataTransfer?.files[0];
  if (file)
    void file.text().then((text) => {
      ui.recording.value = text;
      return inspectRecording(text);
    });
});
void loadModels();
setStatus('ready', 'ready');
