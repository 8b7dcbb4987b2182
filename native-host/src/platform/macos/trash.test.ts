import { AppError } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { jxaCommand, type JxaHost } from './jxa.js';
import { createMacosTrash, TRASH_SCRIPT } from './trash.js';

function recordingHost(reply: unknown | Error) {
  const calls: { script: string; request: unknown }[] = [];
  const jxa: JxaHost = {
    run: async (script, request) => {
      calls.push({ script, request });
      if (reply instanceof Error) throw reply;
      return reply;
    },
  };
  return { jxa, calls };
}

describe('macOS trash', () => {
  it('runs the constant NSFileManager script with the path as data and returns where the item went', async () => {
    const { jxa, calls } = recordingHost('/Users/me/.Trash/it\'s "here" 中.txt');
    const path = '/Users/me/it\'s "here" 中.txt';
    const result = await createMacosTrash({ jxa }).moveToTrash(path);
    expect(result).toEqual({ trashedTo: '/Users/me/.Trash/it\'s "here" 中.txt' });
    expect(calls).toEqual([{ script: TRASH_SCRIPT, request: { path } }]);
    expect(TRASH_SCRIPT).toContain('trashItemAtURLResultingItemURLError');
  });

  it('keeps the path out of the osascript arguments: it is ASCII-escaped JSON on stdin', () => {
    const path = '/Users/me/a "quoted" \'name\' $(x) `y` 文件.txt';
    const spec = jxaCommand(TRASH_SCRIPT, { path });
    expect(spec.command).toBe('osascript');
    expect(spec.args.slice(0, 3)).toEqual(['-l', 'JavaScript', '-e']);
    expect(spec.args.join(' ')).not.toContain('quoted');
    expect(spec.input).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(spec.input as string)).toEqual({ path });
  });

  it('passes on the script errors (not found, permission) and refuses relative paths', async () => {
    const { jxa } = recordingHost(new AppError('NOT_FOUND', '/x does not exist'));
    await expect(createMacosTrash({ jxa }).moveToTrash('/x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(createMacosTrash({ jxa }).moveToTrash('relative/x')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});
