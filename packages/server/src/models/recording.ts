// Record mode: wraps any provider (an upstream, the embedded model) and hands each turn it serves, as it
// ends, to a writer as one scenario that `ScenarioProvider` replays exactly, so real traffic becomes an
// offline test double. Nothing is kept after it is handed on; what is handed on is redacted.
import { ResponsesError } from '../errors.js';
import { Redactor } from '../redaction.js';
import type { ModelPart, ModelProvider, ModelRequest } from './provider.js';
import type { ScenarioFile } from './scenario-file.js';
import { matchFactsOf } from './scenarios.js';

/** One recorded turn: a scenario of a scenario file (one line of a JSON Lines recording). */
export type RecordedScenario = ScenarioFile['scenarios'][number];

/** What `new ScenarioRecorder(providers, append, options)` takes besides the providers and the sink. */
export interface ScenarioRecorderOptions {
  /**
   * Removes secrets from what is recorded (default: the common secret shapes). Each wrapped provider's own
   * `redact` (its upstream key) runs first.
   */
  redactor?: Redactor;
}

/**
 * Hands every turn of the providers it wraps to `append`, one scenario per turn as the turn ends, and
 * keeps none of them: a long recording costs no memory, and a crash loses only the turn under way.
 */
export class ScenarioRecorder {
  private count = 0;
  private readonly redactor: Redactor;

  /** `append` gets each recorded turn once (the Node entry's `scenarioRecordWriter` appends it to a JSON Lines file). */
  constructor(
    private readonly append: (scenario: RecordedScenario) => void | Promise<void>,
    options: ScenarioRecorderOptions = {},
  ) {
    this.redactor = options.redactor ?? new Redactor();
  }

  /** A provider that serves as `provider` does and records each turn. */
  wrap(provider: ModelProvider): ModelProvider {
    return new RecordingProvider(provider, this);
  }

  /** @internal */
  async record(scenario: Omit<RecordedScenario, 'name'>, redact?: (text: string) => string): Promise<void> {
    const { match } = scenario;
    const turn = match?.turn ?? 0;
    const name = `recorded ${++this.count}: turn ${turn}${match?.toolOutputs ? ' after tool outputs' : ''}`;
    const clean = this.redactor.value({ name, ...scenario }, redact);
    await this.append(clean);
  }
}

class RecordingProvider implements ModelProvider {
  readonly name: string;
  readonly genAiProvider: string | undefined;
  readonly contextWindow: number;

  constructor(
    private readonly inner: ModelProvider,
    private readonly recorder: ScenarioRecorder,
  ) {
    this.name = `recording(${inner.name})`;
    this.genAiProvider = inner.genAiProvider;
    this.contextWindow = inner.contextWindow;
    this.redact = inner.redact?.bind(inner);
  }

  readonly redact?: (text: string) => string;

  supports(model: string): boolean {
    return this.inner.supports(model);
  }

  listModels(): Promise<string[]> | string[] {
    return this.inner.listModels?.() ?? [];
  }

  async *generate(request: ModelRequest): AsyncGenerator<ModelPart> {
    const parts: ModelPart[] = [];
    const match = matchFactsOf(request);
    // Each recording answers once, so a replayed conversation gets its turns in the recorded order even
    // when two requests match alike (two rounds of tool outputs in one turn).
    const times = { times: 1 };
    let failure: unknown;
    try {
      for await (const part of this.inner.generate(request)) {
        parts.push(part);
        yield part;
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      // The turn runner stops reading at `finish` (the generator is returned, not run to its end), so
      // the turn is recorded here. An error before the first part is recorded as an HTTP-level error.
      if (failure === undefined) await this.recorder.record({ match, ...times, parts }, this.redact);
      else if (parts.length === 0 && failure instanceof ResponsesError)
        await this.recorder.record(
          {
            match,
            ...times,
            error: {
              status: failure.status,
              type: failure.type,
              code: failure.code,
              message: failure.message,
              param: failure.param,
              headers: failure.headers,
            },
          },
          this.redact,
        );
    }
  }
}
