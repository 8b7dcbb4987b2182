import { useEffect, useMemo, useState } from 'react';

import type { RunView } from '@nextai/shared';

import type { MessageKey, Translate } from '../../lib/i18n.js';
import type { PanelProps } from '../panel-props.js';
import { imageUrl, runSteps } from './data.js';
import { ImageDialog } from './image-dialog.js';
import { liveView, type Marker, type Screen, type StepLike } from './live-view-model.js';
import { clock } from './operation-log.js';

const FOLLOW = '';

/**
 * The agent's view of the screen: the latest screenshot of a run with markers
 * for what it did since the screenshot before — clicks (red crosshair and coordinates), located
 * elements (blue dashed box), drags and moves (green arrow), typing (orange highlight) — updated
 * as the run takes steps. Follows the newest run unless the person picks one.
 */
export function LiveView({ client, state, t, locale }: PanelProps) {
  const connected = state.status === 'connected';
  const [runs, setRuns] = useState<RunView[]>([]);
  const [picked, setPicked] = useState<string>(FOLLOW);
  const [loaded, setLoaded] = useState<{ runId: string; steps: StepLike[] } | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [runsVersion, setRunsVersion] = useState(0);
  const [stepsVersion, setStepsVersion] = useState(0);

  // Recent runs (the newest active one first), re-read when a run changes state.
  useEffect(() => {
    if (!connected) return;
    let current = true;
    Promise.all([client.call('runs.list', { state: 'active', limit: 5 }), client.call('runs.list', { limit: 10 })])
      .then(([active, recent]) => {
        if (!current) return;
        const seen = new Set<string>();
        setRuns(
          [...active.runs, ...recent.runs].filter((run) => (seen.has(run.id) ? false : (seen.add(run.id), true))),
        );
        setError(undefined);
      })
      .catch((failure: Error) => current && setError(failure.message));
    return () => {
      current = false;
    };
  }, [client, connected, runsVersion]);

  // A picked run that is no longer listed (deleted, or older than the list) falls back to following.
  const pickedRun = runs.find((candidate) => candidate.id === picked);
  const run = pickedRun ?? runs[0];
  const runId = run?.id;

  useEffect(() => {
    let stepTimer: ReturnType<typeof setTimeout> | undefined;
    let runTimer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = client.onEvent((event) => {
      if (event.type === 'run.state') {
        runTimer ??= setTimeout(() => {
          runTimer = undefined;
          setRunsVersion((value) => value + 1);
        }, 200);
      }
      if (event.type === 'run.step' && event.data.phase === 'finished' && event.data.run_id === runId) {
        stepTimer ??= setTimeout(() => {
          stepTimer = undefined;
          setStepsVersion((value) => value + 1);
        }, 250);
      }
    });
    return () => {
      unsubscribe();
      clearTimeout(stepTimer);
      clearTimeout(runTimer);
    };
  }, [client, runId]);

  useEffect(() => {
    if (!runId || !connected) return;
    let current = true;
    runSteps(client, runId, true)
      .then((steps) => current && setLoaded({ runId, steps }))
      .catch((failure: Error) => current && setError(failure.message));
    return () => {
      current = false;
    };
  }, [client, runId, connected, stepsVersion]);

  const steps = loaded?.runId === runId ? loaded?.steps : undefined;
  const view = useMemo(() => liveView(steps ?? []), [steps]);

  return (
    <section className="card live-view" data-testid="live-view" aria-labelledby="live-view-title">
      <div className="card-title-row">
        <h2 id="live-view-title">{t('liveTitle')}</h2>
        {runs.length > 0 && (
          <label className="live-pick">
            <span className="visually-hidden">{t('liveRunLabel')}</span>
            <select
              value={pickedRun ? picked : FOLLOW}
              onChange={(event) => setPicked(event.target.value)}
              data-testid="live-run-picker"
            >
              <option value={FOLLOW}>{t('liveFollowLatest')}</option>
              {runs.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {truncate(candidate.goal, 40)} · {t(stateKey(candidate.state))}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      {run && (
        <p className="live-run" data-testid="live-run">
          <span className={`live-state live-state-${run.state}`}>{t(stateKey(run.state))}</span>
          <span className="live-goal" title={run.goal}>
            {run.goal}
          </span>
        </p>
      )}
      {error && <p className="error-text">{t('liveLoadFailed', { message: error })}</p>}
      {!connected && !run && <p className="hint">{t('activityOffline')}</p>}
      {connected && !run && !error && <p className="hint">{t('liveNoRun')}</p>}
      {run && !view.screen && <p className="hint">{t('liveNoScreen')}</p>}
      {view.screen && <Screenshot screen={view.screen} markers={view.markers} t={t} locale={locale} client={client} />}
    </section>
  );
}

function Screenshot({
  screen,
  markers,
  t,
  locale,
  client,
}: {
  screen: Screen;
  markers: Marker[];
  t: Translate;
  locale: string;
  client: PanelProps['client'];
}) {
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let current = true;
    imageUrl(client, screen.reference)
      .then((value) => {
        if (current) {
          setUrl(value);
          setFailed(undefined);
        }
      })
      .catch((failure: Error) => current && setFailed(failure.message));
    return () => {
      current = false;
    };
  }, [client, screen.reference]);
  const title = t('liveScreenAt', { step: screen.step, time: clock(screen.time, locale) });
  return (
    <figure className="live-figure" data-testid="live-screen" data-step={screen.step} data-markers={markers.length}>
      {failed ? (
        <p className="error-text">{t('liveImageGone', { message: failed })}</p>
      ) : (
        <button
          type="button"
          className="live-frame"
          style={{ aspectRatio: `${screen.width} / ${screen.height}` }}
          onClick={() => url && setOpen(true)}
          aria-label={t('liveOpenFull', { title })}
        >
          {url && <img src={url} alt="" />}
          <MarkerLayer screen={screen} markers={markers} t={t} />
        </button>
      )}
      <figcaption>
        <span>{title}</span>
        <span className="sub">{t('liveMarkerCount', { count: markers.length })}</span>
      </figcaption>
      <ul className="live-legend" aria-label={t('liveLegend')}>
        <li className="legend-click">{t('liveLegendClick')}</li>
        <li className="legend-element">{t('liveLegendElement')}</li>
        <li className="legend-path">{t('liveLegendPath')}</li>
        <li className="legend-typing">{t('liveLegendTyping')}</li>
      </ul>
      {open && url && <ImageDialog url={url} title={title} onClose={() => setOpen(false)} t={t} />}
    </figure>
  );
}

function MarkerLayer({ screen, markers, t }: { screen: Screen; markers: Marker[]; t: Translate }) {
  const { width, height } = screen;
  // Sizes in screenshot pixels, chosen to read well at the panel's width whatever the screen size.
  const unit = Math.max(width, height) / 100;
  const font = unit * 3.2;
  const last = markers.at(-1);
  return (
    <svg
      className="live-markers"
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={markers.map((marker) => describe(marker, t)).join('; ') || t('liveNoMarkers')}
    >
      <defs>
        <marker id="live-arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" fill="#1faa59" />
        </marker>
      </defs>
      {markers.map((marker) => (
        <g
          key={`${marker.kind}-${marker.step}`}
          className={`mark mark-${marker.kind}`}
          opacity={marker === last ? 1 : 0.75}
          data-testid={`marker-${marker.kind}`}
        >
          {draw(marker, unit, font)}
        </g>
      ))}
    </svg>
  );
}

function draw(marker: Marker, unit: number, font: number) {
  const label = (x: number, y: number, text: string, color: string) => (
    <text x={x} y={y} fontSize={font} fill={color} className="mark-label">
      {text}
    </text>
  );
  switch (marker.kind) {
    case 'click': {
      const { x, y } = marker.at;
      const r = unit * 3.5;
      return (
        <>
          <line x1={x - r} y1={y} x2={x + r} y2={y} stroke="#e53935" />
          <line x1={x} y1={y - r} x2={x} y2={y + r} stroke="#e53935" />
          <circle cx={x} cy={y} r={r * 0.45} fill="none" stroke="#e53935" />
          {label(x + r * 0.6, y - r * 0.6, `${marker.step} · (${Math.round(x)}, ${Math.round(y)})`, '#e53935')}
        </>
      );
    }
    case 'element': {
      const { x, y, width, height } = marker.bounds;
      return (
        <>
          <rect
            x={x}
            y={y}
            width={width}
            height={height}
            fill="rgba(30,136,229,0.08)"
            stroke="#1e88e5"
            strokeDasharray="6 4"
          />
          {label(x, y - unit * 0.6, truncate(marker.label, 30), '#1e88e5')}
        </>
      );
    }
    case 'path':
      return (
        <line
          x1={marker.from.x}
          y1={marker.from.y}
          x2={marker.to.x}
          y2={marker.to.y}
          stroke="#1faa59"
          strokeDasharray={marker.drag ? undefined : '8 5'}
          markerEnd="url(#live-arrow)"
        />
      );
    case 'scroll': {
      const { x, y } = marker.at;
      return (
        <>
          <circle cx={x} cy={y} r={unit * 1.2} fill="rgba(142,36,170,0.2)" stroke="#8e24aa" />
          {label(x + unit * 1.6, y + font / 3, `↕ ${marker.direction}`, '#8e24aa')}
        </>
      );
    }
    case 'typing': {
      const at = marker.at ?? { x: unit * 4, y: unit * 4 };
      const w = unit * 18;
      const h = unit * 4;
      return (
        <>
          <rect
            x={at.x - unit}
            y={at.y - h / 2}
            width={w}
            height={h}
            rx={unit * 0.6}
            fill="rgba(251,140,0,0.3)"
            stroke="#fb8c00"
          />
          {label(at.x, at.y + h / 2 + font, `⌨ ${truncate(marker.text, 28)}`, '#ef6c00')}
        </>
      );
    }
  }
}

const MARKER_KEYS = {
  click: 'liveMarkClick',
  element: 'liveMarkElement',
  path: 'liveMarkPath',
  scroll: 'liveMarkScroll',
  typing: 'liveMarkTyping',
} as const satisfies Record<Marker['kind'], MessageKey>;

function describe(marker: Marker, t: Translate): string {
  switch (marker.kind) {
    case 'click':
      return t(MARKER_KEYS.click, { step: marker.step, x: Math.round(marker.at.x), y: Math.round(marker.at.y) });
    case 'element':
      return t(MARKER_KEYS.element, { step: marker.step, label: marker.label });
    case 'path':
      return t(MARKER_KEYS.path, {
        step: marker.step,
        x: Math.round(marker.to.x),
        y: Math.round(marker.to.y),
      });
    case 'scroll':
      return t(MARKER_KEYS.scroll, { step: marker.step, direction: marker.direction });
    case 'typing':
      return t(MARKER_KEYS.typing, { step: marker.step, text: truncate(marker.text, 60) });
  }
}

const STATE_KEYS = {
  queued: 'liveStateQueued',
  running: 'liveStateRunning',
  waiting_user: 'liveStateWaitingUser',
  waiting_approval: 'liveStateWaitingApproval',
  paused: 'liveStatePaused',
  finished: 'liveStateFinished',
  failed: 'liveStateFailed',
  stopped: 'liveStateStopped',
} as const satisfies Record<RunView['state'], MessageKey>;

function stateKey(state: RunView['state']): MessageKey {
  return STATE_KEYS[state];
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
