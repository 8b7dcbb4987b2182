import type { Command } from 'commander';

import { AppError, VERSION, inLocale, say, type Locale, type StorageHealthReport } from '@nextai/shared';

import { DaemonClient } from '../client/daemon-client.js';
import { unavailableReason, unreachablePid } from '../client/daemon-launcher.js';
import { lockHolder } from '../client/daemon-lock.js';
import { dataPaths } from '../core/paths.js';
import { currentPlatform } from '../core/current-platform.js';
import { environmentLocale } from '../core/locale.js';
import { printJson, printLine } from './output.js';

export function registerStatusCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('status')
    .description('Say whether the daemon is running, and what it is connected to.')
    .option('--json', 'print a JSON object (its `running` field is true or false)')
    .action(async (options: { json?: boolean }) => {
      const paths = dataPaths();
      let client: DaemonClient;
      try {
        client = await DaemonClient.connect(paths, { start: false });
      } catch (error) {
        // Refused for having too many clients: it runs, and says why it takes no more.
        const busy = error instanceof AppError && error.code === 'BUSY';
        const reason = busy ? 'busy' : unavailableReason(error);
        if (reason === undefined) throw error;
        // A daemon that holds the lock runs, even when its socket is gone (it makes a new one).
        const running = reason === 'unreachable' || reason === 'busy';
        const holder = busy ? lockHolder(paths) : undefined;
        const pid = holder?.held ? holder.pid : unreachablePid(error);
        const down = {
          running,
          ...(running ? { reachable: false, ...(pid === undefined ? {} : { pid }) } : {}),
          reason,
          message: (error as Error).message,
          version: VERSION,
          data_dir: paths.dataDir,
          platform: currentPlatform(),
        };
        if (options.json) printJson(down);
        else {
          printLine(
            running
              ? `daemon:    running${pid === undefined ? '' : ` (pid ${pid})`}, but it cannot be reached now`
              : 'daemon:    not running',
          );
          printLine(`           ${down.message.split('\n').join('\n           ')}`);
          printLine(`version:   ${VERSION}`);
          printLine(`data dir:  ${paths.dataDir}`);
          printLine(`platform:  ${down.platform}`);
        }
        // Not running (or not reachable) is an answer, not a failure, but scripts may want to branch on it.
        setExitCode(3);
        return;
      }
      try {
        const status = await client.peer.request('daemon.status', {});
        const others = status.clients.filter((entry) => !entry.is_caller);
        if (options.json) {
          printJson({
            running: true,
            version: status.daemon.version,
            protocol_version: status.daemon.protocol_version,
            pid: status.daemon.pid,
            data_dir: status.daemon.data_dir,
            platform: status.daemon.platform,
            arch: status.daemon.arch,
            started_at: status.daemon.started_at,
            uptime_ms: status.uptime_ms,
            last_event_seq: status.last_event_seq,
            ...(status.storage ? { storage: status.storage } : {}),
            clients: others,
          });
          return;
        }
        printLine(`daemon:    running (pid ${status.daemon.pid}, up ${formatDuration(status.uptime_ms)})`);
        // Right under "running": a daemon that cannot save is the first thing to know about it.
        if (status.storage) for (const line of storageLines(status.storage, environmentLocale())) printLine(line);
        printLine(`version:   ${status.daemon.version} (protocol ${status.daemon.protocol_version})`);
        printLine(`data dir:  ${status.daemon.data_dir}`);
        printLine(`platform:  ${status.daemon.platform} ${status.daemon.arch}`);
        printLine(`clients:   ${others.length === 0 ? 'none' : ''}`);
        for (const entry of others) {
          const origin = entry.origin ? ` ${entry.origin}` : '';
          printLine(`  - ${entry.kind} ${entry.name}${origin} (since ${entry.connected_at})`);
        }
      } finally {
        client.close();
      }
    });
}

/**
 * The storage lines of `nextai status`: "ok", or what is wrong, since when and what to do; and a
 * warning when the data folder is on a network file system.
 */
export function storageLines(storage: StorageHealthReport, locale: Locale): string[] {
  const network = storage.network_file_system;
  const warning = network
    ? [
        say('WARNING: ', '警告：')[locale] + inLocale(network.message, network.message_translations, locale),
        say('To fix: ', '解决办法：')[locale] + inLocale(network.fix, network.fix_translations, locale),
      ].map((line) => ''.padEnd(11) + line)
    : [];
  if (storage.ok) return ['storage:   ok', ...warning];
  const since = storage.since ? say(`, since ${storage.since}`, `，自 ${storage.since} 起`)[locale] : '';
  const lines = [
    `${say('CANNOT WRITE', '无法写入')[locale]} (${storage.code ?? 'unknown'}${since})`,
    inLocale(storage.message ?? '', storage.message_translations, locale),
    say('To fix: ', '解决办法：')[locale] + inLocale(storage.fix ?? '', storage.fix_translations, locale),
    say(
      'Until then reading works (status, lists, audit verify); what must be saved waits or is refused.',
      '在此之前读取照常（状态、列表、审计校验）；需要保存的内容会等待或被拒绝。',
    )[locale],
  ];
  return [...lines.map((line, index) => `${index === 0 ? 'storage:' : ''}`.padEnd(11) + line), ...warning];
}

function formatDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  return `${hours}h ${minutes % 60}m`;
}
