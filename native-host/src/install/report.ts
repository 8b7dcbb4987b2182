import type { InstallReport, UninstallReport } from './install.js';

/** Human-readable lines for `nextai install`; with `--dry-run`, every file's full content. */
export function formatInstallReport(report: InstallReport): string[] {
  const lines: string[] = [];
  const would = report.dryRun;
  for (const action of report.actions) {
    switch (action.type) {
      case 'write': {
        const label = action.role === 'launcher' ? 'launcher' : (action.browser ?? 'manifest');
        const profile = action.userDataDir === undefined ? '' : `, profile ${action.userDataDir}`;
        if (would) {
          lines.push(`would write ${action.path} (${label}${profile}, mode ${formatMode(action.mode)}):`);
          lines.push(...action.content.replace(/\r?\n$/, '').split(/\r?\n/), '');
        } else {
          lines.push(`wrote ${action.path} (${label}${profile})`);
        }
        break;
      }
      case 'registry-add':
        lines.push(
          would
            ? `would run ${action.command} (${action.browser})`
            : `registered ${action.key} -> ${action.value} (${action.browser})`,
        );
        break;
      case 'skip':
        lines.push(`skipped ${action.browser}: ${action.reason}`);
        break;
      case 'record':
        lines.push(`${would ? 'would record' : 'recorded'} what was written in ${action.path}`);
        break;
    }
  }
  if (would) lines.push('dry run: nothing was written');
  return lines;
}

/** Human-readable lines for `nextai uninstall`. Failures are reported separately, on stderr. */
export function formatUninstallReport(report: UninstallReport): string[] {
  if (report.nothingToUninstall !== undefined) return [`nothing to uninstall: ${report.nothingToUninstall}`];
  const lines: string[] = [];
  const would = report.dryRun;
  const suffix = (browser: string | undefined) => (browser === undefined ? '' : ` (${browser})`);
  for (const action of report.actions) {
    switch (action.type) {
      case 'remove':
        lines.push(`${would ? 'would remove' : 'removed'} ${action.path}${suffix(action.browser ?? action.role)}`);
        break;
      case 'registry-delete':
        lines.push(
          would ? `would run ${action.command} (${action.browser})` : `removed ${action.key} (${action.browser})`,
        );
        break;
      case 'remove-directory':
        lines.push(`removed empty directory ${action.path}`);
        break;
      case 'already-gone':
        lines.push(`already gone: ${action.target}${suffix(action.browser)}`);
        break;
      case 'keep':
        lines.push(`left alone: ${action.target}${suffix(action.browser)}: ${action.reason}`);
        break;
    }
  }
  if (would) {
    lines.push('dry run: nothing was removed');
  } else {
    lines.push(`${report.record.removed ? 'removed' : 'updated'} the install record ${report.record.path}`);
  }
  return lines;
}

function formatMode(mode: number): string {
  return `0${mode.toString(8)}`;
}
