// Record mode: wraps any provider (an upstream, the embedded model) and writes each turn it serves as a
// scenario whose recorded parts `ScenarioProvider` replays exactly, so real traffic becomes an offline
// test double.
import { ResponsesError } from '../errors.js';
import type { ModelPart, ModelProvider, ModelRequest } from './provider.js';
import { matchFactsOf, type ScenarioFile } from './scenarios.js';

type RecordedScenario = ScenarioFile['scenarios'][number];

/** Collects the turns of every provider it wraps into one scenario file, saved after each turn. */
export class ScenarioRecorder {
  private readonly scenarios: RecordedScenario[] = [];

  /** `save` gets the whole file after every recorded turn (the Node entry writes it to disk). */
  constructor(private readonly save: (file: ScenarioFile) => void | Promise<void>) {}

  /** The scenarios recorded so far, as a scenario file. */
  get file(): ScenarioFile {
    return { scenarios: [...this.scenarios] };
  }

  /** A provider that serves as `provider` does and records each turn. */
  wrap(provider: ModelProvider): ModelProvider {
    return new RecordingProvider(provider, this);
  }

  /** @internal */
  async record(scenario: Omit<RecordedScenario, 'name'>): Promise<void> {
    const { match } = scenario;
    const turn = match?.turn ?? 0;
    const name = `recorded ${this.scenarios.length + 1}: turn ${turn}${match?.toolOutputs ? ' after tool outputs' : ''}`;
    this.scenarios.push({ name, ...scenario });
    await this.save(this.file);
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
  }

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
      if (failure === undefined) await this.recorder.record({ match, ...times, parts });
      else if (parts.length === 0 && failure instanceof ResponsesError)
        await this.recorder.record({
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
        });
    }
  }
}
