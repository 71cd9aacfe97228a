import { describe, expect, it } from 'vitest';
import { duration, progressLine } from '../../../src/cli/output/progress-line.js';
import { formatBytes, transferBars, transferLine } from '../../../src/cli/output/transfer.js';
import { displayWidth } from '../../../src/cli/output/width.js';
import { fakeIO } from '../helpers.js';

const MiB = 1024 ** 2;

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [22148, '21.6 KiB'],
    [1_048_100, '1 MiB'],
    [314_572_800, '300 MiB'],
    [1024 ** 3, '1 GiB'],
    [1_000_000, '977 KiB'],
  ])('%d → %s', (n, text) => expect(formatBytes(n)).toBe(text));
});

describe('transferLine', () => {
  it('shows bytes, share, rate and ETA', () => {
    expect(transferLine('photo.png', 50 * MiB, 100 * MiB, 2000)).toBe(
      'photo.png                    [##########----------] 50 MiB/100 MiB 50%  25 MiB/s  ETA 2s',
    );
  });

  it('cuts a long name from the front, so the end (extension) stays', () => {
    const line = transferLine(`${'x'.repeat(40)}-end.png`, 0, 10, 0);
    expect(line.startsWith('…')).toBe(true);
    expect(line).toContain('xx-end.png [');
    expect(line).toContain('ETA ?');
  });
});

/** Back up n lines and clear to the end of the screen (n = 0: just clear). */
const UP = (n: number) => (n > 0 ? `\u001b[${n}A\u001b[J` : '\u001b[J');

describe('transferBars', () => {
  it('draws nothing when stderr is not a terminal; results are plain lines', () => {
    const fake = fakeIO();
    const bars = transferBars(fake.io);
    const bar = bars.add('a.png', 10);
    bar.update(5);
    bars.log('uploaded a.png');
    bar.remove();
    bars.end();
    expect(fake.err()).toBe('uploaded a.png\n');
  });

  it('on a terminal: bars at the bottom, results scroll above, redraws at most 10/s', () => {
    const fake = fakeIO({ tty: true });
    let t = 0;
    const bars = transferBars(fake.io, () => t);
    const a = bars.add('a.png', 100);
    const b = bars.add('b.png', 100);
    bars.footer('0 of 2 files done');
    const before = fake.err().length;
    t = 50;
    a.update(10); // too soon: not drawn
    expect(fake.err().length).toBe(before);
    t = 150;
    a.update(20);
    const frame = fake.err().slice(before);
    expect(frame.startsWith(`\r${UP(2)}a.png `)).toBe(true);
    expect(frame).toContain('20 B/100 B 20%');
    a.remove();
    bars.log('uploaded a.png');
    const last = fake.err().split('\r').at(-1)!;
    expect(last.startsWith(`${UP(2)}uploaded a.png\nb.png `)).toBe(true);
    expect(last.endsWith('\n0 of 2 files done\n')).toBe(true);
    b.remove();
    bars.end();
    // The last bar and the footer go; nothing is left below the results.
    expect(fake.err().endsWith(`\r${UP(2)}\r${UP(0)}`)).toBe(true);
  });

  it('shows at most 8 lines of bars and counts the rest', () => {
    const fake = fakeIO({ tty: true });
    const bars = transferBars(fake.io, () => 0);
    for (let i = 0; i < 12; i++) bars.add(`f${i}.bin`, 1);
    const frame = fake.err().split('\r').at(-1)!;
    expect(frame.split('\n').filter(Boolean)).toHaveLength(8);
    expect(frame).toContain('… and 5 more in flight');
  });
});

describe('one progress format for rows and bytes', () => {
  it('rounds an ETA up the same way for an import and a transfer', () => {
    // 3 of 10 after 1 s: 7 left at 3/s is 2.33 s, shown as 3s by both.
    expect(progressLine('importing', 3, 10, 1000)).toMatch(/ETA 3s$/);
    expect(transferLine('a.bin', 3000, 10_000, 1000)).toMatch(/ETA 3s$/);
    expect(duration(3 * 3600 + 59)).toBe('3h01m');
  });
});

describe('progress lines on a narrow terminal', () => {
  const name = 'a-rather-long-holiday-photo-name-from-2024.png';
  it.each([30, 40, 60, 70, 80, 120])(
    'at %i columns: fits; share, rate and ETA stay; the name gives way, its end kept',
    (width) => {
      const line = transferLine(name, 50 * MiB, 100 * MiB, 2000, width);
      expect(displayWidth(line)).toBeLessThanOrEqual(width);
      expect(line).toMatch(/50% {2}25 MiB\/s {2}ETA 2s$/);
      if (width >= 60) expect(line).toContain('[#');
      if (width >= 40) expect(line).toMatch(/^…[a-z0-9-]*\.png /);
    },
  );

  it('a wide terminal keeps the usual line', () => {
    expect(transferLine('photo.png', 50e6, 100e6, 2000, 120)).toBe(
      transferLine('photo.png', 50e6, 100e6, 2000),
    );
  });

  it('the import bar at 40 columns: share, rate and ETA stay', () => {
    const line = progressLine('importing', 250, 1000, 5000, { width: 40 });
    expect(displayWidth(line)).toBeLessThanOrEqual(40);
    expect(line).toMatch(/25% {2}50\/s {2}ETA 15s$/);
  });

  it('transferBars draws within the terminal on stderr', () => {
    const fake = fakeIO({ tty: true });
    (fake.io.stderr as { columns?: number }).columns = 50;
    const bars = transferBars(fake.io, () => 2000);
    bars.add(name, 100e6).update(50e6);
    bars.end();
    const drawn = fake
      .err()
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing the cursor moves.
      .replace(/\r|\u001b\[\d*[AJK]/g, '')
      .split('\n');
    for (const line of drawn) expect(displayWidth(line)).toBeLessThanOrEqual(49);
    expect(drawn.join('\n')).toMatch(/ETA \?/);
  });
});
