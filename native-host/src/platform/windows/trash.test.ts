import { describe, expect, it } from 'vitest';

import { powershellCommand } from './powershell.js';
import { fakePowerShell, HOSTILE_STRINGS } from './test-support.js';
import { createWindowsTrash, RECYCLE_BIN, WINDOWS_TRASH_SCRIPT, WINDOWS_TRASH_TIMEOUT_MS } from './trash.js';

describe('Windows trash (Recycle Bin)', () => {
  it('runs the constant script with the path as request data, for any name', async () => {
    const host = fakePowerShell(() => ({ trashed: true }));
    const trash = createWindowsTrash({ powershell: host });
    for (const name of HOSTILE_STRINGS.slice(0, 6)) {
      const path = `C:\\Users\\me\\${name}`;
      expect(await trash.moveToTrash(path)).toEqual({ trashedTo: RECYCLE_BIN });
      expect(host.calls.at(-1)).toEqual({
        script: WINDOWS_TRASH_SCRIPT,
        request: { path },
        options: { timeoutMs: WINDOWS_TRASH_TIMEOUT_MS },
      });
    }
    expect(WINDOWS_TRASH_SCRIPT).toContain("'SendToRecycleBin'");
    expect(WINDOWS_TRASH_SCRIPT).not.toContain('DeletePermanently');
  });

  it('keeps the path off the command line: ASCII JSON on stdin only', () => {
    const path = 'D:\\共享\\it\'s "a" $(calc) `x` 📄.docx';
    const spec = powershellCommand(WINDOWS_TRASH_SCRIPT, { path });
    expect(spec.command).toBe('powershell.exe');
    expect(spec.args).toContain('-EncodedCommand');
    expect(spec.args.join(' ')).not.toContain('calc');
    expect(spec.input).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(spec.input as string)).toEqual({ script: WINDOWS_TRASH_SCRIPT, request: { path } });
  });

  it('passes on the script failures with their codes, and refuses relative paths', async () => {
    const missing = fakePowerShell(() => ({ ok: false, code: 'NOT_FOUND', message: 'C:\\x does not exist' }));
    await expect(createWindowsTrash({ powershell: missing }).moveToTrash('C:\\x')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const host = fakePowerShell(() => ({ trashed: true }));
    await expect(createWindowsTrash({ powershell: host }).moveToTrash('relative\\x')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(createWindowsTrash({ powershell: host }).moveToTrash('\\\\server\\share\\x')).resolves.toEqual({
      trashedTo: RECYCLE_BIN,
    });
    expect(host.calls).toHaveLength(1);
  });
});
