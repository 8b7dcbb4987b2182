import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';

import type { MessageKey, Translate } from '../../lib/i18n.js';
import type { RunDraft } from '../../lib/panel-messages.js';

export type DraftContext = RunDraft['context'];

const KIND_KEYS: Record<DraftContext['kind'], MessageKey> = {
  selection: 'chatContextSelection',
  link: 'chatContextLink',
  image: 'chatContextImage',
  page: 'chatContextPage',
};

/** The goal sent to the agent: the instruction, then what the person pointed at on the page. */
export function goalWithContext(instruction: string, context: DraftContext | undefined, t: Translate): string {
  if (!context) return instruction.trim();
  const lines = [instruction.trim(), ''];
  if (context.selection) lines.push(`${t('chatGoalSelection')}:`, '"""', context.selection, '"""');
  if (context.link_url) lines.push(`${t('chatGoalLink')}: ${context.link_url}`);
  if (context.image_url) lines.push(`${t('chatGoalImage')}: ${context.image_url}`);
  if (context.page_title || context.page_url) {
    lines.push(`${t('chatGoalPage')}: ${[context.page_title, context.page_url].filter(Boolean).join(' — ')}`);
  }
  return lines.join('\n').trim();
}

/** What the chip shows of the context: the selection's start, or the link, image or page. */
function contextPreview(context: DraftContext): string {
  const text =
    context.selection ?? context.link_url ?? context.image_url ?? context.page_title ?? context.page_url ?? '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 90 ? `${flat.slice(0, 89)}…` : flat;
}

/**
 * The message box: a new goal, or — while a run goes on — a new instruction for it (steer).
 * A run prepared from the right-click menu arrives here with its context chip and instruction.
 */
export function Composer({
  t,
  mode,
  disabled,
  draft,
  onSend,
}: {
  t: Translate;
  mode: 'start' | 'steer';
  disabled: boolean;
  draft: { id: string; instruction: string; context: DraftContext } | undefined;
  onSend: (text: string, context: DraftContext | undefined) => Promise<boolean>;
}) {
  const [text, setText] = useState('');
  const [context, setContext] = useState<DraftContext>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLTextAreaElement>(null);

  // A new draft replaces what the box holds (adjusted while rendering, not in an effect).
  const [placedId, setPlacedId] = useState<string>();
  if (draft && draft.id !== placedId) {
    setPlacedId(draft.id);
    setText(draft.instruction);
    setContext(draft.context);
  }
  useEffect(() => {
    if (!placedId) return;
    input.current?.focus();
    input.current?.select();
  }, [placedId]);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    if (text.trim() === '' || busy || disabled) return;
    setBusy(true);
    try {
      if (await onSend(text, mode === 'start' ? context : undefined)) {
        setText('');
        if (mode === 'start') setContext(undefined);
      }
    } finally {
      setBusy(false);
      input.current?.focus();
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };

  const label = mode === 'steer' ? t('chatSteerInput') : t('chatMessageInput');
  return (
    <form className="composer" data-testid="composer" data-mode={mode} onSubmit={(event) => void send(event)}>
      {context && mode === 'start' && (
        <div className="context-chip" data-testid="context-chip" data-kind={context.kind}>
          <span className="context-kind">{t(KIND_KEYS[context.kind])}</span>
          <span className="context-text" title={context.page_url}>
            {contextPreview(context)}
          </span>
          <button
            type="button"
            className="icon-button"
            aria-label={t('chatRemoveContext')}
            onClick={() => setContext(undefined)}
          >
            ✕
          </button>
        </div>
      )}
      <div className="composer-row">
        <textarea
          ref={input}
          rows={Math.min(6, Math.max(1, text.split('\n').length))}
          value={text}
          aria-label={label}
          placeholder={label}
          disabled={disabled}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="submit"
          className="button-primary composer-send"
          disabled={disabled || busy || text.trim() === ''}
          aria-label={mode === 'steer' ? t('chatSteerSend') : t('chatSend')}
        >
          {mode === 'steer' ? t('chatSteerSend') : t('chatSend')}
        </button>
      </div>
      <p className="composer-hint">{mode === 'steer' ? t('chatSteerHint') : t('chatSendHint')}</p>
    </form>
  );
}
