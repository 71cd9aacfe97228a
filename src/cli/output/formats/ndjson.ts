/**
 * `-o ndjson`: one JSON object a line, for pipes. An envelope's head is left out (each line is a
 * row); its trailer, known only at the end (a plan's summary), is the last line.
 */
import { safeJson } from '../text-safe.js';
import { type Formatter, membersOf, write } from './formatter.js';

const line = (value: unknown) => `${safeJson(JSON.stringify(value))}\n`;

export const ndjson: Formatter = {
  forPeople: false,
  idsOnly: false,
  follows: 'ndjson',
  async begin(io, shape, envelope) {
    let count = 0;
    return {
      async row(row) {
        count++;
        await write(io, line(shape.json(row)));
      },
      async end(trailer) {
        if (envelope && membersOf(trailer).length > 0) await write(io, line(trailer));
        return count;
      },
    };
  },
  async one(io, shape, row) {
    await write(io, line(shape.json(row)));
  },
};
