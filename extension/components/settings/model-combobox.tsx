import { useId, useRef, useState, type KeyboardEvent } from 'react';

import type { Translate } from '../../lib/i18n.js';

/** More than this many matches are cut, with a line saying to type more (OpenRouter lists hundreds). */
const MAX_SHOWN = 300;

/**
 * A text field for a model name with a list to pick from (the ARIA 1.2 combobox pattern): the
 * name can always be typed freely; the list holds the server's models once fetched, or the
 * preset's suggestions before, narrowed to what is typed. Arrow keys move through it, Enter
 * picks, Escape closes.
 */
export function ModelCombobox({
  id,
  value,
  onChange,
  options,
  disabled,
  placeholder,
  describedBy,
  open,
  onOpenChange,
  t,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly string[];
  disabled: boolean;
  placeholder?: string;
  describedBy?: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  t: Translate;
}) {
  const listId = useId();
  const [active, setActive] = useState(-1);
  // What the person typed since the list was last opened whole: it narrows the list. A list just
  // fetched, or opened with the arrow, shows everything, whatever name the field holds.
  const [query, setQuery] = useState<string | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  // A new list (fetched, or another preset's) is shown whole: reset while rendering, not in an effect.
  const [listed, setListed] = useState(options);
  if (listed !== options) {
    setListed(options);
    setQuery(undefined);
  }

  const typed = query?.trim().toLowerCase() ?? '';
  const narrowed = typed === '' ? options : options.filter((option) => option.toLowerCase().includes(typed));
  const shown = narrowed.slice(0, MAX_SHOWN);
  const expanded = open && !disabled && shown.length > 0;
  const optionId = (index: number) => `${listId}-${index}`;

  const show = (next: boolean) => {
    setActive(-1);
    setQuery(undefined);
    onOpenChange(next);
  };
  const pick = (option: string) => {
    onChange(option);
    show(false);
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!expanded) {
        show(true);
        return;
      }
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + shown.length) % shown.length);
    } else if (event.key === 'Enter' && expanded && active >= 0) {
      // The pick, not the form's submit.
      event.preventDefault();
      const option = shown[active];
      if (option !== undefined) pick(option);
    } else if (event.key === 'Escape' && expanded) {
      event.preventDefault();
      show(false);
    }
  };

  return (
    <div className="combobox">
      <input
        ref={input}
        id={id}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded && active >= 0 ? optionId(active) : undefined}
        aria-describedby={describedBy}
        value={value}
        placeholder={placeholder}
        disabled={disabled}
        spellCheck={false}
        autoComplete="off"
        onChange={(event) => {
          onChange(event.target.value);
          setQuery(event.target.value);
          setActive(-1);
          onOpenChange(true);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => show(false)}
      />
      <button
        type="button"
        className="combobox-toggle"
        tabIndex={-1}
        aria-label={t('settingsShowModels')}
        disabled={disabled || options.length === 0}
        // Keeps the focus in the field, so that its blur does not close the list being opened.
        onMouseDown={(event) => event.preventDefault()}
        onClick={() => {
          show(!expanded);
          input.current?.focus();
        }}
      >
        <span aria-hidden="true">▾</span>
      </button>
      <ul id={listId} role="listbox" className="combobox-list" hidden={!expanded} data-testid="model-options">
        {shown.map((option, index) => (
          <li
            key={option}
            id={optionId(index)}
            role="option"
            aria-selected={option === value}
            className={index === active ? 'combobox-option combobox-active' : 'combobox-option'}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => pick(option)}
          >
            {option}
          </li>
        ))}
        {narrowed.length > shown.length && (
          <li role="option" aria-disabled="true" aria-selected="false" className="combobox-more">
            {t('settingsModelsMore', { count: narrowed.length - shown.length })}
          </li>
        )}
      </ul>
    </div>
  );
}
