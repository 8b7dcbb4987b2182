import { useEffect, useRef, useState } from 'react';

import type { Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';

/** Object URLs of blobs already read, by reference: a screenshot is fetched once per panel. */
const cache = new Map<string, Promise<string>>();
const MAX_CACHED = 200;

/** Reads a `blob:` reference from the daemon in slices (`blobs.read`) into an object URL. */
export function blobUrl(client: PanelClient, reference: string): Promise<string> {
  let url = cache.get(reference);
  if (!url) {
    url = readBlob(client, reference);
    url.catch(() => cache.delete(reference));
    cache.set(reference, url);
    if (cache.size > MAX_CACHED) {
      const [oldest] = cache.keys();
      if (oldest !== undefined) {
        void cache.get(oldest)?.then(
          (old) => URL.revokeObjectURL(old),
          () => undefined,
        );
        cache.delete(oldest);
      }
    }
  }
  return url;
}

async function readBlob(client: PanelClient, reference: string): Promise<string> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let offset: number | null = 0;
  let mime = 'image/png';
  while (offset !== null) {
    const slice: { data: string; mime_type: string; next_offset: number | null } = await client.call('blobs.read', {
      reference,
      offset,
      length: 512 * 1024,
    });
    mime = slice.mime_type;
    const binary = atob(slice.data);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    parts.push(bytes);
    offset = slice.next_offset;
  }
  return URL.createObjectURL(new Blob(parts, { type: mime }));
}

/**
 * A screenshot thumbnail that opens full size in a dialog. It is read when it scrolls into view,
 * so a long run does not fetch every screenshot at once.
 */
export function BlobThumbnail({
  client,
  reference,
  label,
  t,
}: {
  client: PanelClient;
  reference: string;
  label: string;
  t: Translate;
}) {
  const [url, setUrl] = useState<string>();
  const [failed, setFailed] = useState(false);
  const holder = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    let cancelled = false;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((entry) => entry.isIntersecting)) return;
      observer.disconnect();
      blobUrl(client, reference).then(
        (value) => !cancelled && setUrl(value),
        () => !cancelled && setFailed(true),
      );
    });
    observer.observe(element);
    return () => {
      cancelled = true;
      observer.disconnect();
    };
  }, [client, reference]);

  return (
    <>
      <button
        ref={holder}
        type="button"
        className="thumb"
        data-testid="step-thumbnail"
        aria-label={t('chatOpenScreenshot', { label })}
        disabled={failed}
        onClick={() => dialog.current?.showModal()}
      >
        {url ? (
          <img src={url} alt="" />
        ) : (
          <span className="thumb-placeholder">{failed ? t('chatScreenshotGone') : t('loading')}</span>
        )}
      </button>
      <dialog
        ref={dialog}
        className="screenshot-dialog"
        aria-label={label}
        onClick={(event) => {
          if (event.target === dialog.current) dialog.current.close();
        }}
      >
        <div className="screenshot-dialog-bar">
          <span>{label}</span>
          <button type="button" className="button-small" autoFocus onClick={() => dialog.current?.close()}>
            {t('chatClose')}
          </button>
        </div>
        {url && <img src={url} alt={label} />}
      </dialog>
    </>
  );
}
