/**
 * The media half of `roster check`. The media routes are optional on a service: when GET /media
 * answers 404/405/501 every media step is skipped, not failed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../../client/index.js';
import { mediaTypeOf, versionsOf } from '../../../contract/versions.js';
import { answered, expect404, negotiate, type Probe, skip, step } from './probe.js';

/** Returns the id of a throwaway medium that could not be removed, if any. */
export async function checkMedia(p: Probe, write: boolean) {
  const names = ['GET /media', 'POST /media', 'GET /media/{id}', 'DELETE /media/{id}'];
  let mediumId: string | undefined;
  const skipAll = (why: string) => {
    for (const n of names) skip(p, n, why);
    return undefined;
  };
  if (p.stopped) return skipAll(p.stopped);
  try {
    mediumId = (await p.client.listMedia({ limit: 1 })).data[0]?.id;
  } catch (err) {
    // The media routes are optional on a service: without them the media steps are skipped.
    if (err instanceof ApiError && [404, 405, 501].includes(err.status)) {
      return skipAll(`the service has no media endpoints (${err.status})`);
    }
  }
  const [accept] = versionsOf('/media', 'GET', 'accept');
  await step(p, `GET /media (${mediaTypeOf(accept!, p.vendor)})`, async () =>
    answered(
      await negotiate(p, {
        method: 'GET',
        endpoint: '/media',
        query: { limit: 1 },
        accept: accept!,
        status: 200,
      }),
      accept!.stage,
    ),
  );
  let uploaded: string | undefined;
  if (write) {
    await step(p, 'POST /media (a throwaway file)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'roster-check-'));
      try {
        const filePath = join(dir, 'roster-check.txt');
        await writeFile(filePath, 'roster check: a throwaway medium, removed right away\n');
        uploaded = (await p.client.uploadMedium({ filePath })).id;
        return `medium ${uploaded}`;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
  const id = uploaded ?? mediumId;
  const [one] = versionsOf('/media/{mediumID}', 'GET', 'accept');
  if (!id) skip(p, 'GET /media/{id}', 'no medium to read (run with --write)');
  else {
    await step(p, `GET /media/{id} (${mediaTypeOf(one!, p.vendor)})`, async () =>
      answered(
        await negotiate(p, {
          method: 'GET',
          endpoint: '/media/{mediumID}',
          params: { mediumID: id },
          accept: one!,
          status: 200,
        }),
        one!.stage,
      ),
    );
  }
  if (uploaded) {
    const mediumID = uploaded;
    const ok = await step(p, `DELETE /media/${mediumID}`, async () => {
      await p.client.deleteMedium(mediumID);
      uploaded = undefined;
      return 'removed';
    });
    if (ok)
      await step(p, `GET /media/${mediumID} after removal answers 404`, () =>
        expect404(() => p.client.getMedium(mediumID)),
      );
  }
  return uploaded;
}
