/**
 * PDFs with pdfjs-dist + @napi-rs/canvas, in a worker thread: pdfjs renders synchronously, so in
 * the main thread a heavy page would stall every request, and a timeout could not stop it. The
 * worker reads only the byte ranges it needs (file URL, streaming off), has a capped heap, and
 * is terminated at the deadline. Width and height are the first page's size in points.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Described, MAX_INPUT_PIXELS, PREVIEW_MAX, previewFile } from './preview-file.js';

const require = createRequire(import.meta.url);
const pdfjsRoot = dirname(require.resolve('pdfjs-dist/package.json'));

/**
 * Plain JavaScript, so it runs as is from the TypeScript sources and from the build; only
 * dynamic imports, so it runs whether Node evaluates it as CommonJS or as a module.
 */
const WORKER = `
(async () => {
  const { parentPort, workerData: w } = await import('node:worker_threads');
  const { writeFileSync } = await import('node:fs');
  const { getDocument } = await import(w.pdfjs);
  const doc = await getDocument({
    url: w.url, disableStream: true, disableAutoFetch: true, isEvalSupported: false,
    enableXfa: false, standardFontDataUrl: w.fonts, cMapUrl: w.cmaps, cMapPacked: true,
    wasmUrl: w.wasm, maxImageSize: w.maxImagePixels, verbosity: 0,
  }).promise;
  const page = await doc.getPage(1);
  const size = page.getViewport({ scale: 1 });
  const answer = { width: Math.round(size.width), height: Math.round(size.height) };
  try {
    const scale = Math.min(w.max / size.width, w.max / size.height, 4);
    const viewport = page.getViewport({ scale });
    const { canvas, context } = doc.canvasFactory.create(
      Math.max(1, Math.round(viewport.width)), Math.max(1, Math.round(viewport.height)));
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvasContext: context, canvas, viewport }).promise;
    const jpeg = await canvas.encode('jpeg', 80);
    writeFileSync(w.out, jpeg);
    Object.assign(answer, { previewWidth: canvas.width, previewHeight: canvas.height, bytes: jpeg.length });
  } catch {
    // The page could not be drawn: its size is still worth reporting.
  }
  parentPort.postMessage(answer);
})().catch(async (err) => {
  const { parentPort } = await import('node:worker_threads');
  parentPort.postMessage({ error: String((err && err.message) || err) });
});
`;

interface WorkerAnswer {
  error?: string;
  width: number;
  height: number;
  previewWidth?: number;
  previewHeight?: number;
  bytes?: number;
}

export function describePdf(
  path: string,
  previewPath: string,
  timeoutMs: number,
): Promise<Described> {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      pdfjs: pathToFileURL(join(pdfjsRoot, 'legacy/build/pdf.mjs')).href,
      url: pathToFileURL(path).href,
      fonts: `${join(pdfjsRoot, 'standard_fonts')}/`,
      cmaps: `${join(pdfjsRoot, 'cmaps')}/`,
      // JPEG 2000 and JBIG2 (scanned pages) and ICC colours decode in WebAssembly: without
      // these files such pages render blank.
      wasm: `${join(pdfjsRoot, 'wasm')}/`,
      maxImagePixels: MAX_INPUT_PIXELS,
      max: PREVIEW_MAX,
      out: previewPath,
    },
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
    stdout: true,
    stderr: true,
  });
  // pdfjs may print warnings; nobody reads them, and they must not pile up.
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<Described>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`PDF preview took longer than ${timeoutMs} ms`));
      void worker.terminate();
    }, timeoutMs);
    const settle = (fn: () => void) => {
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    worker.once('message', (m: WorkerAnswer) =>
      settle(() => {
        if (m.error) return reject(new Error(m.error));
        const described: Described = { width: m.width, height: m.height };
        if (m.bytes !== undefined) {
          described.preview = previewFile(m.previewWidth!, m.previewHeight!, m.bytes);
        }
        resolve(described);
      }),
    );
    worker.once('error', (err) => settle(() => reject(err)));
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the PDF worker exited (${code})`))),
    );
  });
}
