import { useEffect, useRef } from 'react';

import type { Translate } from '../../lib/i18n.js';

/** A screenshot at full size, over the panel; Escape or the close button ends it. */
export function ImageDialog({
  url,
  title,
  onClose,
  t,
}: {
  url: string;
  title: string;
  onClose: () => void;
  t: Translate;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="image-dialog" aria-label={title} onClose={onClose} data-testid="image-dialog">
      <div className="image-dialog-bar">
        <span>{title}</span>
        <button type="button" className="button-small" onClick={() => dialog.current?.close()} autoFocus>
          {t('activityClose')}
        </button>
      </div>
      <img src={url} alt={title} />
    </dialog>
  );
}
