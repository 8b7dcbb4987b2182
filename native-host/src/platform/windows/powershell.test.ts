import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';

import { AppError } from '@nextai/shared';
import { afterEach, describe, expect, it } from 'vitest';

import {
  BLOCKED_INPUT_MESSAGE,
  CONSTRAINED_LANGUAGE_MESSAGE,
  NO_DESKTOP_MESSAGE,
  ONE_SHOT_BOOTSTRAP,
  PERSISTENT_BOOTSTRAP,
  POWERSHELL_MISSING_MESSAGE,
  POWERSHELL_PRELUDE,
  REPLY_MARKER,
  oneShotPowerShellHost,
  parseOneShotOutput,
  persistentPowerShellHost,
  powershellCommand,
  powershellError,
  type PowerShellProcess,
} from './powershell.js';
import { HOSTILE_STRINGS } from './test-support.js';

const decode = (base64: string) => Buffer.from(base64, 'base64').toString('utf16le');

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('one-shot powershell command', () => {
  it('runs powershell.exe with a constant encoded bootstrap and the script and request on stdin', () => {
    const spec = powershellCommand('param($Request) @{ a = 1 }', { op: 'x' });
    expect(spec.command).toBe('powershell.exe');
    expect(spec.args.slice(0, 6)).toEqual([
      '-NoLogo',
      '-NoProfile',
      '-NonInteractive',
      '-ExecutionPolicy',
      'Bypass',
      '-EncodedCommand',
    ]);
    expect(spec.args).toHaveLength(7);
    expect(decode(spec.args[6]!)).toBe(ONE_SHOT_BOOTSTRAP);
    expect(JSON.parse(spec.input!)).toEqual({ script: 'param($Request) @{ a = 1 }', request: { op: 'x' } });
  });

  it('keeps every hostile string as data: ASCII-only stdin that decodes to the exact text, never on the command line', () => {
    for (const text of HOSTILE_STRINGS) {
      const spec = powershellCommand('param($Request)', { text });
      expect(spec.input).toMatch(/^[\x20-\x7e]*$/);
      expect((JSON.parse(spec.input!) as { request: { text: string } }).request.text).toBe(text);
      expect(spec.args.join(' ')).not.toContain(text.slice(0, 20));
      expect(spec.args).toEqual(powershellCommand('param($Request)', { text: 'other' }).args);
    }
  });

  it('fits the Windows command-line limit (32,767 characters) with both bootstraps', () => {
    for (const bootstrap of [ONE_SHOT_BOOTSTRAP, PERSISTENT_BOOTSTRAP]) {
      const encoded = Buffer.from(bootstrap, 'utf16le').toString('base64');
      expect(encoded.length).toBeLessThan(32_000);
    }
  });

  it('has a prelude that replies on a marked line with ASCII JSON and maps errors by code', () => {
    expect(POWERSHELL_PRELUDE).toContain("$ErrorActionPreference = 'Stop'");
    expect(POWERSHELL_PRELUDE).toContain("'NEXTAI-REPLY ' + $Id + ' '");
    expect(POWERSHELL_PRELUDE).toContain('ConvertTo-Json -InputObject $reply -Depth 12 -Compress');
    expect(POWERSHELL_PRELUDE).toContain("'[^\\x00-\\x7e]'");
    expect(POWERSHELL_PRELUDE).toContain("$exception.Data['nextaiCode'] = $Code");
    expect(PERSISTENT_BOOTSTRAP).toContain('[Console]::In.ReadLine()');
    expect(PERSISTENT_BOOTSTRAP).toContain('[Console]::Out.Flush()');
  });
});

