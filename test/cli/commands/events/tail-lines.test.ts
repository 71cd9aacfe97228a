import { describe, expect, it } from 'vitest';
import { filterWords } from '../../../../src/cli/commands/events/filters.js';
import { parseWhen, tailLines } from '../../../../src/cli/commands/events/format.js';
import type { RosterEvent } from '../../../../src/contract/events.js';

const event = (over: Partial<RosterEvent> = {}): RosterEvent => ({
  id: 'evt_1',
  sequence: 1,
  type: 'webhook.created',
  occurredAt: '2026-12-07T23:40:00.000Z',
  actor: { type: 'token', id: 'tok_1', name: 'admin' },
  channel: 'api',
  requestId: 'req_1',
  target: { type: 'webhook', id: 'wh_1' },
  ...over,
});

/** C0 and C1 controls and DEL (what a terminal runs as escapes). */
const CONTROL = /\p{Cc}/u;

// What a token that may write put there is shown to whoever follows the log on a terminal.
describe('events tail lines: what a writer stored cannot drive the terminal', () => {
  const hostile = '\u001b[31mRED\u001b[0m\nforged 23:59:59 user.deleted boss@example.com';

  it('control characters in a change are escaped, and a newline makes no line of its own', () => {
    const lines = tailLines(event({ changes: { description: { from: null, to: hostile } } }), 200);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).not.toMatch(CONTROL);
    expect(lines[1]).toContain('RED');
    expect(lines[1]).toContain('forged');
  });

  it('in the head too: target and actor names', () => {
    const lines = tailLines(
      event({
        target: { type: 'user', id: 'u1', email: `a${hostile}@example.com` },
        actor: { type: 'token', id: 'tok_1', name: `x\u0007\u009b2J${hostile}` },
      }),
      300,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(CONTROL);
  });

  it('plain text stays as it was', () => {
    const lines = tailLines(
      event({ changes: { 'profile.department': { from: 'Ops', to: 'Sales' } } }),
    );
    expect(lines).toEqual([
      '23:40:00 webhook.created wh_1 (admin/api)',
      '  profile.department: Ops → Sales',
    ]);
  });
});

describe('the resume hint repeats the filters (a cursor is bound to them)', () => {
  it('each flag as a shell reads it, times as the service took them', () => {
    expect(
      filterWords({
        types: ['user.*', 'medium.created'],
        target: 'u1',
        since: '2026-12-07T22:00:00.000Z',
        run: "it's",
      }),
    ).toBe(
      " --type 'user.*' --type medium.created --user u1 --since 2026-12-07T22:00:00.000Z --run 'it'\\''s'",
    );
    expect(filterWords({})).toBe('');
  });
});

describe('--since and --until', () => {
  const now = Date.parse('2026-12-07T23:00:00.000Z');

  it('a time before now, an ISO time, or a date and time as typed', () => {
    expect(parseWhen('--since', '2h', now)).toBe('2026-12-07T21:00:00.000Z');
    expect(parseWhen('--since', '2026-12-06T21:00:00Z', now)).toBe('2026-12-06T21:00:00.000Z');
    expect(parseWhen('--since', '2026-12-06 21:00Z', now)).toBe('2026-12-06T21:00:00.000Z');
  });

  it.each([
    '2026-02-30',
    '2026-12-07T24:00:00Z',
    '2026-12-07 junk',
    '9999-12-31T23:30:00-01:00',
    'yesterday',
  ])('%s: a usage error naming the flag, not another day', (given) => {
    expect(() => parseWhen('--since', given, now)).toThrow(`--since takes a time before now`);
  });
});
