import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { HOSTILE_STRINGS } from '../windows/test-support.js';
import {
  ACCESSIBILITY_MESSAGE,
  AUTOMATION_MESSAGE,
  JXA_PRELUDE,
  SCREEN_RECORDING_MESSAGE,
  jxaCommand,
  jxaError,
  oneShotJxaHost,
  osascriptFailure,
  parseJxaReply,
} from './jxa.js';
import { asciiJson } from '../command-exec.js';
import { fakeObjC, loadJxa } from './jxa-sandbox.js';

describe('jxaCommand', () => {
  it('runs osascript with a constant script and the request as ASCII JSON on stdin', () => {
    for (const text of HOSTILE_STRINGS) {
      const spec = jxaCommand('function main(r) { return r; }', { text });
      expect(spec.command).toBe('osascript');
      expect(spec.args).toEqual(['-l', 'JavaScript', '-e', `${JXA_PRELUDE}\nfunction main(r) { return r; }`]);
      expect(spec.input).toMatch(/^[\x20-\x7e]*$/);
      expect((JSON.parse(spec.input!) as { text: string }).text).toBe(text);
    }
  });

  it('escapes every non-ASCII unit, surrogates included', () => {
    expect(asciiJson({ t: '中😀' })).toBe('{"t":"\\u4e2d\\ud83d\\ude00"}');
  });
});

describe('the prelude (run in a stand-in JXA)', () => {
  function runWithStdin(script: string, stdin: string): unknown {
    const $ = {
      NSFileHandle: { fileHandleWithStandardInput: { readDataToEndOfFile: stdin } },
      NSString: { alloc: { initWithDataEncoding: (data: string) => data } },
      NSUTF8StringEncoding: 4,
    };
    const { run } = loadJxa(script, { $, ObjC: fakeObjC() }, ['run']);
    const printed = run() as string;
    expect(printed).toMatch(/^[\x20-\x7e]*$/);
    return JSON.parse(printed);
  }

  it('calls main with the request and prints ASCII JSON', () => {
    const request = asciiJson({ text: HOSTILE_STRINGS[4] });
    expect(runWithStdin('function main(r) { return { echo: r.text }; }', request)).toEqual({
      ok: true,
      value: { echo: HOSTILE_STRINGS[4] },
    });
  });

  it('reports nextaiFail codes and Apple event error numbers', () => {
    expect(runWithStdin("function main() { nextaiFail('NOT_FOUND', 'gone'); }", '{}')).toEqual({
      ok: false,
      code: 'NOT_FOUND',
      number: null,
      message: 'gone',
    });
    expect(
      runWithStdin("function main() { var e = new Error('not allowed'); e.errorNumber = -1743; throw e; }", '{}'),
    ).toEqual({ ok: false, code: null, number: -1743, message: 'not allowed' });
  });
});

describe('errors', () => {
  it('name the System Settings pane for each missing permission', () => {
    expect(jxaError({ code: null, number: -1719, message: 'x' })).toMatchObject({
      code: 'UNAVAILABLE',
      message: ACCESSIBILITY_MESSAGE,
    });
    expect(jxaError({ code: 'NEEDS_ACCESSIBILITY', number: null, message: 'x' }).message).toContain('Accessibility');
    expect(jxaError({ code: null, number: -1743, message: 'x' })).toMatchObject({ message: AUTOMATION_MESSAGE });
    expect(jxaError({ code: 'NEEDS_SCREEN_RECORDING', number: null, message: 'x' })).toMatchObject({
      message: SCREEN_RECORDING_MESSAGE,
    });
    expect(SCREEN_RECORDING_MESSAGE).toContain('Screen Recording');
    expect(AUTOMATION_MESSAGE).toContain('Automation');
    expect(jxaError({ code: 'NOT_FOUND', number: null, message: 'no window' }).code).toBe('NOT_FOUND');
    expect(jxaError({ code: null, number: -600, message: 'not running' }).message).toContain('(error -600)');
  });

  it('parse replies and refuse anything else', () => {
    expect(parseJxaReply('{"ok":true,"value":[1]}\n')).toEqual([1]);
    expect(() => parseJxaReply('execution error')).toThrow(/unexpected/);
  });

  it('map osascript failing before the script ran by the number at the end of stderr', () => {
    const failed = new AppError('TOOL_FAILED', 'x', {
      details: { stderr: 'execution error: Not authorised to send Apple events to System Events. (-1743)\n' },
    });
    expect(osascriptFailure(failed)).toMatchObject({ code: 'UNAVAILABLE', message: AUTOMATION_MESSAGE });
  });

  it('one-shot host resolves values and maps failures', async () => {
    const host = oneShotJxaHost(async () => ({
      stdout: '{"ok":false,"code":null,"number":-1719,"message":"x"}',
      stderr: '',
      exitCode: 0,
    }));
    await expect(host.run('s', {})).rejects.toMatchObject({ message: ACCESSIBILITY_MESSAGE });
  });
});
