import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { AppError } from '@nextai/shared';

import type { Worker as TesseractWorker } from 'tesseract.js';

import type { Logger } from '../../core/logger.js';
import type { Rect, Size } from '../../platform/desktop.js';
import { scaledSize } from '../screen-space.js';
import { toGray, type GrayImage } from './encode.js';
import type { RgbPixels } from './pixels.js';

/** Language sets a worker is made for. */
export type OcrLanguages = 'eng' | 'chi_sim' | 'eng+chi_sim';
export type OcrLanguageRequest = OcrLanguages | 'auto';

export interface OcrWord {
  text: string;
  /** In pixels of the recognised image. */
  bounds: Rect;
  /** 0..1 */
  confidence: number;
}

export interface OcrLine {
  text: string;
  bounds: Rect;
  /** Mean of the words' confidences, 0..1. */
  confidence: number;
  words: OcrWord[];
}

export interface OcrPage {
  lines: OcrLine[];
  /** The language set(s) actually used, e.g. "eng" or "eng, eng+chi_sim for 2 lines". */
  languages: string;
}

const LANGUAGE_PACKAGES: Record<'eng' | 'chi_sim', string> = {
  eng: '@tesseract.js-data/eng',
  chi_sim: '@tesseract.js-data/chi_sim',
};

/** In `auto`, a line of the English pass below this confidence is read again with Chinese too. */
const AUTO_RETRY_BELOW = 0.5;
/** …unless more lines than this are unsure: then the whole image is read again with both. */
const AUTO_MAX_LINE_RETRIES = 12;
/** An OCR worker unused this long is ended (see OcrEngine). */
const DEFAULT_IDLE_MS = 120_000;
/** Margin around a line cut out for the second reading, in pixels. */
const LINE_MARGIN = 4;

/** "auto", "eng", "chi_sim", "eng+chi_sim" (either order) and a few obvious aliases. */
export function parseLanguage(value: string): OcrLanguageRequest {
  const parts = value
    .toLowerCase()
    .split(/[+,\s]+/u)
    .filter(Boolean)
    .map((part) => ALIASES[part] ?? part);
  const set = new Set(parts);
  if (set.size === 1 && set.has('auto')) return 'auto';
  if (set.size === 1 && set.has('eng')) return 'eng';
  if (set.size === 1 && set.has('chi_sim')) return 'chi_sim';
  if (set.size === 2 && set.has('eng') && set.has('chi_sim')) return 'eng+chi_sim';
  throw new AppError(
    'INVALID_INPUT',
    `OCR language "${value}" is not available. Use "auto", "eng" (English), "chi_sim" (Simplified Chinese) or "eng+chi_sim".`,
  );
}

const ALIASES: Record<string, string> = {
  en: 'eng',
  english: 'eng',
  zh: 'chi_sim',
  'zh-cn': 'chi_sim',
  chinese: 'chi_sim',
  chi: 'chi_sim',
};

/**
 * Offline OCR with tesseract.js (Tesseract compiled to WebAssembly, run in worker threads). The
 * language data comes from the npm packages @tesseract.js-data/eng and …/chi_sim (their
 * LSTM-only "best_int" models): nothing is downloaded. tesseract.js wants all languages of a
 * worker in one directory, so `<data dir>/ocr/tessdata` holds links to the packages' files; its
 * own cache is off (`cacheMethod: 'none'`), so nothing else is written.
 *
 * One worker per language set, made on first use (about a second, more for Chinese) and kept
 * for the next calls until it has been idle for two minutes; calls to one worker run one after
 * another. Page segmentation is "sparse
 * text" (PSM 11): screens are scattered labels, not pages of prose; binarisation is adaptive.
 *
 * `auto` reads the image in English (the fast model), then reads again, with English and
 * Chinese together, each line the English model was unsure of (Chinese text read by the
 * English model comes out as low-confidence garbage); if many lines are unsure, it reads the
 * whole image again with both. A line keeps the more confident reading. Asking for
 * "eng+chi_sim" directly reads everything once with both (slower; Latin text reads slightly
 * worse than with "eng").
 */
export class OcrEngine {
  private readonly workers = new Map<OcrLanguages, Promise<TesseractWorker>>();
  private readonly queues = new Map<OcrLanguages, Promise<unknown>>();
  private readonly idleTimers = new Map<OcrLanguages, NodeJS.Timeout>();
  private disposed = false;

  /**
   * `idleMs`: a worker unused this long is ended. A worker holds 100–200 MB (its WebAssembly
   * memory grows to the largest image read and never shrinks), which an idle daemon should not
   * keep; starting one again costs about a second.
   */
  constructor(private readonly options: { languageDir: string; log: Logger; idleMs?: number }) {}

