// One request before the suite, so that a run where every test would fail the same way (nothing listening, a
// refused key, a base URL that is not the API root) is one line instead of fifty failures. It sends an invalid
// body (`input: 42`), which a server rejects with a 400 before calling any model.

/** How long the pre-flight waits for an answer, and how much of its body it reads. */
const PREFLIGHT_TIMEOUT_MS = 10_000;
const PREFLIGHT_BODY_BYTES = 4096;

/** Why the suite cannot run against this server (one line), or `undefined` when it can. */
export async function preflight(config: {
  baseURL: string;
  apiKey?: string;
  model: string;
}): Promise<string | undefined> {
  const url = `${config.baseURL.replace(/\/+$/, '')}/responses`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: config.model, input: 42 }),
      signal: AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS),
    });
  } catch (error) {
    const reason = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    return `cannot reach ${config.baseURL}: ${reason}`;
  }
  const said = await serverMessage(response);
  const answer = `POST ${url} answered ${response.status}${said ? ` (${said})` : ''}`;
  if (response.status === 401 || response.status === 403)
    return config.apiKey
      ? `${answer}: the server refused the API key given by --api-key or OPENRESPONSES_API_KEY`
      : `${answer}: the server wants an API key; pass --api-key KEY or set OPENRESPONSES_API_KEY`;
  if (response.status === 404 || response.status === 405)
    return `${answer}: --base-url must be the API root, such as http://127.0.0.1:8080/v1 (and --model one the server serves)`;
  return undefined;
}

/** The error message of a spec-shaped error body, or the start of any other body: bounded, on one line. */
async function serverMessage(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader && size < PREFLIGHT_BODY_BYTES) {
    const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
    if (done || !value) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader?.cancel().catch(() => {});
  const text = Buffer.concat(chunks).subarray(0, PREFLIGHT_BODY_BYTES).toString('utf8');
  let message: unknown;
  try {
    message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
  } catch {}
  return (typeof message === 'string' ? message : text).replace(/\s+/g, ' ').trim().slice(0, 200);
}
