import { useEffect, useId, useState, type FormEvent } from 'react';

import type { CatchUpPolicy, ScheduleDefinitionInput, ScheduleStep } from '@nextai/shared';

import type { PanelProps } from '../panel-props.js';
import { browserTimeZone, errorText, toolList, whenText } from './format.js';

type Preview = { ok: true; description: string; next: string[] } | { ok: false; message: string } | undefined;

const EXAMPLE_STEPS = '[\n  {"tool": "system_info", "input": {"categories": ["disk"]}}\n]';

/** The form that creates a task; the daemon checks it and says why it refuses one. */
export function ScheduleForm(props: PanelProps & { now: number; onDone: (created: boolean) => void }) {
  const { client, t, locale, onDone, state, now } = props;
  const id = useId();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 9 * * 1-5');
  const [timezone, setTimezone] = useState(browserTimeZone());
  const [kind, setKind] = useState<'agent' | 'steps'>('agent');
  const [instruction, setInstruction] = useState('');
  const [steps, setSteps] = useState(EXAMPLE_STEPS);
  const [grant, setGrant] = useState('');
  const [catchUp, setCatchUp] = useState<CatchUpPolicy>('once');
  const [dailyCap, setDailyCap] = useState('5');
  const [urgent, setUrgent] = useState(false);
  const [preview, setPreview] = useState<Preview>(undefined);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const connected = state.status === 'connected';

  // What the cron expression means, as it is typed (the daemon parses it, with the same library it fires with).
  useEffect(() => {
    if (!connected || cron.trim() === '') return undefined;
    // An answer for what was typed before is dropped: only the current expression's counts.
    let current = true;
    const timer = setTimeout(() => {
      client
        .call('schedules.preview', { cron, ...(timezone.trim() ? { timezone: timezone.trim() } : {}), count: 3 })
        .then((answer) => {
          if (current) setPreview({ ok: true, description: answer.description[locale], next: answer.next_runs });
        })
        .catch((error: unknown) => {
          if (current) setPreview({ ok: false, message: errorText(error, locale) });
        });
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, connected, cron, timezone, locale]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setRefusal(undefined);
    let parsedSteps: ScheduleStep[] | undefined;
    if (kind === 'steps') {
      try {
        parsedSteps = JSON.parse(steps) as ScheduleStep[];
      } catch (error) {
        setRefusal(t('formRefused', { message: `${t('formSteps')}: ${(error as Error).message}` }));
        return;
      }
    }
    const tools = toolList(grant);
    const cap = Number(dailyCap);
    const definition: ScheduleDefinitionInput = {
      name: name.trim(),
      cron: cron.trim(),
      ...(timezone.trim() ? { timezone: timezone.trim() } : {}),
      ...(kind === 'agent' ? { instruction } : { steps: parsedSteps }),
      ...(tools.length > 0 ? { granted_tools: { tools } } : {}),
      catch_up: catchUp,
      ...(Number.isFinite(cap) && cap > 0 ? { daily_cost_cap_usd: cap } : {}),
      urgent,
    };
    setSending(true);
    try {
      await client.call('schedules.create', definition);
      onDone(true);
    } catch (error) {
      setRefusal(t('formRefused', { message: errorText(error, locale) }));
    } finally {
      setSending(false);
    }
  };

  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return (
    <form
      className="card schedule-form"
      onSubmit={(event) => void submit(event)}
      data-testid="schedule-form"
      aria-labelledby={`${id}-title`}
    >
      <h3 id={`${id}-title`}>{t('formTitle')}</h3>
      <div className="field">
        <label htmlFor={`${id}-name`}>{t('formName')}</label>
        <input
          id={`${id}-name`}
          value={name}
          required
          maxLength={100}
          placeholder={t('formNamePlaceholder')}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-cron`}>{t('formCron')}</label>
          <input
            id={`${id}-cron`}
            className="mono"
            value={cron}
            required
            aria-describedby={`${id}-cron-help ${id}-preview`}
            onChange={(event) => setCron(event.target.value)}
          />
          <p className="hint" id={`${id}-cron-help`}>
            {t('formCronHelp')}
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-zone`}>{t('formTimezone')}</label>
          <input
            id={`${id}-zone`}
            list={`${id}-zones`}
            value={timezone}
            onChange={(event) => setTimezone(event.target.value)}
          />
          <datalist id={`${id}-zones`}>
            {zones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
        </div>
      </div>
      <div id={`${id}-preview`} className="schedule-preview" aria-live="polite" data-testid="schedule-preview">
        {preview?.ok === true && (
          <>
            <strong>{preview.description}</strong>
            <span className="hint">
              {t('formPreviewNext', {
                times: preview.next.map((time) => whenText(time, now, locale)).join(' · '),
              })}
            </span>
          </>
        )}
        {preview?.ok === false && <span className="error-text">{preview.message}</span>}
      </div>

      <fieldset className="field">
        <legend>{t('formKind')}</legend>
        <div className="segments">
          {(['agent', 'steps'] as const).map((option) => (
            <label key={option} className={`segment${kind === option ? ' segment-on' : ''}`}>
              <input
                type="radio"
                name={`${id}-kind`}
                value={option}
                checked={kind === option}
                onChange={() => setKind(option)}
              />
              {option === 'agent' ? t('formKindAgent') : t('formKindSteps')}
            </label>
          ))}
        </div>
      </fieldset>
      {kind === 'agent' ? (
        <div className="field">
          <label htmlFor={`${id}-instruction`}>{t('formInstruction')}</label>
          <textarea
            id={`${id}-instruction`}
            rows={3}
            required
            value={instruction}
            placeholder={t('formInstructionPlaceholder')}
            onChange={(event) => setInstruction(event.target.value)}
          />
        </div>
      ) : (
        <div className="field">
          <label htmlFor={`${id}-steps`}>{t('formSteps')}</label>
          <textarea
            id={`${id}-steps`}
            className="mono"
            rows={5}
            required
            value={steps}
            onChange={(event) => setSteps(event.target.value)}
          />
        </div>
      )}
      <div className="field">
        <label htmlFor={`${id}-grant`}>{t('formGrant')}</label>
        <input
          id={`${id}-grant`}
          className="mono"
          value={grant}
          placeholder={t('formGrantPlaceholder')}
          aria-describedby={`${id}-grant-help`}
          onChange={(event) => setGrant(event.target.value)}
        />
        <p className="hint" id={`${id}-grant-help`}>
          {t('formGrantHelp')}
        </p>
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={`${id}-catch-up`}>{t('formCatchUp')}</label>
          <select
            id={`${id}-catch-up`}
            value={catchUp}
            onChange={(event) => setCatchUp(event.target.value as CatchUpPolicy)}
          >
            <option value="once">{t('formCatchUpOnce')}</option>
            <option value="skip">{t('formCatchUpSkip')}</option>
            <option value="each">{t('formCatchUpEach')}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-cap`}>{t('formDailyCap')}</label>
          <input
            id={`${id}-cap`}
            type="number"
            min="0.01"
            step="0.01"
            value={dailyCap}
            onChange={(event) => setDailyCap(event.target.value)}
          />
        </div>
      </div>
      <label className="checkbox">
        <input type="checkbox" checked={urgent} onChange={(event) => setUrgent(event.target.checked)} />{' '}
        {t('formUrgent')}
      </label>
      {refusal && (
        <p className="error-text" role="alert" data-testid="schedule-form-error">
          {refusal}
        </p>
      )}
      <div className="card-actions">
        <button type="submit" className="button-primary" disabled={sending || !connected} data-testid="schedule-create">
          {sending ? t('formCreating') : t('formCreate')}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          {t('formCancel')}
        </button>
      </div>
    </form>
  );
}
