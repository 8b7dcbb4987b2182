import { spawn } from 'node:child_process';

import { AppError } from '@nextai/shared';

import { inheritedEnvironment } from '../../core/subprocess.js';
import type { ClipboardAdapter, ClipboardContent } from '../desktop.js';
import { requireDisplay } from './display.js';
import { findExecutable, xEnvironment } from './windows.js';

/**
 * The CLIPBOARD selection on X11 through `xclip` (text and images), or `xsel` (text only) when
 * xclip is missing.
 *
 * X has no clipboard store: the program that copied keeps serving the data until another takes
 * the selection. `xclip -i` and `xsel -i` therefore fork a child that stays behind and serves it;
 * that child inherits our stdout/stderr, so waiting for those pipes to close ('close') would hang
 * until someone copies something else. The writer waits for 'exit' of the program it started and
 * drops its end of the pipes. (This is why these calls do not go through runCommand, which waits
 * for 'close' and returns text rather than bytes.)
 */

const INSTALL_HINT = 'On Debian/Ubuntu: sudo apt install xclip';
const TIMEOUT_MS = 5000;

/** Selection targets that describe the selection rather than hold data. */
const META_TARGETS = new Set([
  'TARGETS',
  'TIMESTAMP',
  'MULTIPLE',
  'SAVE_TARGETS',
  'DELETE',
  'INCR',
  'INSERT_SELECTION',
]);
/** Text targets in order of preference. */
const TEXT_TARGETS = ['UTF8_STRING', 'text/plain;charset=utf-8', 'text/plain', 'STRING', 'TEXT', 'COMPOUND_TEXT'];

/** Image targets read as they are (PNG) or converted by sharp, in order of preference. */
const IMAGE_TARGETS = ['image/png', 'image/webp', 'image/jpeg', 'image/gif', 'image/tiff', 'image/svg+xml'];

type Tool = { kind: 'xclip' | 'xsel'; path: string };

/**
 * `xclip -t TARGETS -o` (one target a line) → the formats to report (meta targets dropped) and
 * the targets to read the text and the image from. An image offered only in formats sharp cannot
 * decode (image/bmp, image/x-ico…) is still reported in `formats` but not read.
 */
export function chooseTargets(targetsText: string): {
  formats: string[];
  textTarget: string | undefined;
  imageTarget: string | undefined;
} {
  const targets = targetsText
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const formats = [...new Set(targets.filter((target) => !META_TARGETS.has(target)))];
  return {
    formats,
    textTarget: TEXT_TARGETS.find((target) => formats.includes(target)),
    imageTarget: IMAGE_TARGETS.find((target) => formats.includes(target)),
  };
}

export function createLinuxClipboard(env: NodeJS.ProcessEnv = process.env): ClipboardAdapter {
  const childEnv = () => inheritedEnvironment(xEnvironment(env));

  async function tool(): Promise<Tool> {
    await requireDisplay(env);
    const xclip = await findExecutable('xclip', env.PATH);
    if (xclip) return { kind: 'xclip', path: xclip };
    const xsel = await findExecutable('xsel', env.PATH);
    if (xsel) return { kind: 'xsel', path: xsel };
    throw new AppError(
      'UNAVAILABLE',
      `The clipboard needs the \`xclip\` program (or \`xsel\` for text only), and neither is installed. ${INSTALL_HINT}`,
    );
  }

  async function read(): Promise<ClipboardContent> {
    const found = await tool();
    if (found.kind === 'xsel') {
      const text = await capture(found.path, ['--clipboard', '--output'], childEnv());
      return text === null || text.length === 0
        ? { formats: [] }
        : { formats: ['UTF8_STRING'], text: text.toString('utf8') };
    }
    const targetsOut = await capture(found.path, ['-selection', 'clipboard', '-t', 'TARGETS', '-o'], childEnv());
    // No owner (nothing copied yet, or the app that copied has quit): an empty clipboard.
    if (targetsOut === null) return { formats: [] };
    const { formats, textTarget, imageTarget } = chooseTargets(targetsOut.toString('utf8'));
    const content: ClipboardContent = { formats };
    if (textTarget) {
      const bytes = await capture(found.path, ['-selection', 'clipboard', '-t', textTarget, '-o'], childEnv());
      if (bytes !== null) content.text = bytes.toString(textTarget === 'STRING' ? 'latin1' : 'utf8');
    }
    if (imageTarget) {
      const bytes = await capture(found.path, ['-selection', 'clipboard', '-t', imageTarget, '-o'], childEnv());
      if (bytes !== null && bytes.length > 0)
        content.png = imageTarget === 'image/png' ? bytes : await toPng(bytes, imageTarget);
    }
    return content;
  }

  async function writeText(text: string): Promise<void> {
    const found = await tool();
    const args = found.kind === 'xclip' ? ['-selection', 'clipboard', '-i'] : ['--clipboard', '--input'];
    const data = Buffer.from(text, 'utf8');
    await serve(found.path, args, data, childEnv());
    const readBack =
      found.kind === 'xclip' ? ['-selection', 'clipboard', '-t', 'UTF8_STRING', '-o'] : ['--clipboard', '--output'];
    await untilServed(found.path, readBack, data, childEnv());
  }

  async function writeImage(png: Buffer): Promise<void> {
    const found = await tool();
    if (found.kind === 'xsel') {
      throw new AppError(
        'UNAVAILABLE',
        `Putting an image on the clipboard needs \`xclip\` (xsel handles text only). ${INSTALL_HINT}`,
      );
    }
    await serve(found.path, ['-selection', 'clipboard', '-t', 'image/png', '-i'], png, childEnv());
    await untilServed(found.path, ['-selection', 'clipboard', '-t', 'image/png', '-o'], png, childEnv());
  }

  return { read, writeText, writeImage };
}

