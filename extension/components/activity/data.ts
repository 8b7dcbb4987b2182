import type { PanelClient } from '../../lib/panel-client.js';
import type { StepLike } from './live-view-model.js';
import type { Operation } from './operations.js';

/**
 * Images and run steps the activity tab reads from the daemon, cached so scrolling a long log or
 * following a long run does not ask for the same thing twice.
 */

const MAX_IMAGES = 40;
const images = new Map<string, Promise<string>>();

/** An object URL for a `blob:` reference (read in slices through `blobs.read`). */
export function imageUrl(client: PanelClient, reference: string): Promise<string> {
  const cached = images.get(reference);
  if (cached) {
    // Most recently used last.
    images.delete(reference);
    images.set(reference, cached);
    return cached;
  }
  const loading = readImage(client, reference);
  images.set(reference, loading);
  loading.catch(() => images.delete(reference));
  while (images.size > MAX_IMAGES) {
    const [oldest, url] = images.entries().next().value as [string, Promise<string>];
    images.delete(oldest);
    void url.then((value) => URL.revokeObjectURL(value)).catch(() => undefined);
  }
  return loading;
}

async function readImage(client: PanelClient, reference: string): Promise<string> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let offset: number | null = 0;
  let mimeType = 'image/jpeg';
  while (offset !== null) {
    const slice: { data: string; mime_type: string; next_offset: number | null } = await client.call('blobs.read', {
      reference,
      offset,
      length: 512 * 1024,
    });
    mimeType = slice.mime_type;
    const binary = atob(slice.data);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    parts.push(bytes);
    offset = slice.next_offset;
  }
  return URL.createObjectURL(new Blob(parts, { type: mimeType }));
}

const steps = new Map<string, Promise<StepLike[]>>();

/** A run's steps; `fresh` drops what was cached (the run moved on). */
export function runSteps(client: PanelClient, runId: string, fresh = false): Promise<StepLike[]> {
  const cached = steps.get(runId);
  if (cached && !fresh) return cached;
  const loading = client
    .call('runs.get', { id: runId, steps: true })
    .then((answer) => (answer.steps ?? []) as StepLike[]);
  steps.set(runId, loading);
  loading.catch(() => steps.delete(runId));
  return loading;
}

/** Forgets a run's cached steps (a `run.step` event arrived for it). */
export function forgetRunSteps(runId: string): void {
  steps.delete(runId);
}

/**
 * The image a logged screenshot call produced, found in its run's steps: by call id for the
 * model's own `screenshot` calls, by time for the loop's observations (they have no call id).
 */
export function screenshotReference(operation: Operation, runStepsList: readonly StepLike[]): string | undefined {
  const byCall = runStepsList.find((step) => step.intent.call_id === operation.id);
  const candidates = byCall
    ? [byCall]
    : runStepsList
        .filter((step) => step.kind === 'observe')
        .map((step) => ({ step, distance: Math.abs(Date.parse(step.intent_at) - Date.parse(operation.time)) }))
        .filter((entry) => entry.distance < 3000)
        .sort((a, b) => a.distance - b.distance)
        .map((entry) => entry.step);
  const result = candidates[0]?.result as { ok?: boolean; output?: { image?: unknown } } | undefined;
  const image = result?.ok ? result.output?.image : undefined;
  return typeof image === 'string' && image.startsWith('blob:') ? image : undefined;
}
