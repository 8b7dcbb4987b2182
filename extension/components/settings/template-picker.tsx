import { TEMPLATE_IDS, type TemplateId } from '@nextai/shared';

import type { MessageKey, Translate } from '../../lib/i18n.js';

const TEMPLATE_TEXT: Record<TemplateId, { name: MessageKey; use: MessageKey }> = {
  'full-auto': { name: 'settingsTemplateFullAuto', use: 'settingsTemplateFullAutoUse' },
  development: { name: 'settingsTemplateDevelopment', use: 'settingsTemplateDevelopmentUse' },
  strict: { name: 'settingsTemplateStrict', use: 'settingsTemplateStrictUse' },
  observe: { name: 'settingsTemplateObserve', use: 'settingsTemplateObserveUse' },
};

/** The four approval templates as radio cards: a name and what it is for. */
export function TemplatePicker({
  value,
  onChoose,
  disabled,
  t,
  name,
}: {
  value: TemplateId | null;
  onChoose: (template: TemplateId) => void;
  disabled?: boolean;
  t: Translate;
  name: string;
}) {
  return (
    <fieldset className="template-picker" disabled={disabled}>
      <legend className="visually-hidden">{t('settingsTemplate')}</legend>
      {TEMPLATE_IDS.map((id) => (
        <label
          key={id}
          className={`template-option${value === id ? ' template-on' : ''}`}
          data-testid={`template-${id}`}
        >
          <input type="radio" name={name} value={id} checked={value === id} onChange={() => onChoose(id)} />
          <span className="template-text">
            <span className="template-name">{t(TEMPLATE_TEXT[id].name)}</span>
            <span className="template-use">{t(TEMPLATE_TEXT[id].use)}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