/**
 * Waits until the clipboard serves `data`: the writer exits once it has forked its server, which
 * takes the selection a moment later — until then a read still gets what was there before (and
 * xclip answers any target with its data, so that would be the old content under the new name).
 */
async function untilServed(command: string, readArgs: string[], data: Buffer, env: Record<string, string>) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const served = await capture(command, readArgs, env).catch(() => null);
    if (served === null ? data.length === 0 : served.equals(data)) return;
    if (Date.now() > deadline) {
      throw new AppError('TOOL_FAILED', `The clipboard did not take the new content within ${TIMEOUT_MS} ms.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function toPng(bytes: Buffer, mimeType: string): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  try {
    return await sharp(bytes).png().toBuffer();
  } catch (error) {
    throw new AppError('TOOL_FAILED', `The clipboard holds a ${mimeType} image that could not be converted to PNG.`, {
      cause: error,
    });
  }
}

/**
 * Runs a reader to the end and returns its stdout as bytes; null when it says the selection is
 * empty or lacks the target (xclip exits 1 with "target … not available").
 */
function capture(command: string, args: string[], env: Record<string, string>): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new AppError('TOOL_FAILED', `Couldn't start ${command}: ${error.message}`, { cause: error }));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8').trim();
      if (code === 0) resolve(Buffer.concat(out));
      else if (signal === 'SIGKILL') {
        reject(
          new AppError(
            'TIMEOUT',
            `Reading the clipboard took over ${TIMEOUT_MS} ms: the app that owns it is not answering. Copy again and retry.`,
          ),
        );
      } else if (/not available|no selection|can't find|No such/iu.test(stderr) || stderr === '') resolve(null);
      else reject(new AppError('TOOL_FAILED', `\`${command} ${args.join(' ')}\` exited with code ${code}: ${stderr}`));
    });
  });
}

/**
 * Hands `data` to a writer that forks a selection server. Resolves when the writer itself exits
 * (the server child stays behind, detached from our pipes); rejects with its stderr otherwise.
 */
function serve(command: string, args: string[], data: Buffer, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    // Own process group: the server child keeps serving the clipboard if the daemon's group is signalled.
    const child = spawn(command, args, { env, stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new AppError('TOOL_FAILED', `Couldn't start ${command}: ${error.message}`, { cause: error }));
    });
    // 'exit', not 'close': the forked server child keeps stderr open for as long as it serves.
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) {
        child.stderr.destroy();
        resolve();
        return;
      }
      // A writer that failed forked nothing, so stderr closes at once: wait for all of it.
      const finish = () => {
        const stderr = Buffer.concat(err).toString('utf8').trim();
        reject(
          timedOut
            ? new AppError('TIMEOUT', `\`${command}\` did not take the clipboard within ${TIMEOUT_MS} ms.`)
            : new AppError('TOOL_FAILED', `\`${command} ${args.join(' ')}\` exited with code ${code}: ${stderr}`),
        );
      };
      if (child.stderr.readableEnded || child.stderr.destroyed) {
        finish();
        return;
      }
      const fallback = setTimeout(() => {
        child.stderr.destroy();
        finish();
      }, 500);
      child.stderr.once('close', () => {
        clearTimeout(fallback);
        finish();
      });
    });
    child.stdin.on('error', () => {
      // EPIPE when the writer dies before reading everything; its exit code says why.
    });
    child.stdin.end(data);
  });
}
