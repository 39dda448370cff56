// What every runtime's WebSocket upgrade shares: the service's refusal (unknown path, origin, key) as a
// spec-shaped JSON error, and text from a message that may arrive as bytes.

/** The refusal of an upgrade request as a JSON error response, or undefined when it may proceed. */
export async function refusal(service, request) {
  const error = await service.checkUpgrade({
    path: new URL(request.url).pathname,
    header: (name) => request.headers.get(name),
  });
  return error ? Response.json(error.toJSON(), { status: error.status }) : undefined;
}

export const textOf = (data) => (typeof data === 'string' ? data : new TextDecoder().decode(data));
