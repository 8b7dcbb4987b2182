import { describe, expect, it } from 'vitest';

import { formatWindowsCommand, parseRegDefaultValue, regAddArgs, regDeleteArgs, regQueryArgs } from './registry.js';

const key = 'HKCU\\Software\\Google\\Chrome\\NativeMessagingHosts\\com.nextai.agent';
const manifest = 'C:\\Users\\Ada Lovelace\\.nextai-agent\\native-messaging\\chrome\\com.nextai.agent.json';

describe('reg.exe commands', () => {
  it('sets the default value of the key to the manifest path, overwriting without a prompt', () => {
    expect(regAddArgs(key, manifest)).toEqual(['add', key, '/ve', '/t', 'REG_SZ', '/d', manifest, '/f']);
  });

  it('deletes and queries the key', () => {
    expect(regDeleteArgs(key)).toEqual(['delete', key, '/f']);
    expect(regQueryArgs(key)).toEqual(['query', key, '/ve']);
  });

  it('shows the command with the path quoted, as a person would type it', () => {
    expect(formatWindowsCommand('reg.exe', regAddArgs(key, manifest))).toBe(
      `reg.exe add ${key} /ve /t REG_SZ /d "${manifest}" /f`,
    );
  });
});

describe('parseRegDefaultValue', () => {
  it('reads the value after the type, whatever "(Default)" is called in the Windows language', () => {
    const english = `\r\n${key}\r\n    (Default)    REG_SZ    ${manifest}\r\n\r\n`;
    const german = `\r\n${key}\r\n    (Standard)    REG_SZ    ${manifest}\r\n\r\n`;
    const french = `\r\n${key}\r\n    (par défaut)    REG_SZ    ${manifest}\r\n\r\n`;
    expect(parseRegDefaultValue(english)).toBe(manifest);
    expect(parseRegDefaultValue(german)).toBe(manifest);
    expect(parseRegDefaultValue(french)).toBe(manifest);
  });

  it('gives undefined when there is no string value', () => {
    expect(parseRegDefaultValue(`\r\n${key}\r\n\r\n`)).toBeUndefined();
  });
});
