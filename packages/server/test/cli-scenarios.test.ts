// A client developer's test double without TypeScript: the CLI serves a scenario file (a tool
// conversation with a 429 in the middle, driven by the real openai SDK), records one, and explains a
// broken one.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { runCliToExit, startCli } from './cli-process.js';

const dir = mkdtempSync(path.join(tmpdir(), 'openresponses-scenarios-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
};

describe('openresponses-server --scenarios / --record', () => {
  test('a scripted multi-round tool conversation with a 429 in the middle', async () => {
    const file = path.join(dir, 'weather.json');
    writeFileSync(
      file,
      JSON.stringify({
        model: 'weather-double',
        scenarios: [
          {
            name: 'ask for Paris',
            match: { toolOutputs: false },
            output: [{ type: 'function_call', name: 'get_weather', arguments: { city: 'Paris' } }],
          },
          {
            name: 'busy once',
            match: { toolOutputs: true },
            times: 1,
            error: { status: 429, message: 'busy', headers: { 'retry-after': '0' } },
          },
          {
            name: 'ask for Lyon',
            match: { toolOutputs: true },
            times: 1,
            output: [{ type: 'function_call', name: 'get_weather', arguments: { city: 'Lyon' } }],
          },
          { name: 'answer', match: { toolOutputs: true }, output: [{ type: 'message', text: 'Sunny, then rain.' }] },
        ],
      }),
    );
    const { url } = await startCli(['--port', '0', '--api-key', 'k', '--scenarios', file]);
    // Retries on: the SDK waits out the 429 by itself, as it would against a real provider.
    const sdk = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 2 });
    let response = await sdk.responses.create({ model: 'weather-double', input: 'Weather?', tools: [weather] });
    const cities: string[] = [];
    for (let round = 0; round < 3 && response.output[0]?.type === 'function_call'; round++) {
      const call = response.output[0];
      cities.push(JSON.parse(call.arguments).city);
      response = await sdk.responses.create({
        model: 'weather-double',
        previous_response_id: response.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: 'ok' }],
        tools: [weather],
      });
    }
    expect(cities).toEqual(['Paris', 'Lyon']);
    expect(response.output_text).toBe('Sunny, then rain.');
    // The embedded model still serves its own name beside the file's.
    const embedded = await sdk.responses.create({ model: 'openresponses-deterministic', input: 'Hello' });
    expect(embedded.output_text).toContain('Hello');
  });

  test('--record appends a JSON Lines scenario file that --scenarios replays', async () => {
    const file = path.join(dir, 'recorded.jsonl');
    const live = await startCli(['--port', '0', '--api-key', 'k', '--record', file]);
    const sdk = new OpenAI({ baseURL: `${live.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const original = await sdk.responses.create({
      model: 'openresponses-deterministic',
      input: 'My name is Ada. [think]',
    });
    // The recording is written right after the turn ends (the answer can leave first).
    // One JSON line per turn (JSON Lines).
    const recorded = await vi.waitFor(
      () => {
        const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        expect(lines).toHaveLength(1);
        return lines.map((line) => JSON.parse(line) as { parts: unknown[] });
      },
      { timeout: 5_000 },
    );
    live.child.kill('SIGTERM');
    expect(recorded[0]!.parts.length).toBeGreaterThan(3);

    const replay = await startCli(['--port', '0', '--api-key', 'k', '--scenarios', file]);
    const again = await new OpenAI({ baseURL: `${replay.url}/v1`, apiKey: 'k', maxRetries: 0 }).responses.create({
      model: 'openresponses-deterministic',
      input: 'My name is Ada. [think]',
    });
    expect(again.output_text).toBe(original.output_text);
    expect(again.output.map((item) => item.type)).toEqual(original.output.map((item) => item.type));
  });

  test('a broken scenario file stops the CLI with the path of the mistake', () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify({ scenarios: [{ name: 'x', output: [{ type: 'function_call' }] }] }));
    const result = runCliToExit(['--scenarios', file]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('broken.json');
    expect(result.stderr).toContain('scenarios.0.output.0');
  });
});
