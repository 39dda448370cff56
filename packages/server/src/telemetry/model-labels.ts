// The model names metrics may report as label values: a bounded set the operator controls (see ModelLabels).
import { reportedName } from './attributes.js';
import { clock } from './clock.js';

/** How long the model names metrics report are kept before the providers are asked again (one minute). */
export const MODEL_LABELS_TTL_MS = 60_000;
const OTHER = '_OTHER';

/**
 * The model names metrics report as they are: those the providers list (the embedded and scenario models,
 * the configured routes, what each upstream lists, at most `maxUpstreamModels` each), a set the operator
 * controls; any other name a client sends is `_OTHER`. A client's model name was otherwise a label value it
 * chose: 2,200 distinct names made every scrape 30-110 MiB. The providers are asked in the background, at
 * most once per `ttlMs`, only while metrics are on; until the first answer every name is `_OTHER`.
 */
export class ModelLabels {
  #known = new Set<string>();
  #until = 0;
  #asking = false;
  /**
   * The name last asked for and its label: turns in a row name one model, each in a string of its own (from
   * its request's JSON), which a set lookup hashes every time; compared with the last one it is not hashed,
   * and the label handed on is one kept string, so the turn's attribute sets are then found by identity.
   */
  #lastAsked: string | undefined;
  #lastLabel = OTHER;

  /** `lists` gives each provider's names, as it lists them (at once, or a promise of an upstream's listing). */
  constructor(
    private readonly lists: () => ReadonlyArray<readonly string[] | Promise<readonly string[]>>,
    private readonly ttlMs = MODEL_LABELS_TTL_MS,
  ) {}

  /**
   * Asks the providers again when the names are older than the TTL (at most one question at a time). Each
   * listing's names count as soon as it answers; the whole set is replaced when every listing has answered
   * (a failed one counts as none), so names no longer listed leave it. `now`: `clock.now()`, or a
   * moment just read (a turn's start: no clock read of its own).
   */
  refresh(now: number = clock.now()): void {
    if (this.#asking || now < this.#until) return;
    this.#asking = true;
    const next = new Set<string>();
    const add = (names: readonly string[]) => {
      this.#lastAsked = undefined;
      for (const name of names) {
        this.#known.add(name);
        next.add(name);
      }
    };
    // Each listing counts as soon as it answers: one given at once (the embedded model's) before this returns,
    // so the turn that asked reads it when it ends, however soon; an upstream's when it comes back.
    const lists = this.lists().map((list) =>
      Array.isArray(list) ? add(list) : Promise.resolve(list).then(add, () => {}),
    );
    void Promise.all(lists).then(() => {
      this.#known = next;
      this.#lastAsked = undefined;
      this.#asking = false;
      this.#until = clock.now() + this.ttlMs;
    });
  }

  /**
   * `model` when the providers list it, else `_OTHER`. It does not ask the providers again: a turn's meter
   * asks when the turn starts (`refresh`, with the turn's start time: no clock read of its own).
   */
  label(model: string): string {
    if (model === this.#lastAsked) return this.#lastLabel;
    const label = this.#known.has(model) ? reportedName(model) : OTHER;
    this.#lastAsked = model;
    this.#lastLabel = label;
    return label;
  }
}
