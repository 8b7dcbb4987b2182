import type { PanelProps } from '../panel-props.js';

/** The chat: sessions, messages, tool cards, run controls (issue #6 point 1). */
export function ChatTab({ t }: PanelProps) {
  return (
    <section className="card" data-testid="chat-tab">
      <p className="hint">{t('loading')}</p>
    </section>
  );
}
