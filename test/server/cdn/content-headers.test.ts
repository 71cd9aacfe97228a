import { expect, test } from 'vitest';
import { contentHeaders } from '../../../src/server/cdn/content-headers.js';

test.each(['image/x-icon', 'image/vnd.microsoft.icon', 'image/bmp', 'image/png'])(
  'an image a browser only displays (%s) is served inline, without the sandbox',
  (type) => {
    const h = contentHeaders(type, 'favicon.ico');
    expect(h['Content-Disposition']).toMatch(/^inline;/);
    expect(h['Content-Security-Policy']).toBeUndefined();
    expect(h['X-Content-Type-Options']).toBe('nosniff');
  },
);

test('HTML stays a sandboxed attachment', () => {
  const h = contentHeaders('text/html', 'page.html');
  expect(h['Content-Disposition']).toMatch(/^attachment;/);
  expect(h['Content-Security-Policy']).toContain('sandbox');
});