  async recognize(image: GrayImage, request: OcrLanguageRequest, signal?: AbortSignal): Promise<OcrPage> {
    if (request !== 'auto') {
      return { lines: await this.read(image, request, signal), languages: request };
    }
    const english = await this.read(image, 'eng', signal);
    const unsure = english.filter((line) => line.confidence < AUTO_RETRY_BELOW);
    if (unsure.length === 0) return { lines: english, languages: 'eng' };
    if (unsure.length > AUTO_MAX_LINE_RETRIES) {
      const both = await this.read(image, 'eng+chi_sim', signal);
      return meanConfidence(both) > meanConfidence(english)
        ? { lines: both, languages: 'eng+chi_sim' }
        : { lines: english, languages: 'eng' };
    }
    const lines = [...english];
    let replaced = 0;
    for (const line of unsure) {
      const box = padRect(line.bounds, LINE_MARGIN, image);
      const again = await this.read(crop(image, box), 'eng+chi_sim', signal);
      if (again.length === 0) continue;
      const merged = mergeLines(again.map((candidate) => offsetLine(candidate, box.x, box.y)));
      if (merged.confidence > line.confidence) {
        lines[lines.indexOf(line)] = merged;
        replaced++;
      }
    }
    return {
      lines,
      languages: replaced > 0 ? `eng, eng+chi_sim for ${replaced} line${replaced === 1 ? '' : 's'}` : 'eng',
    };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    const workers = [...this.workers.values()];
    this.workers.clear();
    await Promise.allSettled(workers.map(async (worker) => (await worker).terminate()));
  }

  /** Reads `image` with the worker for `languages`, after the calls queued before it. */
  private read(image: GrayImage, languages: OcrLanguages, signal?: AbortSignal): Promise<OcrLine[]> {
    const previous = this.queues.get(languages) ?? Promise.resolve();
    clearTimeout(this.idleTimers.get(languages));
    const job = previous.catch(() => undefined).then(() => this.readNow(image, languages, signal));
    this.queues.set(languages, job);
    const settled = () => {
      if (this.queues.get(languages) !== job) return;
      const timer = setTimeout(() => {
        this.log.debug('OCR worker idle; ending it', { languages });
        void this.drop(languages);
      }, this.options.idleMs ?? DEFAULT_IDLE_MS);
      timer.unref();
      this.idleTimers.set(languages, timer);
    };
    job.then(settled, settled);
    return job;
  }

