/**
 * A deep copy of a JSON value. Events and responses are plain JSON, and structuredClone is several times
 * slower for them on Node 20 (it serialises through the structured-clone algorithm); this is on the hot
 * path of every event the accumulator and the writer handle.
 */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) out[key] = cloneJson((value as Record<string, unknown>)[key]);
  }
  return out as T;
}
