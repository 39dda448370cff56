// The Responses API side of the replay upstream (replay-upstream.ts): which `responses-*` recording answers a
// `POST /v1/responses`, and the whole response a stream recording stands for.

/**
 * A Responses recording: the model's own when one is named so (`responses-bare-error`); else a function call
 * for the first tool offered when there is a recording of it (unless tool_choice is none or the last input is a
 * tool result), reasoning then text otherwise. `has` says whether a recording file exists.
 */
export function responsesFixtureFor(body: Record<string, unknown>, has: (file: string) => boolean): string {
  const model = String(body.model ?? '');
  if (model.startsWith('responses-') && has(`${model}.sse`)) return model;
  const tools = (body.tools ?? []) as Array<{ name?: string }>;
  const input = body.input;
  const last = Array.isArray(input) ? (input.at(-1) as { type?: string } | undefined) : undefined;
  if (tools[0]?.name && body.tool_choice !== 'none' && last?.type !== 'function_call_output') {
    const name = `responses-tool-${tools[0].name}`;
    if (has(`${name}.sse`)) return name;
  }
  return 'responses-reasoning-text';
}

/** The whole response a Responses stream recording stands for: its last lifecycle event's response. */
export function responseFromRecording(sse: string): Record<string, unknown> {
  let response: Record<string, unknown> = {};
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6)) as { response?: Record<string, unknown> };
    if (event.response) response = event.response;
  }
  return response;
}
