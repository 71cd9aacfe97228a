/** `-o ids`: one id per line, for a pipe into the next command (`… | roster users remove -`). */
import { safeText } from '../text-safe.js';
import { cell, type Formatter, idOf, write } from './formatter.js';

export const ids: Formatter = {
  forPeople: false,
  idsOnly: true,
  async begin(io, shape) {
    const id = shape.id ?? idOf;
    let count = 0;
    return {
      async row(row) {
        count++;
        await write(io, `${safeText(cell(id(row)))}\n`);
      },
      end: async () => count,
    };
  },
  async one(io, shape, row) {
    await write(io, `${safeText(cell((shape.id ?? idOf)(row)))}\n`);
  },
};
