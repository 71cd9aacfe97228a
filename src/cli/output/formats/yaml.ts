/**
 * `-o yaml`: the JSON form's shape as YAML (output/yaml.ts), streamed the same way: each row an
 * item of the list, or of the envelope's key. An empty list is `[]`.
 */
import type { IO } from '../../context.js';
import { type Formatter, membersOf, write } from './formatter.js';

const toYaml = async () => (await import('../yaml.js')).toYaml;

export const yaml: Formatter = {
  forPeople: false,
  idsOnly: false,
  async begin(io: IO, shape, envelope) {
    const text = await toYaml();
    let count = 0;
    const head = membersOf(envelope?.head);
    const before = head.length > 0 ? text(Object.fromEntries(head)) : '';
    const open = envelope ? `${before}${envelope.key}:\n` : '';
    const empty = envelope ? `${before}${envelope.key}: []\n` : '[]\n';
    // Inside an envelope each item is indented under its key.
    const item = (row: unknown) =>
      envelope ? `  ${text([row]).replace(/\n(?=.)/g, '\n  ')}` : text([row]);
    return {
      async row(row) {
        await write(io, `${count++ === 0 ? open : ''}${item(shape.json(row))}`);
      },
      async end(trailer) {
        const rest = membersOf(trailer);
        const tail = envelope && rest.length > 0 ? text(Object.fromEntries(rest)) : '';
        await write(io, `${count === 0 ? empty : ''}${tail}`);
        return count;
      },
    };
  },
  async one(io, shape, row) {
    await write(io, (await toYaml())(shape.json(row)));
  },
};
