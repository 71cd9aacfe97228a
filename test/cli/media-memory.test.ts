/** The file that remembers what each base URL accepted: owner-only, bounded, never in the way. */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileMediaMemory, mediaMemoryPath } from '../../src/cli/media-memory.js';
import { MediaTypes } from '../../src/client/media-types.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch();
afterEach(() => tmp.cleanup());

const mode = (path: string) => statSync(path).mode & 0o777;

describe('media-type memory in the config dir', () => {
  it('is 0600 in a 0700 directory it makes, next to config.json, keyed by base URL', () => {
    const env = { ROSTER_CONFIG_DIR: join(tmp.temp('roster-mem-'), 'config') };
    const memory = fileMediaMemory(env);
    memory.save('http://a.test/api', { vendor: 'staffbase', catalog: false, types: {} });
    const path = mediaMemoryPath(env);
    expect(path).toBe(join(env.ROSTER_CONFIG_DIR, 'media-types.json'));
    expect(mode(path)).toBe(0o600);
    expect(mode(env.ROSTER_CONFIG_DIR)).toBe(0o700);
    expect(memory.load('http://a.test/api')).toMatchObject({ vendor: 'staffbase' });
    expect(memory.load('http://b.test/api')).toBeUndefined();
  });

  it('keeps the 100 most recently written base URLs', () => {
    const env = { ROSTER_CONFIG_DIR: tmp.temp('roster-mem-') };
    const memory = fileMediaMemory(env);
    for (let i = 0; i < 105; i++) memory.save(`http://h${i}.test/api`, { types: {} });
    const kept = Object.keys(JSON.parse(readFileSync(mediaMemoryPath(env), 'utf8')));
    expect(kept).toHaveLength(100);
    expect(kept).toContain('http://h104.test/api');
  });

  it('a damaged or hand-edited file costs a step down, never the command', () => {
    const env = { ROSTER_CONFIG_DIR: tmp.temp('roster-mem-') };
    const path = mediaMemoryPath(env);
    writeFileSync(path, '{"http://a.test/api": ');
    const memory = fileMediaMemory(env);
    expect(memory.load('http://a.test/api')).toBeUndefined();
    writeFileSync(
      path,
      JSON.stringify({ 'http://a.test/api': { vendor: 5, catalog: 'yes', types: 'abc' } }),
    );
    const types = new MediaTypes('http://a.test/api', undefined, memory);
    expect(types.vendor).toBe('service');
    expect(types.catalog).toBeUndefined();
    expect(types.choose('/users', 'GET', 'accept').entity).toBe('users');
    // It is rewritten whole on the next save.
    memory.save('http://a.test/api', { vendor: 'service', types: {} });
    expect(JSON.parse(readFileSync(path, 'utf8'))['http://a.test/api'].vendor).toBe('service');
  });
});
