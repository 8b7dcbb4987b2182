import { describe, expect, it } from 'vitest';

import { runDoctor, type DoctorProbes } from './doctor.js';

function probes(overrides: Partial<DoctorProbes> = {}): DoctorProbes {
  return {
    which: (program) => `/usr/bin/${program}`,
    hasPackage: () => true,
    display: async (env) => env.DISPLAY ?? ':0',
    windowManager: async () => true,
    jxa: async () => 'true',
    sandbox: () => ({ available: true, mechanism: 'bubblewrap', version: '0.8.0' }),
    networkFileSystem: async () => undefined,
    ...overrides,
  };
}

describe('nextai doctor', () => {
  it('says everything is there on a complete Linux desktop', async () => {
    const checks = await runDoctor('linux', { DISPLAY: ':0' }, probes());
    expect(checks.filter((check) => check.status !== 'ok')).toEqual([]);
    expect(checks.map((check) => check.id)).toEqual(
      expect.arrayContaining(['sandbox', 'display', 'xdotool', 'wmctrl', 'xprop', 'xclip', 'notify-send', 'ocr-data']),
    );
  });

  it('says when no sandbox can start, that commands then ask, and how to fix it', async () => {
    const checks = await runDoctor(
      'linux',
      { DISPLAY: ':0' },
      probes({
        sandbox: () => ({
          available: false,
          mechanism: 'bubblewrap',
          reason: { en: 'bubblewrap (bwrap) is not installed', 'zh-CN': '没有安装 bubblewrap（bwrap）' },
          fix: 'sudo apt install bubblewrap',
        }),
      }),
    );
    expect(checks.find((check) => check.id === 'sandbox')).toEqual({
      id: 'sandbox',
      title: 'Sandbox',
      status: 'missing',
      detail:
        'bubblewrap (bwrap) is not installed: every command and app asks you first, and nothing runs unconfined without you',
      fix: 'sudo apt install bubblewrap',
      needed_for: 'running commands and apps without asking (bash_execute, bash_session, app_launch)',
    });
    // Windows has no sandbox yet: said plainly, as a warning rather than something to install.
    const windows = await runDoctor(
      'windows',
      {},
      probes({
        sandbox: () => ({
          available: false,
          mechanism: 'none',
          reason: { en: 'Windows has no sandbox in NextAI yet', 'zh-CN': 'NextAI 在 Windows 上还没有沙箱' },
        }),
      }),
    );
    expect(windows.find((check) => check.id === 'sandbox')).toMatchObject({ status: 'warning' });
  });

  it('names the Debian package for each missing helper program', async () => {
    const checks = await runDoctor(
      'linux',
      { DISPLAY: ':0' },
      probes({
        which: (program) => (['xdotool', 'xclip', 'xsel'].includes(program) ? undefined : `/usr/bin/${program}`),
      }),
    );
    const missing = checks.filter((check) => check.status === 'missing');
    expect(missing.map((check) => [check.id, check.fix])).toEqual([
      ['xdotool', 'sudo apt install xdotool'],
      ['xclip', 'sudo apt install xclip'],
    ]);
  });

  it('accepts xsel when xclip is missing', async () => {
    const checks = await runDoctor('linux', {}, probes({ which: (p) => (p === 'xclip' ? undefined : `/bin/${p}`) }));
    expect(checks.find((check) => check.id === 'xclip')).toMatchObject({ status: 'ok', detail: '/bin/xsel' });
  });

  it('with no display, says how to give the daemon one', async () => {
    const checks = await runDoctor(
      'linux',
      {},
      probes({
        display: async () => {
          throw new Error('No display: DISPLAY is not set');
        },
      }),
    );
    expect(checks.find((check) => check.id === 'display')).toMatchObject({
      status: 'missing',
      detail: 'No display: DISPLAY is not set',
      fix: expect.stringContaining('DISPLAY=:0'),
    });
  });

  it('warns when no window manager runs', async () => {
    const checks = await runDoctor('linux', { DISPLAY: ':5' }, probes({ windowManager: async () => false }));
    expect(checks.find((check) => check.id === 'display')).toMatchObject({
      status: 'warning',
      fix: expect.any(String),
    });
  });

  it('reports missing OCR language data and native modules with the fix', async () => {
    const checks = await runDoctor(
      'linux',
      { DISPLAY: ':0' },
      probes({ hasPackage: (name) => !name.includes('chi_sim') }),
    );
    expect(checks.find((check) => check.id === 'ocr-data')).toMatchObject({
      status: 'missing',
      detail: 'missing packages: @tesseract.js-data/chi_sim',
    });
  });

  it('warns, without failing, when the data folder is on a network file system, and says where to keep it', async () => {
    const asked: string[] = [];
    const checks = await runDoctor(
      'linux',
      { DISPLAY: ':0', NEXTAI_HOME: '/mnt/share/nextai' },
      probes({
        networkFileSystem: async (dir) => {
          asked.push(dir);
          return { type: 'nfs4', mountPoint: '/mnt/share' };
        },
      }),
    );
    expect(asked).toEqual(['/mnt/share/nextai']);
    expect(checks.find((check) => check.id === 'data-folder')).toEqual({
      id: 'data-folder',
      title: 'Data folder',
      status: 'warning',
      detail: expect.stringContaining(
        "The data folder /mnt/share/nextai is on a network file system (nfs4, mounted at /mnt/share). SQLite's file locking is unreliable there",
      ),
      fix: expect.stringContaining('set NEXTAI_HOME to its new place'),
      needed_for: expect.any(String),
    });
    expect(checks.filter((check) => check.status === 'missing')).toEqual([]);
    const local = await runDoctor('linux', { DISPLAY: ':0', NEXTAI_HOME: '/home/me/.nextai' }, probes());
    expect(local.find((check) => check.id === 'data-folder')).toMatchObject({ status: 'ok' });
  });

  it('on macOS, names the privacy settings for missing Screen Recording and Accessibility permissions', async () => {
    const checks = await runDoctor('macos', {}, probes({ jxa: async () => 'false' }));
    expect(checks.filter((check) => check.status === 'missing').map((check) => check.fix)).toEqual([
      expect.stringContaining('Privacy & Security › Screen Recording'),
      expect.stringContaining('Privacy & Security › Accessibility'),
    ]);
  });

  it('on this machine, the real probes find the OCR data, native modules and bubblewrap', async () => {
    const checks = await runDoctor('linux', {});
    for (const id of ['ocr-data', 'node-pty', 'sharp', 'koffi', 'sandbox']) {
      expect(checks.find((check) => check.id === id)).toMatchObject({ status: 'ok' });
    }
  });
});
