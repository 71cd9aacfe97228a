import { describe, expect, it } from 'vitest';
import { checkMedia } from '../../../../src/cli/commands/check/media.js';
import type { Probe } from '../../../../src/cli/commands/check/probe.js';
import { ApiError } from '../../../../src/client/errors.js';
import { page, stubClient } from '../../helpers.js';

const medium = { id: 'm1', fileName: 'roster-check.txt' };
const notFound = () => new ApiError({ status: 404, method: 'GET', url: 'u' });
const jsonAnswer = async () => ({
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  data: {},
});

function probe(stubs: Parameters<typeof stubClient>[0]) {
  const stub = stubClient(stubs);
  const p: Probe = { client: stub.client, vendor: 'service', steps: [] };
  return { p, stub };
}

describe('check: media steps', () => {
  it('are skipped when the service has no media routes (GET /media → 404)', async () => {
    const { p } = probe({
      listMedia: async () => {
        throw notFound();
      },
    });
    expect(await checkMedia(p, true)).toBeUndefined();
    expect(p.steps.map((s) => [s.name, s.result])).toEqual([
      ['GET /media', 'skip'],
      ['POST /media', 'skip'],
      ['GET /media/{id}', 'skip'],
      ['DELETE /media/{id}', 'skip'],
    ]);
    expect(p.steps[0]!.detail).toContain('no media endpoints (404)');
  });

  it('with --write: upload, read with each version, remove, and check it is gone', async () => {
    let deleted = false;
    const { p, stub } = probe({
      listMedia: async () => page([]),
      http: { json: jsonAnswer } as any,
      uploadMedium: async () => medium as any,
      deleteMedium: async () => {
        deleted = true;
      },
      getMedium: async () => {
        if (deleted) throw notFound();
        return medium as any;
      },
    });
    expect(await checkMedia(p, true)).toBeUndefined();
    expect(p.steps.map((s) => [s.name, s.result])).toEqual([
      ['GET /media (application/json)', 'pass'],
      ['POST /media (a throwaway file)', 'pass'],
      ['GET /media/{id} (application/json)', 'pass'],
      ['DELETE /media/m1', 'pass'],
      ['GET /media/m1 after removal answers 404', 'pass'],
    ]);
    stub.assertAllUsed();
  });

  it('without --write reads an existing medium, or skips with a hint', async () => {
    const none = probe({ listMedia: async () => page([]), http: { json: jsonAnswer } as any });
    await checkMedia(none.p, false);
    expect(none.p.steps.at(-1)).toMatchObject({
      name: 'GET /media/{id}',
      result: 'skip',
      detail: expect.stringContaining('--write'),
    });
    const one = probe({
      listMedia: async () => page([medium as any]),
      http: { json: jsonAnswer } as any,
    });
    await checkMedia(one.p, false);
    expect(one.p.steps.map((s) => s.result)).toEqual(['pass', 'pass']);
  });

  it('a wrong Content-Type fails the step, naming both types', async () => {
    const { p } = probe({
      listMedia: async () => page([]),
      http: {
        json: async () => ({ status: 200, headers: { 'content-type': 'text/plain' }, data: {} }),
      } as any,
    });
    await checkMedia(p, false);
    expect(p.steps[0]).toMatchObject({
      result: 'fail',
      detail: 'answered Content-Type text/plain, expected application/json',
    });
  });
});
