// Loaded into the CLI process by test/no-context-manager.test.ts (NODE_OPTIONS=--import): at exit it prints
// what the process registered with the OpenTelemetry API's global (the API keeps it under this symbol, its
// major version 1): the context manager (none: `null`), and the tracer provider behind the API's proxy.
process.on('exit', () => {
  const api = globalThis[Symbol.for('opentelemetry.js.api.1')];
  const delegate = api?.trace?.getDelegate?.();
  const found = {
    contextManager: api?.context?.constructor.name ?? null,
    tracerProvider: delegate?.constructor.name ?? null,
  };
  console.log(`context-manager-probe ${JSON.stringify(found)}`);
});