  private async readNow(image: GrayImage, languages: OcrLanguages, signal?: AbortSignal): Promise<OcrLine[]> {
    throwIfCancelled(signal);
    const worker = await this.worker(languages);
    throwIfCancelled(signal);
    // A recognition cannot be interrupted inside the worker: on cancel the worker is ended (and
    // made again on the next call), so the call returns at once and the CPU is freed.
    let onAbort = () => undefined as void;
    const cancelled = new Promise<never>((_resolve, reject) => {
      onAbort = () => {
        this.log.debug('OCR cancelled; ending its worker', { languages });
        void this.drop(languages);
        reject(new AppError('TIMEOUT', 'Reading text was cancelled.'));
      };
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await Promise.race([worker.recognize(toPgm(image), {}, { text: false, tsv: true }), cancelled]);
      return parseTsv(result.data.tsv ?? '');
    } catch (error) {
      if (error instanceof AppError) throw error;
      throwIfCancelled(signal);
      throw new AppError('TOOL_FAILED', `Reading text failed: ${describe(error)}.`, { cause: error });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private get log(): Logger {
    return this.options.log;
  }

  private worker(languages: OcrLanguages): Promise<TesseractWorker> {
    if (this.disposed) {
      return Promise.reject(new AppError('UNAVAILABLE', 'OCR has been shut down (the daemon is stopping).'));
    }
    let worker = this.workers.get(languages);
    if (!worker) {
      worker = this.start(languages);
      this.workers.set(languages, worker);
      // A failed start is not kept: the next call tries again.
      worker.catch(() => {
        if (this.workers.get(languages) === worker) this.workers.delete(languages);
      });
    }
    return worker;
  }

  private async start(languages: OcrLanguages): Promise<TesseractWorker> {
    const started = performance.now();
    const codes = languages.split('+') as Array<'eng' | 'chi_sim'>;
    const languageDir = linkLanguageData(this.options.languageDir, codes);
    let tesseract: Awaited<ReturnType<typeof loadTesseract>>;
    try {
      tesseract = await loadTesseract();
    } catch (error) {
      throw new AppError(
        'UNAVAILABLE',
        `OCR needs tesseract.js, which could not be loaded: ${describe(error)}. Reinstall NextAI (npm ci), or run \`nextai doctor\`.`,
        { cause: error },
      );
    }
    try {
      const worker = await tesseract.createWorker(codes, tesseract.OEM.LSTM_ONLY, {
        langPath: languageDir,
        gzip: true,
        cacheMethod: 'none',
        errorHandler: (error: unknown) => this.log.warn('OCR worker error', { error: describe(error) }),
      });
      await worker.setParameters({
        tessedit_pageseg_mode: tesseract.PSM.SPARSE_TEXT,
        // Screens are ~96 dpi; saying so stops Tesseract guessing (and printing its guess).
        user_defined_dpi: '96',
        // Adaptive (local Otsu) binarisation: a screen mixes dark and light areas, and one global
        // threshold loses text in some of them (a label in a grey button next to a black desktop).
        thresholding_method: '1',
      });
      this.log.info('OCR worker ready', { languages, ms: Math.round(performance.now() - started) });
      return worker;
    } catch (error) {
      throw new AppError(
        'UNAVAILABLE',
        `The OCR engine could not start for ${languages}: ${describe(error)}. Run \`nextai doctor\` to check the OCR data.`,
        { cause: error },
      );
    }
  }

  private async drop(languages: OcrLanguages): Promise<void> {
    const worker = this.workers.get(languages);
    this.workers.delete(languages);
    if (!worker) return;
    try {
      await (await worker).terminate();
    } catch (error) {
      // A worker that failed to start, or is gone already: nothing is left to end.
      this.log.debug('OCR worker ended with an error', { languages, error: describe(error) });
    }
  }
}

/** OCR reads at most this many pixels; larger pictures are scaled down first (a 4K screen, say). */
const MAX_OCR_PIXELS = 4_000_000;
/** Lines Tesseract is less sure of than this are left out: they are mostly icons read as letters. */
const MIN_LINE_CONFIDENCE = 0.25;

/**
 * The text lines in `pixels`, top to bottom, with bounds in the pixels' own coordinates. Read in
 * grey, at full resolution up to MAX_OCR_PIXELS.
 */
export async function readText(
  ocr: OcrEngine,
  pixels: RgbPixels,
  request: OcrLanguageRequest,
  signal?: AbortSignal,
): Promise<OcrLine[]> {
  const gray = await toGray(pixels, ocrSize(pixels));
  const page = await ocr.recognize(gray, request, signal);
  const sx = pixels.width / gray.width;
  const sy = pixels.height / gray.height;
  const back = (rect: Rect): Rect => scaleRect(rect, sx, sy);
  return page.lines
    .filter((line) => line.confidence >= MIN_LINE_CONFIDENCE)
    .map((line) => ({
      ...line,
      bounds: back(line.bounds),
      words: line.words.map((word) => ({ ...word, bounds: back(word.bounds) })),
    }))
    .sort((a, b) => a.bounds.y - b.bounds.y || a.bounds.x - b.bounds.x);
}

function ocrSize(pixels: Size): Size {
  return scaledSize(pixels, Math.min(1, Math.sqrt(MAX_OCR_PIXELS / (pixels.width * pixels.height))));
}

function scaleRect(rect: Rect, sx: number, sy: number): Rect {
  if (sx === 1 && sy === 1) return rect;
  const x = Math.floor(rect.x * sx);
  const y = Math.floor(rect.y * sy);
  return {
    x,
    y,
    width: Math.max(1, Math.ceil((rect.x + rect.width) * sx) - x),
    height: Math.max(1, Math.ceil((rect.y + rect.height) * sy) - y),
  };
}

const require = createRequire(import.meta.url);

/** tesseract.js is CommonJS: its API is the default export. Loaded on first OCR only. */
async function loadTesseract() {
  return (await import('tesseract.js')).default;
}

/**
 * Makes `directory` hold `<code>.traineddata.gz` for each language, linked (or, where links are
 * not allowed, copied) from the npm data packages; returns the directory.
 */
export function linkLanguageData(directory: string, codes: Array<'eng' | 'chi_sim'>): string {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  for (const code of codes) {
    const source = languageFile(code);
    const target = path.join(directory, `${code}.traineddata.gz`);
    if (sameFile(source, target)) continue;
    fs.rmSync(target, { force: true });
    try {
      fs.symlinkSync(source, target);
    } catch {
      fs.copyFileSync(source, target);
    }
  }
  return directory;
}

/** The gzipped LSTM model of the npm package for `code`. */
export function languageFile(code: 'eng' | 'chi_sim'): string {
  const name = LANGUAGE_PACKAGES[code];
  let packageDir: string;
  try {
    packageDir = path.dirname(require.resolve(`${name}/package.json`));
  } catch (error) {
    throw new AppError(
      'UNAVAILABLE',
      `The OCR language data for ${code} (${name}) is not installed. Reinstall NextAI (npm ci), or run \`nextai doctor\`.`,
      { cause: error },
    );
  }
  const file = path.join(packageDir, '4.0.0_best_int', `${code}.traineddata.gz`);
  if (!fs.existsSync(file)) {
    throw new AppError(
      'UNAVAILABLE',
      `The OCR language data for ${code} is incomplete (${file} is missing). Reinstall NextAI (npm ci).`,
    );
  }
  return file;
}

function sameFile(source: string, target: string): boolean {
  try {
    return fs.realpathSync(target) === fs.realpathSync(source);
  } catch {
    return false;
  }
}

/** Binary PGM: Leptonica reads it without decompressing anything (PNG would cost ~10 ms more). */
export function toPgm(image: GrayImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'ascii'), image.data]);
}

