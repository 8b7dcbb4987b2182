import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';

import { toAppError, type sessionViewSchema } from '@nextai/shared';
import type { z } from 'zod';

import type { Locale, Translate } from '../../lib/i18n.js';
import type { PanelClient } from '../../lib/panel-client.js';

type SessionView = z.infer<typeof sessionViewSchema>;

/** Sessions read a page at a time: a long history stays quick to open. */
const PAGE = 30;

function relativeTime(iso: string, locale: Locale): string {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return format.format(Math.round(seconds / 86_400), 'day');
  return new Date(iso).toLocaleDateString(locale);
}

/** The chat sessions: search, open, rename, delete. */
export function SessionsList({
  client,
  t,
  locale,
  selected,
  onOpen,
  onDeleted,
}: {
  client: PanelClient;
  t: Translate;
  locale: Locale;
  selected: string | undefined;
  onOpen: (id: string) => void;
  onDeleted: (id: string) => void;
}) {
  const [search, setSearch] = useState('');
  const [sessions, setSessions] = useState<SessionView[]>([]);
  const [more, setMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const query = useRef(0);

  const fetchPage = useCallback(
    async (offset: number, text: string) => {
      const mine = ++query.current;
      setLoading(true);
      try {
        const { sessions: page } = await client.call('sessions.list', {
          limit: PAGE + 1,
          offset,
          ...(text.trim() ? { search: text.trim() } : {}),
        });
        if (mine !== query.current) return;
        setSessions((previous) => [...(offset === 0 ? [] : previous), ...page.slice(0, PAGE)]);
        setMore(page.length > PAGE);
        setError(undefined);
      } catch (caught) {
        if (mine === query.current) setError(toAppError(caught).message);
      } finally {
        if (mine === query.current) setLoading(false);
      }
    },
    [client],
  );

  useEffect(() => {
    const timer = setTimeout(() => void fetchPage(0, search), 200);
    return () => clearTimeout(timer);
  }, [search, fetchPage]);

  // Sessions created, renamed or deleted anywhere (the CLI too) show up here.
  useEffect(
    () =>
      client.onEvent((event) => {
        if (event.type === 'session.changed' && event.data.change !== 'message') void fetchPage(0, search);
      }),
    [client, fetchPage, search],
  );

  const rename = async (id: string, title: string) => {
    setEditing(undefined);
    if (title.trim() === '') return;
    try {
      const { session } = await client.call('sessions.rename', { id, title: title.trim() });
      setSessions((previous) => previous.map((item) => (item.id === id ? session : item)));
    } catch (caught) {
      setError(toAppError(caught).message);
    }
  };

  const remove = async (id: string) => {
    setConfirming(undefined);
    try {
      await client.call('sessions.delete', { id });
      setSessions((previous) => previous.filter((item) => item.id !== id));
      onDeleted(id);
    } catch (caught) {
      const appError = toAppError(caught);
      if (appError.code === 'NOT_FOUND') {
        setSessions((previous) => previous.filter((item) => item.id !== id));
        onDeleted(id);
      } else setError(appError.message);
    }
  };

  return (
    <section className="sessions" data-testid="sessions-list" aria-label={t('chatSessions')}>
      <div className="sessions-top">
        <input
          type="search"
          className="sessions-search"
          value={search}
          aria-label={t('chatSearchSessions')}
          placeholder={t('chatSearchSessions')}
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {!loading && sessions.length === 0 && !error && (
        <p className="sessions-empty">{search.trim() ? t('chatNoMatch') : t('chatNoSessions')}</p>
      )}
      <ul className="session-rows">
        {sessions.map((session) => (
          <li
            key={session.id}
            className={`session-row ${session.id === selected ? 'session-current' : ''}`}
            data-testid="session-row"
          >
            {editing === session.id ? (
              <RenameField
                title={session.title}
                t={t}
                onDone={(title) => void rename(session.id, title)}
                onCancel={() => setEditing(undefined)}
              />
            ) : (
              <button
                type="button"
                className="session-open"
                aria-current={session.id === selected ? 'true' : undefined}
                onClick={() => onOpen(session.id)}
              >
                <span className="session-title">{session.title}</span>
                <span className="session-time">{relativeTime(session.updated_at, locale)}</span>
              </button>
            )}
            {confirming === session.id ? (
              <span
                className="session-confirm"
                role="group"
                aria-label={t('chatDeleteConfirm', { title: session.title })}
              >
                <span className="session-confirm-text">{t('chatDeleteQuestion')}</span>
                <button
                  type="button"
                  className="button-small button-danger"
                  autoFocus
                  onClick={() => void remove(session.id)}
                >
                  {t('chatDelete')}
                </button>
                <button type="button" className="button-small" onClick={() => setConfirming(undefined)}>
                  {t('chatCancel')}
                </button>
              </span>
            ) : (
              editing !== session.id && (
                <span className="session-actions">
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t('chatRenameSession', { title: session.title })}
                    title={t('chatRename')}
                    onClick={() => setEditing(session.id)}
                  >
                    <PencilIcon />
                  </button>
                  <button
                    type="button"
                    className="icon-button"
                    aria-label={t('chatDeleteSession', { title: session.title })}
                    title={t('chatDelete')}
                    onClick={() => setConfirming(session.id)}
                  >
                    <TrashIcon />
                  </button>
                </span>
              )
            )}
          </li>
        ))}
      </ul>
      {more && (
        <button
          type="button"
          className="link-button"
          disabled={loading}
          onClick={() => void fetchPage(sessions.length, search)}
        >
          {t('chatMoreSessions')}
        </button>
      )}
    </section>
  );
}

function RenameField({
  title,
  t,
  onDone,
  onCancel,
}: {
  title: string;
  t: Translate;
  onDone: (title: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(title);
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      onDone(value);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      onCancel();
    }
  };
  return (
    <input
      type="text"
      className="session-rename"
      value={value}
      maxLength={200}
      autoFocus
      aria-label={t('chatRenameInput')}
      onChange={(event) => setValue(event.target.value)}
      onKeyDown={onKeyDown}
      onBlur={() => onDone(value)}
    />
  );
}

function PencilIcon() {
  return (
    <svg
      width="14"
      height="14"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d="M11.2 2.3l2.5 2.5-8.4 8.4H2.8v-2.5z" strokeLinejoin="round" />
    </svg>
  );
}

function TrashIcon() {
  return (
    <svg
      width="14"
      height="14"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d="M2.5 4h11M6 4V2.5h4V4M4 4l.7 9.5h6.6L12 4M6.8 6.5v5M9.2 6.5v5" strokeLinejoin="round" />
    </svg>
  );
}
