import { useEffect, useState } from 'react';

import type { ToolOutput, ToolResult } from '@nextai/shared';

import type { Translate } from '../lib/i18n.js';
import type { PanelClient } from '../lib/panel-client.js';

type SystemInfo = ToolOutput<'system_info'>;

type LoadState = { phase: 'loading' } | { phase: 'ready'; info: SystemInfo } | { phase: 'failed'; message: string };

/** The `system_info` tool, called through background → host → daemon, shown as a person would want it. */
export function SystemInfoCard({ client, t }: { client: PanelClient; t: Translate }) {
  const [load, setLoad] = useState<LoadState>({ phase: 'loading' });

  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    let current = true;
    void loadSystemInfo(client, t).then((next) => {
      if (current) setLoad(next);
    });
    return () => {
      current = false;
    };
  }, [client, t, generation]);

  const refresh = () => {
    setLoad({ phase: 'loading' });
    setGeneration((value) => value + 1);
  };

  return (
    <section className="card" data-testid="system-info-card" data-phase={load.phase}>
      <div className="card-title-row">
        <h2>{t('computerTitle')}</h2>
        <button type="button" className="button-small" onClick={refresh} disabled={load.phase === 'loading'}>
          {t('refresh')}
        </button>
      </div>
      {load.phase === 'loading' && <p className="hint">{t('loading')}</p>}
      {load.phase === 'failed' && <p className="error-text">{load.message}</p>}
      {load.phase === 'ready' && <SystemInfoView info={load.info} t={t} />}
    </section>
  );
}

async function loadSystemInfo(client: PanelClient, t: Translate): Promise<LoadState> {
  try {
    const result = (await client.request('tools.call', { name: 'system_info', input: {} })) as ToolResult;
    return result.ok
      ? { phase: 'ready', info: result.output as SystemInfo }
      : { phase: 'failed', message: t('toolFailed', { message: result.error.message }) };
  } catch (error) {
    return { phase: 'failed', message: (error as Error).message };
  }
}

function SystemInfoView({ info, t }: { info: SystemInfo; t: Translate }) {
  const memoryUsed = info.memory?.usage_percent ?? percentUsed(info.memory_total, info.memory_free);
  return (
    <div className="sysinfo">
      <Row label={t('os')}>
        <span data-testid="sysinfo-os">{info.os}</span>
        <span className="sub">
          {info.arch}
          {info.system ? ` · ${info.system.hostname}` : ''}
        </span>
      </Row>
      <Row label={t('cpu')}>
        <span data-testid="sysinfo-cpu">{info.cpu?.name ?? `${info.cpus} CPUs`}</span>
        <span className="sub">{t('cores', { count: info.cpus })}</span>
        {info.cpu && (
          <Meter percent={info.cpu.usage_percent} label={t('used', { percent: info.cpu.usage_percent.toFixed(0) })} />
        )}
      </Row>
      <Row label={t('memory')}>
        <span>{gib(info.memory_total)} GiB</span>
        <Meter percent={memoryUsed} label={t('used', { percent: memoryUsed.toFixed(0) })} />
      </Row>
      {info.disk && info.disk.length > 0 && (
        <Row label={t('disks')}>
          {info.disk.map((disk) => (
            <div key={disk.drive} className="disk">
              <span className="mono">{disk.drive}</span>
              <Meter
                percent={disk.usage_percent}
                label={t('free', { free: disk.free_gb.toFixed(1), total: disk.total_gb.toFixed(1) })}
              />
            </div>
          ))}
        </Row>
      )}
      {info.network && (
        <Row label={t('network')}>
          <span className="mono">{info.network.ip_address ?? '—'}</span>
          <span className="sub">
            {info.network.interfaces
              .map((entry) => entry.name)
              .filter(unique)
              .join(', ')}
          </span>
        </Row>
      )}
      <Row label={t('displays')}>
        {info.displays.length === 0 ? (
          <span className="sub">{t('noDisplays')}</span>
        ) : (
          info.displays.map((display) => (
            <span key={display.id} className="mono">
              {display.width}×{display.height}
              {display.scale !== 1 ? ` @${display.scale}x` : ''}
            </span>
          ))
        )}
      </Row>
    </div>
  );
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="sysinfo-row">
      <div className="sysinfo-label">{label}</div>
      <div className="sysinfo-value">{children}</div>
    </div>
  );
}

function Meter({ percent, label }: { percent: number; label: string }) {
  const clamped = Math.min(100, Math.max(0, percent));
  const tone = clamped > 90 ? 'high' : clamped > 70 ? 'medium' : 'low';
  return (
    <div className="meter" title={label}>
      <div className={`meter-fill meter-${tone}`} style={{ width: `${clamped}%` }} />
      <span className="meter-label">{label}</span>
    </div>
  );
}

function gib(bytes: number): string {
  return (bytes / 1024 ** 3).toFixed(1);
}

function percentUsed(total: number, free: number): number {
  return total > 0 ? ((total - free) / total) * 100 : 0;
}

function unique(value: string, index: number, all: string[]): boolean {
  return all.indexOf(value) === index;
}