/**
 * Lines from Tesseract's TSV output (level 5 rows are words, keyed by block, paragraph and line).
 * Columns: level page block paragraph line word left top width height confidence text.
 */
export function parseTsv(tsv: string): OcrLine[] {
  const lines = new Map<string, OcrWord[]>();
  for (const row of tsv.split('\n')) {
    const columns = row.split('\t');
    if (columns[0] !== '5' || columns.length < 12) continue;
    const text = columns.slice(11).join('\t').trim();
    if (!text) continue;
    const [left, top, width, height, confidence] = columns.slice(6, 11).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const key = columns.slice(2, 5).join('.');
    const words = lines.get(key) ?? [];
    words.push({
      text,
      bounds: { x: left, y: top, width, height },
      confidence: Math.min(1, Math.max(0, confidence / 100)),
    });
    lines.set(key, words);
  }
  return [...lines.values()].map(lineOf);
}

function lineOf(words: OcrWord[]): OcrLine {
  return {
    text: joinWords(words.map((word) => word.text)),
    bounds: unionRect(words.map((word) => word.bounds)),
    confidence: words.reduce((sum, word) => sum + word.confidence, 0) / words.length,
    words,
  };
}

const CJK = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]/u;

/** Words joined by spaces, except between two CJK characters (Tesseract splits Chinese per character). */
export function joinWords(words: string[]): string {
  let text = '';
  for (const word of words) {
    if (text && !(CJK.test(text.at(-1) ?? '') && CJK.test(word[0] ?? ''))) text += ' ';
    text += word;
  }
  return text;
}

export function unionRect(rects: Rect[]): Rect {
  const left = Math.min(...rects.map((rect) => rect.x));
  const top = Math.min(...rects.map((rect) => rect.y));
  const right = Math.max(...rects.map((rect) => rect.x + rect.width));
  const bottom = Math.max(...rects.map((rect) => rect.y + rect.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

function meanConfidence(lines: OcrLine[]): number {
  const words = lines.flatMap((line) => line.words);
  if (words.length === 0) return 0;
  return (
    words.reduce((sum, word) => sum + word.confidence * word.text.length, 0) /
    words.reduce((sum, word) => sum + word.text.length, 0)
  );
}

function mergeLines(lines: OcrLine[]): OcrLine {
  return lineOf(lines.flatMap((line) => line.words));
}

function offsetLine(line: OcrLine, dx: number, dy: number): OcrLine {
  const move = (rect: Rect): Rect => ({ ...rect, x: rect.x + dx, y: rect.y + dy });
  return {
    ...line,
    bounds: move(line.bounds),
    words: line.words.map((word) => ({ ...word, bounds: move(word.bounds) })),
  };
}

function padRect(rect: Rect, margin: number, image: GrayImage): Rect {
  const x = Math.max(0, rect.x - margin);
  const y = Math.max(0, rect.y - margin);
  return {
    x,
    y,
    width: Math.min(image.width, rect.x + rect.width + margin) - x,
    height: Math.min(image.height, rect.y + rect.height + margin) - y,
  };
}

/** The grey pixels of `rect` (within the image) as an image of their own. */
export function crop(image: GrayImage, rect: Rect): GrayImage {
  const data = Buffer.allocUnsafe(rect.width * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * image.width + rect.x;
    image.data.copy(data, row * rect.width, start, start + rect.width);
  }
  return { width: rect.width, height: rect.height, data };
}

function throwIfCancelled(signal?: AbortSignal): void {
  if (signal?.aborted) throw new AppError('TIMEOUT', 'Reading text was cancelled.');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
