/**
 * Whether the client of a request went away. Poll `cancelled`; `signal` (for providers that pass it on,
 * e.g. to `fetch`) is made on first use: on Node 20 every AbortController is costly to create and
 * survives young-generation collections, which under load cost more than the rest of a short turn.
 */
export class Cancellation {
  private controller: AbortController | undefined;
  private listeners: Array<() => void> | undefined;
  private done = false;
  /** Why it was cancelled, as the failed response reports it (default: the client went away). */
  reason = 'The client went away.';
  /** The error code the failed response reports (`cancelled`, or e.g. `background_deadline`). */
  code = 'cancelled';

  /** A cancellation that follows `signal`. */
  static following(signal: AbortSignal): Cancellation {
    const cancellation = new Cancellation();
    if (signal.aborted) cancellation.cancel();
    else signal.addEventListener('abort', () => cancellation.cancel(), { once: true });
    return cancellation;
  }

  /** Whether it was cancelled. */
  get cancelled(): boolean {
    return this.done;
  }

  /** An `AbortSignal` that follows it, made on first read. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort();
    }
    return this.controller.signal;
  }

  /**
   * Calls `listener` once when cancelled (at once if already); returns what stops listening. Cheaper than
   * a listener on `signal`: no AbortSignal is made.
   */
  onCancel(listener: () => void): () => void {
    if (this.done) {
      listener();
      return noop;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      const listeners = this.listeners;
      const index = listeners ? listeners.indexOf(listener) : -1;
      if (index >= 0) listeners!.splice(index, 1);
    };
  }

  /** Cancels: runs the listeners once and aborts the signal, if one was made. */
  cancel(reason?: string, code?: string): void {
    if (this.done) return;
    if (reason) this.reason = reason;
    if (code) this.code = code;
    this.done = true;
    this.controller?.abort();
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }
}

const noop = () => {};

/** Calls `listener` once when `signal` aborts; returns what stops listening (a no-op without a signal). */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return noop;
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
