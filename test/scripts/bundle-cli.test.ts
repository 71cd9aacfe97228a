/**
 * scripts/bundle-cli.mjs rewrites lines inside undici and commander, and client/undici-*.ts
 * import undici's lib/ files: both hold only for the exact versions they were written for. The
 * build checks it (checkPins, one rewrite per rule); this proves those checks fail loudly.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

interface Rule {
  pkg: string;
  file: string;
  from: string;
  to: string;
}
interface BundleScript {
  LAZY: Rule[];
  checkPins(root?: string): void;
  ruleFor(path: string): Rule | undefined;
  rewrite(rule: Rule, source: string): string;
}
// A plain .mjs script (no types of its own): its shape is declared above.
const script: BundleScript = await import(join(ROOT, 'scripts', 'bundle-cli.mjs'));

const scratch = mkdtempSync(join(tmpdir(), 'roster-pins-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A project root with this package.json and these installed versions. */
function project(name: string, deps: Record<string, string>, installed: Record<string, string>) {
  const root = join(scratch, name);
  mkdirSync(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ dependencies: deps }));
  for (const [pkg, version] of Object.entries(installed)) {
    mkdirSync(join(root, 'node_modules', pkg), { recursive: true });
    writeFileSync(join(root, 'node_modules', pkg, 'package.json'), JSON.stringify({ version }));
  }
  return root;
}

describe('the packages the bundle rewrites', () => {
  it('are pinned to exact versions, and those are the ones installed', () => {
    expect(() => script.checkPins(ROOT)).not.toThrow();
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(['undici', 'commander']));
    expect(new Set(script.LAZY.map((r) => r.pkg))).toEqual(new Set(['undici', 'commander']));
  });

  it('a caret range stops the build, naming the package', () => {
    const root = project(
      'caret',
      { undici: '^7.30.2', commander: '14.0.3' },
      { undici: '7.30.2', commander: '14.0.3' },
    );
    expect(() => script.checkPins(root)).toThrow(/undici is '\^7\.30\.2', not an exact version/);
  });

  it('an installed version other than the pinned one stops the build', () => {
    const root = project(
      'drift',
      { undici: '7.30.2', commander: '14.0.3' },
      { undici: '7.30.2', commander: '14.1.0' },
    );
    expect(() => script.checkPins(root)).toThrow(
      /commander 14\.1\.0 is installed, package\.json pins 14\.0\.3/,
    );
  });
});

describe('each rewrite', () => {
  it.each(script.LAZY.map((r) => [`${r.pkg}/${r.file}`, r] as const))(
    'matches its line in the installed %s exactly once',
    (_, rule) => {
      const path = join(ROOT, 'node_modules', rule.pkg, rule.file);
      expect(script.ruleFor(path)).toBe(rule);
      const out = script.rewrite(rule, readFileSync(path, 'utf8'));
      expect(out.split(rule.to)).toHaveLength(2);
      expect(out).not.toContain(rule.from);
    },
  );

  it('fails when its line is gone or there twice', () => {
    const [rule] = script.LAZY;
    if (!rule) throw new Error('no rules');
    expect(() => script.rewrite(rule, 'moved elsewhere')).toThrow(/expected exactly one/);
    expect(() => script.rewrite(rule, `${rule.from}\n${rule.from}`)).toThrow(
      /expected exactly one/,
    );
  });
});
