import { useId, useState, type FormEvent } from 'react';

import type { Translate } from '../../lib/i18n.js';
import { messageOf } from './use-settings.js';

/**
 * An editable list of strings (folders, domains, apps): each entry with a remove button, and a
 * field to add one. Every change is sent to the daemon at once (`save`), which validates it; a
 * refusal is shown under the list in the daemon's words and the list stays as it was.
 */
export function ListEditor({
  label,
  hint,
  items,
  placeholder,
  save,
  t,
  testId,
  notes,
}: {
  label: string;
  hint?: string;
  items: readonly string[];
  placeholder: string;
  save: (items: string[]) => Promise<unknown>;
  t: Translate;
  testId: string;
  /** A warning shown next to an entry (e.g. a folder that does not exist). */
  notes?: Partial<Record<string, string>>;
}) {
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const inputId = useId();
  const hintId = useId();

  const apply = async (next: string[]) => {
    setBusy(true);
    setError(undefined);
    try {
      await save(next);
      return true;
    } catch (caught) {
      setError(messageOf(caught));
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const value = draft.trim();
    if (!value) return;
    if (items.includes(value)) {
      setDraft('');
      return;
    }
    if (await apply([...items, value])) setDraft('');
  };

  return (
    <fieldset className="list-editor" data-testid={testId} disabled={busy}>
      <legend>{label}</legend>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {items.length === 0 ? (
        <p className="list-empty">{t('settingsListEmpty')}</p>
      ) : (
        <ul className="list-items">
          {items.map((item) => (
            <li key={item} className="list-item">
              <span className="list-value mono">{item}</span>
              {notes?.[item] && <span className="list-note">{notes[item]}</span>}
              <button
                type="button"
                className="button-icon"
                aria-label={t('settingsRemoveItem', { item })}
                title={t('settingsRemoveItem', { item })}
                onClick={() => void apply(items.filter((other) => other !== item))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="list-add" onSubmit={(event) => void add(event)}>
        <label className="visually-hidden" htmlFor={inputId}>
          {t('settingsAddTo', { list: label })}
        </label>
        <input
          id={inputId}
          type="text"
          value={draft}
          placeholder={placeholder}
          aria-describedby={hint ? hintId : undefined}
          onChange={(event) => setDraft(event.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
        <button type="submit" className="button-small" disabled={draft.trim() === ''}>
          {t('settingsAdd')}
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}
