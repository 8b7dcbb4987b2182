import { randomUUID } from 'node:crypto';
import os from 'node:os';

import { AppError, getTool, securityConfigSchema, type HostToolName, type Platform } from '@nextai/shared';

import { createLogger } from '../core/logger.js';
import { dataPaths } from '../core/paths.js';
import type { Desktop } from '../platform/desktop.js';
import { LaunchedApps } from '../platform/launched-apps.js';
import { resolvePath } from '../policy/guards/resolve.js';
import type { BlobStore } from './blob-store.js';
import { OwnSurfaces } from './input/own-surfaces.js';
import { ScreenSpace } from './screen-space.js';
import type { FileGuardService, HostServices, ToolContext } from './types.js';

/** Test helpers for the app/window and system tools: services around a desktop, and checked calls. */

export class MemoryBlobStore implements BlobStore {
  readonly blobs = new Map<string, { data: Buffer; mimeType: string }>();

  constructor(readonly inlineLimit = 1024) {}

  inlineOrReference(data: Buffer, mimeType: string): string {
    const base64 = data.toString('base64');
    return base64.length <= this.inlineLimit ? base64 : this.put(data, mimeType);
  }

  put(data: Buffer, mimeType: string): string {
    const id = randomUUID();
    this.blobs.set(id, { data, mimeType });
    return `blob:${id}`;
  }

  get(reference: string): { data: Buffer; mimeType: string } {
    const blob = this.blobs.get(reference.replace(/^blob:/u, ''));
    if (!blob) throw new AppError('NOT_FOUND', `No stored payload ${reference}.`);
    return blob;
  }
}

/**
 * A file guard for tests of the tools' own mechanics: it resolves paths as the real guard does
 * (from `homeDir`) and allows every one. Tests of what the guard refuses use the real FileGuard.
 */
export function unguardedFiles(homeDir: string, platform: Platform): FileGuardService {
  return {
    check: (file, _access, options) => ({
      allowed: true,
      real: resolvePath(file, homeDir, homeDir, platform, options).real,
    }),
  };
}

export function testServices(desktop: Desktop, blobs: BlobStore = new MemoryBlobStore()): HostServices {
  const dataDir = os.tmpdir();
  return {
    platform: desktop.platform,
    paths: dataPaths(dataDir),
    log: createLogger({ component: 'test', level: 'error' }),
    desktop,
    screenSpace: new ScreenSpace(() => desktop.screen.screenSize()),
    blobs,
    security: () => securityConfigSchema.parse({}),
    homeDir: os.homedir(),
    fileGuard: unguardedFiles(os.homedir(), desktop.platform),
    launchedApps: new LaunchedApps({ platform: desktop.platform }),
    // No browser reports a page of NextAI's here; no earlier input to wait for.
    ownSurfaces: new OwnSurfaces({ sinceLastInput: () => Number.POSITIVE_INFINITY }),
    emit: () => undefined,
  };
}

export function testContext(): ToolContext {
  return {
    signal: new AbortController().signal,
    paths: dataPaths(os.tmpdir()),
    log: createLogger({ component: 'test', level: 'error' }),
  };
}

/**
 * Calls a handler the way the gateway does: the input through the catalog schema (defaults
 * applied), the output checked against the catalog's output schema.
 */
export async function callTool(
  name: HostToolName,
  handler: unknown,
  input: unknown,
  context = testContext(),
): Promise<unknown> {
  const tool = getTool(name);
  const parsed = tool.input.parse(input);
  const output = await (handler as (input: unknown, context: ToolContext) => Promise<unknown>)(parsed, context);
  return tool.output.parse(output);
}

/** The AppError a call rejected with; throws (failing the test) when it resolved or threw something else. */
export async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AppError)) {
    throw new Error(`Expected an AppError, got ${error === undefined ? 'a result' : String(error)}.`);
  }
  return error;
}