describe('reply parsing and error mapping', () => {
  it('takes the marked reply line and ignores stray output', () => {
    const stdout = `WARNING: something\r\n${REPLY_MARKER} 0 {"ok":true,"value":{"x":"\\u4e2d"}}\r\n`;
    expect(parseOneShotOutput(stdout)).toEqual({ x: '中' });
  });

  it('says what PowerShell printed when there is no reply', async () => {
    const error = await rejection(Promise.resolve().then(() => parseOneShotOutput('garbage')));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('garbage');
  });

  it('maps script failures to codes that say what to fix', () => {
    expect(powershellError({ code: 'NOT_FOUND', message: 'no window' }).code).toBe('NOT_FOUND');
    expect(powershellError({ code: 'BLOCKED_INPUT', message: 'x' })).toMatchObject({
      code: 'UNAVAILABLE',
      message: BLOCKED_INPUT_MESSAGE,
    });
    expect(powershellError({ code: 'NO_DESKTOP', message: 'x' })).toMatchObject({
      code: 'UNAVAILABLE',
      message: NO_DESKTOP_MESSAGE,
    });
    expect(
      powershellError({
        message: 'Cannot invoke method. Method invocation is supported only on core types in this language mode.',
      }),
    ).toMatchObject({ code: 'UNAVAILABLE', message: CONSTRAINED_LANGUAGE_MESSAGE });
    expect(powershellError({ type: 'System.UnauthorizedAccessException', message: 'Access denied' }).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(powershellError({ code: 'WHATEVER', message: 'boom' })).toMatchObject({
      code: 'TOOL_FAILED',
      message: 'A Windows PowerShell script failed: boom',
    });
  });
});

describe('oneShotPowerShellHost', () => {
  it('resolves with the value', async () => {
    const host = oneShotPowerShellHost(async () => ({
      stdout: `${REPLY_MARKER} 0 {"ok":true,"value":42}\n`,
      stderr: '',
      exitCode: 0,
    }));
    await expect(host.run('param($Request)', {})).resolves.toBe(42);
  });

  it('reports missing PowerShell as UNAVAILABLE with the fix', async () => {
    const host = oneShotPowerShellHost(async () => {
      throw new AppError('NOT_FOUND', "Couldn't find the `powershell.exe` program.");
    });
    const error = await rejection(host.run('x', {}));
    expect(error).toMatchObject({ code: 'UNAVAILABLE', message: POWERSHELL_MISSING_MESSAGE });
  });

  it('names stderr, not the encoded command line, when powershell.exe fails', async () => {
    const host = oneShotPowerShellHost(async (spec) => {
      throw new AppError('TOOL_FAILED', `\`${spec.command} ${spec.args.join(' ')}\` exited with code 1`, {
        details: { stderr: 'At line:1 char:1 unexpected token' },
      });
    });
    const error = await rejection(host.run('x', {}));
    expect(error.message).toBe('powershell.exe failed: At line:1 char:1 unexpected token');
  });

  it('maps Constrained Language Mode on stderr to UNAVAILABLE', async () => {
    const host = oneShotPowerShellHost(async () => {
      throw new AppError('TOOL_FAILED', 'x', { details: { stderr: 'only on core types in this language mode' } });
    });
    expect(await rejection(host.run('x', {}))).toMatchObject({
      code: 'UNAVAILABLE',
      message: CONSTRAINED_LANGUAGE_MESSAGE,
    });
  });
});

/** A stand-in powershell.exe: records stdin lines, answers through `reply`. */
class FakeProcess extends EventEmitter {
  stdin = new PassThrough();
  stdout = new PassThrough();
  stderr = new PassThrough();
  lines: Array<{ id: string; script: string; request: unknown }> = [];
  killed = false;
  ended = false;

  constructor(reply?: (message: { id: string; request: unknown }, process: FakeProcess) => void) {
    super();
    let buffer = '';
    this.stdin.setEncoding('utf8');
    this.stdin.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, newline)) as { id: string; script: string; request: unknown };
        buffer = buffer.slice(newline + 1);
        this.lines.push(message);
        reply?.(message, this);
      }
    });
    this.stdin.on('finish', () => {
      this.ended = true;
    });
  }

  answer(id: string, value: unknown) {
    this.stdout.write(`${REPLY_MARKER} ${id} ${JSON.stringify({ ok: true, value })}\r\n`);
  }

  kill() {
    this.killed = true;
    setImmediate(() => this.emit('exit', null, 'SIGTERM'));
  }
}

function fakeSpawner(reply?: (message: { id: string; request: unknown }, process: FakeProcess) => void) {
  const processes: FakeProcess[] = [];
  const spawned: Array<{ command: string; args: string[] }> = [];
  return {
    processes,
    spawned,
    spawn: (command: string, args: string[]) => {
      spawned.push({ command, args });
      const process = new FakeProcess(reply);
      processes.push(process);
      return process as unknown as PowerShellProcess;
    },
  };
}

