// Reasoning and encrypted content: the reasoning configuration, reasoning streams, encrypted_content only when
// included and refused when not issued.
import { expect, type ComplianceTest } from './context.js';
import { user, expectRefusedContent } from './helpers.js';

export const REASONING_TESTS: ComplianceTest[] = [
  {
    id: 'reasoning-setting-echoed',
    description: 'The response reports the reasoning configuration the request set',
    transport: 'http',
    async run(t) {
      const response = await t.create({ input: 'Hello.', reasoning: { effort: 'low', summary: 'auto' } });
      expect(
        response.reasoning?.effort === 'low',
        'reasoning',
        `reasoning echoed as ${JSON.stringify(response.reasoning)}`,
      );
    },
  },
  {
    id: 'reasoning-stream',
    description:
      'With reasoning on, a reasoning item then a message stream at output_index 0 and 1, summary deltas adding up',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const { final } = await t.stream({
        input: 'Think it through: what is two plus two?',
        reasoning: { effort: 'low', summary: 'auto' },
      });
      const types = final.output.map((i) => i.type);
      expect(
        types[0] === 'reasoning' && types.includes('message'),
        'reasoning',
        `output is ${types.join(', ')}, expected reasoning then a message`,
      );
      const reasoning = final.output[0] as { encrypted_content?: string | null };
      expect(
        reasoning.encrypted_content === undefined || reasoning.encrypted_content === null,
        'include',
        'encrypted_content was sent without include: ["reasoning.encrypted_content"]',
      );
    },
  },
  {
    id: 'include-reasoning-encrypted-content',
    description:
      'include reasoning.encrypted_content returns it; sent back it is accepted, altered it is a 400 naming it',
    transport: 'http',
    modelDependent: true,
    async run(t) {
      const first = await t.create({
        input: 'Think it through: what is two plus two?',
        reasoning: { effort: 'low' },
        include: ['reasoning.encrypted_content'],
      });
      const reasoning = first.output.find((i) => i.type === 'reasoning') as
        | (Record<string, unknown> & { encrypted_content?: string | null })
        | undefined;
      expect(reasoning, 'reasoning', 'no reasoning item');
      expect(
        typeof reasoning.encrypted_content === 'string' && reasoning.encrypted_content.length > 0,
        'include',
        'include reasoning.encrypted_content returned no encrypted_content',
      );
      const replay = (encrypted_content: string) => ({
        model: t.config.model,
        input: [
          user('Think it through: what is two plus two?'),
          { type: 'reasoning', id: reasoning.id, summary: reasoning.summary, encrypted_content },
          user('And three plus three?'),
        ],
      });
      const back = await t.request('POST', '/responses', replay(reasoning.encrypted_content!));
      expect(back.status === 200, 'encrypted-content', `replaying the reasoning item answered ${back.status}`);
      const text = reasoning.encrypted_content!;
      const middle = Math.floor(text.length / 2);
      const altered = `${text.slice(0, middle)}${text[middle] === 'A' ? 'B' : 'A'}${text.slice(middle + 1)}`;
      expectRefusedContent(await t.request('POST', '/responses', replay(altered)));
    },
  },
  {
    id: 'encrypted-content-garbage',
    description: 'A reasoning item sent back with encrypted_content the server never issued is a 400 naming it',
    transport: 'http',
    async run(t) {
      expectRefusedContent(
        await t.request('POST', '/responses', {
          model: t.config.model,
          input: [
            user('Hello.'),
            { type: 'reasoning', id: 'rs_forged', summary: [], encrypted_content: 'forged-by-the-client' },
            user('Continue.'),
          ],
        }),
      );
    },
  },
];
