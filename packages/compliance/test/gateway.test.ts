// The suite against the reference server as a gateway: every model is served by a Chat Completions
// upstream on 127.0.0.1 that replays recorded OpenAI-format streams (the server's testing replay
// upstream), so only what the gateway does is under test. Model-dependent tests are skipped, as for any
// server fronting a real model.
import {
  AnthropicMessagesProvider,
  ChatCompletionsProvider,
  DETERMINISTIC_MODEL,
  DeterministicModel,
  GeminiProvider,
  OpenResponsesProvider,
} from '@openresponses/server';
import { startServer, type RunningServer } from '@openresponses/server/node';
import { startReplayUpstream, type ReplayUpstream } from '@openresponses/server/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import WebSocket from 'ws';
import { formatTable, runSuite } from '../src/index.js';

let upstream: ReplayUpstream;
let gateway: RunningServer;
let anthropicGateway: RunningServer;
let geminiGateway: RunningServer;
/** A native Responses server (the reference server itself, on its embedded model) and the gateway in front of it. */
let responsesUpstream: RunningServer;
let responsesGateway: RunningServer;
let responsesUpstreamTurns = 0;
beforeAll(async () => {
  responsesUpstream = await startServer({
    warn: () => {},
    providers: [new DeterministicModel()],
    onRequest: (entry) => {
      if (entry.method === 'POST' && entry.path === '/v1/responses') responsesUpstreamTurns++;
    },
  });
  responsesGateway = await startServer({
    apiKeys: ['suite-key'],
    validateOutgoing: true,
    warn: () => {},
    providers: [new OpenResponsesProvider({ baseUrl: `${responsesUpstream.url}/v1` })],
  });
  upstream = await startReplayUpstream();
  gateway = await startServer({
    apiKeys: ['suite-key'],
    validateOutgoing: true,
    warn: () => {},
    providers: [new ChatCompletionsProvider({ baseUrl: upstream.baseUrl })],
  });
  // The replay upstream answers as Anthropic's Messages API to the Anthropic provider (claude-* recordings).
  anthropicGateway = await startServer({
    apiKeys: ['suite-key'],
    validateOutgoing: true,
    warn: () => {},
    providers: [new AnthropicMessagesProvider({ baseUrl: upstream.baseUrl, apiKey: 'sk-ant-suite' })],
  });
  // And as the Gemini API to the Gemini provider (paths under /v1beta, gemini-* recordings).
  geminiGateway = await startServer({
    apiKeys: ['suite-key'],
    validateOutgoing: true,
    warn: () => {},
    providers: [new GeminiProvider({ baseUrl: upstream.baseUrl.replace(/\/v1$/, ''), apiKey: 'gemini-suite-key' })],
  });
});
afterAll(async () => {
  await gateway.close();
  await anthropicGateway.close();
  await geminiGateway.close();
  await responsesGateway.close();
  await responsesUpstream.close();
  await upstream.close();
});

test('a gateway in front of a Chat Completions upstream passes with --skip-model-dependent', async () => {
  const report = await runSuite({
    baseURL: `${gateway.url}/v1`,
    apiKey: 'suite-key',
    model: 'gpt-4o-mini',
    skipModelDependent: true,
    WebSocket: WebSocket as never,
  });
  expect(
    report.results.filter((r) => r.status === 'fail'),
    formatTable(report),
  ).toEqual([]);
  expect(report.results.filter((r) => r.status === 'pass').length).toBeGreaterThanOrEqual(20);
  // The upstream really served the turns (the gateway did not answer them itself).
  expect(upstream.received.filter((r) => r.path === '/v1/chat/completions').length).toBeGreaterThanOrEqual(15);
});

test('a gateway in front of an Anthropic Messages upstream passes with --skip-model-dependent', async () => {
  upstream.received.length = 0;
  const report = await runSuite({
    baseURL: `${anthropicGateway.url}/v1`,
    apiKey: 'suite-key',
    model: 'claude-sonnet-4-5',
    skipModelDependent: true,
    WebSocket: WebSocket as never,
  });
  expect(
    report.results.filter((r) => r.status === 'fail'),
    formatTable(report),
  ).toEqual([]);
  expect(report.results.filter((r) => r.status === 'pass').length).toBeGreaterThanOrEqual(20);
  expect(upstream.received.filter((r) => r.path === '/v1/messages').length).toBeGreaterThanOrEqual(15);
});

test('a gateway in front of the Gemini API passes with --skip-model-dependent', async () => {
  upstream.received.length = 0;
  const report = await runSuite({
    baseURL: `${geminiGateway.url}/v1`,
    apiKey: 'suite-key',
    model: 'gemini-2.5-flash',
    skipModelDependent: true,
    WebSocket: WebSocket as never,
  });
  expect(
    report.results.filter((r) => r.status === 'fail'),
    formatTable(report),
  ).toEqual([]);
  expect(report.results.filter((r) => r.status === 'pass').length).toBeGreaterThanOrEqual(20);
  expect(
    upstream.received.filter((r) => r.path.startsWith('/v1beta/models/gemini-2.5-flash:')).length,
  ).toBeGreaterThanOrEqual(15);
});

test('a gateway in front of a native Responses server passes with --skip-model-dependent', async () => {
  const report = await runSuite({
    baseURL: `${responsesGateway.url}/v1`,
    apiKey: 'suite-key',
    model: DETERMINISTIC_MODEL,
    skipModelDependent: true,
    WebSocket: WebSocket as never,
  });
  expect(
    report.results.filter((r) => r.status === 'fail'),
    formatTable(report),
  ).toEqual([]);
  expect(report.results.filter((r) => r.status === 'pass').length).toBeGreaterThanOrEqual(20);
  // The upstream server really served the turns (store false there: the gateway kept the state).
  expect(responsesUpstreamTurns).toBeGreaterThanOrEqual(15);
});
