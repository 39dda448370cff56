import { randomId, type StreamWriter } from '@openresponses/events';
import type { LogProb } from '@openresponses/types';
import type { ModelPart } from '../../models/provider.js';
import type { PreparedTurn, TurnDependencies } from './prepare.js';

/** An output item open in the writer: how the parts of its lane reach it, and how it ends. */
export interface OpenItem {
  apply(part: ModelPart): void;
  /** Ends the item (a promise only while a reasoning item is sealed). */
  close(end: ModelPart): void | Promise<void>;
}

/** One output item the model streams: open in the writer, or waiting (its parts held) while another is open. */
export interface Lane {
  key: string;
  /** The part that started it (`begin` opens the item it names). */
  start: ModelPart;
  /** Parts that arrived while the lane was waiting, replayed when it opens. */
  held: ModelPart[];
}

/** What a lane's item needs from its turn: the writer, what reasoning is sealed for, and the output meter. */
export interface LaneTurn {
  readonly writer: StreamWriter;
  readonly turn: PreparedTurn;
  readonly deps: Pick<TurnDependencies, 'sealer'>;
  /** Charges bytes the turn emits beyond its parts (a sealed reasoning copy) to its output meter. */
  charge(bytes: number): void;
}

/**
 * Starts the item a lane's first part names in the writer; answers how its parts reach it, or nothing for a
 * whole item (`item`: added and done at once).
 */
export function beginItem(start: ModelPart, at: LaneTurn): OpenItem | undefined {
  const { writer } = at;
  switch (start.type) {
    case 'text-start':
    case 'refusal-start': {
      const message = writer.addMessage(start.type === 'text-start' && start.phase ? { phase: start.phase } : {});
      let part = start.type === 'text-start' ? message.addOutputText() : message.addRefusal();
      return {
        apply: (p) => {
          if (p.type === 'message-part-start') {
            part.done();
            part = p.kind === 'text' ? message.addOutputText() : message.addRefusal();
          } else if (p.type === 'text-annotation') part.annotate(p.annotation);
          else part.append((p as { delta: string }).delta, (p as { logprobs?: LogProb[] }).logprobs);
        },
        close: () => {
          part.done();
          message.done();
        },
      };
    }
    case 'reasoning-start':
      return reasoningItem(at);
    case 'function-call-start': {
      const call = writer.addFunctionCall({ name: start.name, call_id: start.callId ?? randomId('call') });
      return { apply: (p) => call.appendArguments((p as { delta: string }).delta), close: () => call.done() };
    }
    case 'item': {
      const { id, ...rest } = start.item;
      writer.addItem(Object.assign({}, rest, { id: id ?? randomId('item') })).done();
      return undefined;
    }
    default:
      throw new Error(`not a start part: ${start.type}`);
  }
}

function reasoningItem(at: LaneTurn): OpenItem {
  const { writer, turn } = at;
  const reasoning = writer.addReasoning();
  const summaries: string[] = [];
  let content: string | null = null;
  let summary: ReturnType<typeof reasoning.addSummaryPart> | undefined;
  const openSummary = () => {
    summary = reasoning.addSummaryPart();
    summaries.push('');
    return summary;
  };
  return {
    apply: (p) => {
      if (p.type === 'reasoning-summary-start') openSummary();
      else if (p.type === 'reasoning-summary-delta') {
        (summary ?? openSummary()).append(p.delta);
        summaries[summaries.length - 1] += p.delta;
      } else if (p.type === 'reasoning-summary-end') {
        summary?.done();
        summary = undefined;
      } else if (p.type === 'reasoning-delta') {
        reasoning.appendContent(p.delta);
        content = (content ?? '') + p.delta;
      }
    },
    close: (end) => {
      summary?.done();
      // On request (include), as the OpenAPI describes: most clients never send reasoning back. A
      // provider's state (a thinking signature) is also kept when the response is stored, so that a
      // previous_response_id continuation can send it back.
      const state = end.type === 'reasoning-end' ? end.state : undefined;
      if (!(turn.request.include.includes('reasoning.encrypted_content') || (state && turn.body.store !== false))) {
        reasoning.done({});
        return;
      }
      return at.deps.sealer
        .seal(state ? { summary: summaries, content, state } : { summary: summaries, content }, 'reasoning')
        .then((sealed) => {
          // The sealed copy reaches the client and the store too: charged like everything the turn emits.
          at.charge(sealed.length);
          reasoning.done({ encrypted_content: sealed });
        });
    },
  };
}
