/**
 * `-o json`: a list is an array, streamed row by row (a 100,000-row list is never held whole);
 * one object is itself; an envelope is its object with the rows at its key. Indented by two.
 */
import type { IO } from '../../context.js';
import { safeJson } from '../text-safe.js';
import { type Formatter, membersOf, write } from './formatter.js';

/** `value` as indented JSON whose lines after the first are indented `depth` more. */
const indented = (value: unknown, depth: number) =>
  safeJson(JSON.stringify(value, null, 2)).replace(/\n/g, `\n${' '.repeat(depth)}`);

const member = ([key, value]: [string, unknown]) =>
  `  ${safeJson(JSON.stringify(key))}: ${indented(value, 2)}`;

export const json: Formatter = {
  forPeople: false,
  idsOnly: false,
  follows: 'ndjson',
  async begin(io: IO, shape, envelope) {
    let count = 0;
    // Nothing is written before the first row or the end, so a failure in between prints nothing.
    const open = envelope
      ? `{\n${membersOf(envelope.head)
          .map((m) => `${member(m)},\n`)
          .join('')}  ${safeJson(JSON.stringify(envelope.key))}: [`
      : '[';
    const depth = envelope ? 4 : 2;
    const pad = ' '.repeat(depth);
    return {
      async row(row) {
        const item = indented(shape.json(row), depth);
        await write(io, `${count++ === 0 ? open : ','}\n${pad}${item}`);
      },
      async end(trailer) {
        const close = count === 0 ? `${open}]` : `\n${' '.repeat(depth - 2)}]`;
        const rest = envelope
          ? `${membersOf(trailer)
              .map((m) => `,\n${member(m)}`)
              .join('')}\n}`
          : '';
        await write(io, `${close}${rest}\n`);
        return count;
      },
    };
  },
  async one(io, shape, row) {
    await write(io, `${indented(shape.json(row), 0)}\n`);
  },
};
