import { describe, expect, it } from 'vitest';

import { runDoctor, type DoctorProbes } from './doctor.js';

function probes(overrides: Partial<DoctorProbes> = {}): DoctorProbes {
  return {
    which: (program) => `/usr/bin/${program}`,
    hasPackage: () => true,
    display: async (env) => env.DISPLAY ?? ':0',
    windowManager: async () => true,
    jxa: async () => 'true',
    ...overrides,
  };
}

describe('nextai doctor', () => {
  it('says everything is there on a complete Linux desktop', async () => {
    const checks = await runDoctor('linux', { DISPLAY: ':0' }, probes());
    expect(checks.filter((check) => check.status !== 'ok')).toEqual([]);
    expect(checks.map((check) => check.id)).toEqual(
      expect.arrayContaining(['display', 'xdotool', 'wmctrl', 'xprop', 'xclip', 'notify-send', 'ocr-data', 'node-pty']),
    );
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

  it('on macOS, names the privacy settings for missing Screen Recording and Accessibility permissions', async () => {
    const checks = await runDoctor('macos', {}, probes({ jxa: async () => 'false' }));
    expect(checks.filter((check) => check.status === 'missing').map((check) => check.fix)).toEqual([
      expect.stringContaining('Privacy & Security › Screen Recording'),
      expect.stringContaining('Privacy & Security › Accessibility'),
    ]);
  });

  it('on this machine, the real probes find the OCR data and native modules', async () => {
    const checks = await runDoctor('linux', {});
    for (const id of ['ocr-data', 'node-pty', 'sharp']) {
      expect(checks.find((check) => check.id === id)).toMatchObject({ status: 'ok' });
    }
  });
});
