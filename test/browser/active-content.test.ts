/**
 * A real browser (Debian's chromium through playwright-core) against uploaded active content:
 * SVG with scripts, HTML named as an image, polyglots. Opened directly through their signed
 * `/cdn` URLs and shown in `<img>` tags on a page from another loopback origin, none may run a
 * script; an uploaded JPEG still renders. Every script in the files reports to a beacon server
 * (and sets a global), so "no script ran" is checked, not assumed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeFixtures } from '../../fixtures/make-fixtures.mjs';
import { startServer, type TestServer } from '../helpers/server.js';
import { upload } from '../server/media/media-helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const required = process.env.CI === 'true';
if (!available && !required) {
  process.stderr.write(
    `skipping the browser check of active content: install chromium (apt-get install chromium) or set CHROMIUM_PATH\n`,
  );
}

let s: TestServer;
let browser: Browser;
let beacon: Server;
let page: Server;
const beaconHits: string[] = [];
let beaconUrl = '';
let pageUrl = '';
const urls: Record<string, string> = {};

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** What a script in a file does if it runs: a request to the beacon and a global. */
const payload = (name: string) =>
  `window.__ran = (window.__ran || []).concat('${name}'); new Image().src = '${beaconUrl}/${name}'; fetch('${beaconUrl}/${name}-fetch').catch(() => {});`;

function activeFiles(): Record<string, { name: string; data: Buffer }> {
  const svg = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" onload="${payload('svg-onload').replace(/"/g, '&quot;')}">
  <script>${payload('svg-script')}</script>
  <rect width="40" height="40" fill="#c00"/>
  <foreignObject width="40" height="40"><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="${payload('svg-foreign').replace(/"/g, '&quot;')}"/></body></foreignObject>
</svg>`;
  const html = `<!doctype html><html><body><script>${payload('html-as-image')}</script><img src=x onerror="${payload('html-onerror')}"></body></html>`;
  // GIF89a header, then markup: a GIF to a sniffer, a page to a careless server.
  const gifPolyglot = Buffer.concat([
    Buffer.from(
      'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;',
      'latin1',
    ),
    Buffer.from(`<html><script>${payload('gif-polyglot')}</script></html>`),
  ]);
  // Text that is also HTML: served as text/plain.
  const textPolyglot = `hello <script>${payload('text-polyglot')}</script>`;
  return {
    svg: { name: 'logo.svg', data: Buffer.from(svg) },
    html: { name: 'cat.jpg', data: Buffer.from(html) },
    gif: { name: 'pixel.gif', data: gifPolyglot },
    text: { name: 'notes.html', data: Buffer.from(textPolyglot) },
  };
}

describe.runIf(available || required)('active content in a real browser (chromium)', () => {
  beforeAll(async () => {
    expect(available, `chromium not found at ${CHROMIUM} (apt-get install chromium)`).toBe(true);
    beacon = createServer((req, res) => {
      beaconHits.push(req.url ?? '');
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.end();
    });
    beaconUrl = await listen(beacon);
    s = await startServer();
    for (const [key, file] of Object.entries(activeFiles())) {
      const r = await upload(s, file.data, file.name);
      expect(r.status, key).toBe(200);
      urls[key] = r.json.resourceInfo.url;
    }
    const jpeg = await upload(s, readFileSync((await makeFixtures()).paths.exifJpeg), 'photo.jpg');
    urls.jpeg = jpeg.json.resourceInfo.url;
    // A page on another loopback origin that shows every upload in an <img>.
    page = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(
        `<!doctype html><body>${Object.entries(urls)
          .map(([k, u]) => `<img id="${k}" src="${u.replace(/&/g, '&amp;')}">`)
          .join('')}</body>`,
      );
    });
    pageUrl = await listen(page);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    for (const server of [beacon, page]) server?.close();
  });

  test('opened directly through their signed /cdn URLs, no script runs', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const tab = await context.newPage();
    for (const key of ['svg', 'html', 'gif', 'text']) {
      const downloaded = tab.waitForEvent('download').then(
        () => true,
        () => false,
      );
      const opened = await tab.goto(urls[key]!, { waitUntil: 'load' }).then(
        (res) => res,
        () => null, // a download aborts the navigation: the file was not rendered as a page
      );
      if (opened) {
        expect(opened.status(), key).toBe(200);
        expect(await tab.evaluate('window.__ran'), key).toBeUndefined();
      } else {
        expect(await downloaded, `${key} neither rendered nor downloaded`).toBe(true);
      }
      await tab.waitForLoadState('networkidle');
    }
    await context.close();
    expect(beaconHits).toEqual([]);
  });

  test('shown in <img> tags on a loopback page, no script runs and the JPEG renders', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(pageUrl, { waitUntil: 'load' });
    await tab.waitForLoadState('networkidle');
    const widths = (await tab.evaluate(
      'Object.fromEntries([...document.images].map((i) => [i.id, i.complete ? i.naturalWidth : -1]))',
    )) as Record<string, number>;
    expect(widths.jpeg).toBe(300); // EXIF orientation 6: stored 400×300, shown 300 wide
    expect(widths.svg).toBe(40); // an SVG still works as an image
    expect(await tab.evaluate('window.__ran')).toBeUndefined();
    await context.close();
    expect(beaconHits).toEqual([]);
  });
});
