// npm run demo — the round-trip demo against OPENRESPONSES_BASE_URL (e.g. http://127.0.0.1:8080/v1, with
// OPENRESPONSES_API_KEY), or against a reference server it starts on a free port and stops afterwards.
import { startServer } from '@openresponses/server/node';
import { runDemo } from '@openresponses/example-round-trip-demo';

const external = process.env.OPENRESPONSES_BASE_URL;
const running = external ? undefined : await startServer({ apiKeys: ['demo-key'], warn: () => {} });
const baseURL = external ?? `${running!.url}/v1`;
console.log(`Round-trip demo against ${baseURL}`);
try {
  await runDemo({
    baseURL,
    apiKey: external ? process.env.OPENRESPONSES_API_KEY : 'demo-key',
    log: (line) => console.log(line),
  });
} finally {
  await running?.close();
}