describe('persistentPowerShellHost', () => {
  const hosts: Array<{ dispose(): void }> = [];
  afterEach(() => {
    for (const host of hosts.splice(0)) host.dispose();
  });

  it('serves many calls from one process, one JSON line each, replies matched by id', async () => {
    const fake = fakeSpawner((message, process) => process.answer(message.id, { echo: message.request }));
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    await expect(host.run('S1', { n: 1 })).resolves.toEqual({ echo: { n: 1 } });
    await expect(host.run('S2', { n: 2 })).resolves.toEqual({ echo: { n: 2 } });
    expect(fake.spawned).toHaveLength(1);
    expect(decode(fake.spawned[0]!.args.at(-1)!)).toBe(PERSISTENT_BOOTSTRAP);
    expect(fake.processes[0]!.lines.map((line) => [line.id, line.script])).toEqual([
      ['1', 'S1'],
      ['2', 'S2'],
    ]);
  });

  it('sends hostile text as ASCII JSON lines that decode to the exact text', async () => {
    let raw = '';
    const fake = fakeSpawner((message, process) => process.answer(message.id, message.request));
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    for (const text of HOSTILE_STRINGS) {
      const value = await host.run('S', { text });
      expect(value).toEqual({ text });
    }
    fake.processes[0]!.stdin.on('data', (chunk: string) => (raw += chunk));
    await host.run('S', { text: HOSTILE_STRINGS[3]! });
    expect(raw).toMatch(/^[\x20-\x7e]*\n$/);
  });

  it('runs calls one at a time, in order', async () => {
    const fake = fakeSpawner();
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    const first = host.run('A', {});
    const second = host.run('B', {});
    await new Promise((resolve) => setImmediate(resolve));
    const process = fake.processes[0]!;
    expect(process.lines.map((line) => line.script)).toEqual(['A']);
    process.answer('1', 'a');
    await expect(first).resolves.toBe('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(process.lines.map((line) => line.script)).toEqual(['A', 'B']);
    process.answer('2', 'b');
    await expect(second).resolves.toBe('b');
  });

  it('reassembles replies split across chunks and skips stray lines and stale ids', async () => {
    const fake = fakeSpawner((message, process) => {
      const line = `${REPLY_MARKER} ${message.id} {"ok":true,"value":"done"}\n`;
      process.stdout.write('stray output\n');
      process.stdout.write(`${REPLY_MARKER} 999 {"ok":true,"value":"stale"}\n`);
      process.stdout.write(line.slice(0, 10));
      setImmediate(() => process.stdout.write(line.slice(10)));
    });
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    await expect(host.run('S', {})).resolves.toBe('done');
  });

  it('maps a script failure reply to its AppError', async () => {
    const fake = fakeSpawner((message, process) =>
      process.stdout.write(`${REPLY_MARKER} ${message.id} {"ok":false,"code":"NOT_FOUND","message":"gone"}\n`),
    );
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    expect(await rejection(host.run('S', {}))).toMatchObject({ code: 'NOT_FOUND', message: 'gone' });
  });

  it('kills a process whose call times out, and starts a fresh one for the next call', async () => {
    let silent = true;
    const fake = fakeSpawner((message, process) => {
      if (!silent) process.answer(message.id, 'ok');
    });
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    const error = await rejection(host.run('S', {}, { timeoutMs: 20 }));
    expect(error.code).toBe('TIMEOUT');
    expect(fake.processes[0]!.killed).toBe(true);
    silent = false;
    await expect(host.run('S', {})).resolves.toBe('ok');
    expect(fake.processes).toHaveLength(2);
  });

  it('rejects the call with stderr when the process dies during it', async () => {
    const fake = fakeSpawner((_message, process) => {
      process.stderr.write('Add-Type : compilation failed\n');
      setImmediate(() => process.emit('exit', 1, null));
    });
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    const error = await rejection(host.run('S', {}));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toContain('exited with code 1');
    expect(error.message).toContain('Add-Type : compilation failed');
  });

  it('reports a missing powershell.exe as UNAVAILABLE', async () => {
    const fake = fakeSpawner();
    const host = persistentPowerShellHost({
      spawn: (command, args) => {
        const process = fake.spawn(command, args);
        setImmediate(() =>
          (process as unknown as FakeProcess).emit(
            'error',
            Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' }),
          ),
        );
        return process;
      },
    });
    hosts.push(host);
    expect(await rejection(host.run('S', {}))).toMatchObject({
      code: 'UNAVAILABLE',
      message: POWERSHELL_MISSING_MESSAGE,
    });
  });

  it('cancels: kills the process and rejects with EMERGENCY_STOPPED', async () => {
    const fake = fakeSpawner();
    const host = persistentPowerShellHost({ spawn: fake.spawn });
    hosts.push(host);
    const controller = new AbortController();
    const call = host.run('S', {}, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await rejection(call)).toMatchObject({ code: 'EMERGENCY_STOPPED' });
    expect(fake.processes[0]!.killed).toBe(true);
  });

  it('closes stdin of an idle process so it exits by itself', async () => {
    const fake = fakeSpawner((message, process) => process.answer(message.id, 1));
    const host = persistentPowerShellHost({ spawn: fake.spawn, idleMs: 10 });
    hosts.push(host);
    await host.run('S', {});
    const process = fake.processes[0]!;
    const deadline = Date.now() + 2000;
    while (!process.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(process.ended).toBe(true);
    await host.run('S', {});
    expect(fake.processes).toHaveLength(2);
  });

  it('works over real pipes with a real child process standing in for powershell.exe', async () => {
    // A node program that speaks the same line protocol as PERSISTENT_BOOTSTRAP.
    const server = `
      const readline = require('node:readline');
      process.stdout.write('banner line\\n');
      readline.createInterface({ input: process.stdin }).on('line', (line) => {
        const message = JSON.parse(line);
        const value = { length: message.request.text.length, text: message.request.text };
        process.stdout.write('${REPLY_MARKER} ' + message.id + ' ' + JSON.stringify({ ok: true, value }) + '\\r\\n');
      });`;
    const host = persistentPowerShellHost({
      spawn: () => spawn(process.execPath, ['-e', server], { stdio: ['pipe', 'pipe', 'pipe'] }),
    });
    hosts.push(host);
    for (const text of HOSTILE_STRINGS) {
      await expect(host.run('S', { text })).resolves.toEqual({ length: text.length, text });
    }
  });
});
