/**
 * What makes a stored file safe to serve from our own origin: nosniff always; types a browser
 * only displays go inline; SVG goes inline but under a sandboxing CSP (it still works in
 * `<img>`, and opened directly its scripts never run); anything else — HTML, XML, unknown bytes —
 * is an attachment under the same CSP, so it is downloaded, never rendered as a page.
 */

const SANDBOX_CSP = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'";

const DISPLAY_ONLY =
  /^(image\/(png|jpeg|gif|webp|avif|bmp|tiff|heic|heif|x-icon|vnd\.microsoft\.icon)|video\/.+|audio\/.+|application\/pdf|text\/plain)$/;

/** RFC 6266 / 8187: an ASCII fallback and the exact UTF-8 name. */
function disposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

export function contentHeaders(mimeType: string, fileName: string): Record<string, string> {
  const type = mimeType.toLowerCase();
  const headers: Record<string, string> = {
    'Content-Type': type === 'text/plain' ? 'text/plain; charset=utf-8' : type,
    'X-Content-Type-Options': 'nosniff',
  };
  if (DISPLAY_ONLY.test(type)) {
    headers['Content-Disposition'] = disposition('inline', fileName);
  } else if (type === 'image/svg+xml') {
    headers['Content-Disposition'] = disposition('inline', fileName);
    headers['Content-Security-Policy'] = SANDBOX_CSP;
  } else {
    headers['Content-Disposition'] = disposition('attachment', fileName);
    headers['Content-Security-Policy'] = SANDBOX_CSP;
  }
  return headers;
}
