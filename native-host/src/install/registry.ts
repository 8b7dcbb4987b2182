/**
 * Windows registry commands, built as argument arrays for `runCommand` (never a shell string).
 * Only the command construction and output parsing are exercised on Linux; the commands are the
 * ones Chrome's and MDN's documentation give for per-user hosts.
 */

export const REG_COMMAND = 'reg.exe';

/** `reg add <key> /ve /t REG_SZ /d <manifest path> /f`: sets the key's default value, overwriting. */
export function regAddArgs(key: string, manifestPath: string): string[] {
  return ['add', key, '/ve', '/t', 'REG_SZ', '/d', manifestPath, '/f'];
}

/** `reg delete <key> /f`: removes the key without asking. */
export function regDeleteArgs(key: string): string[] {
  return ['delete', key, '/f'];
}

/** `reg query <key> /ve`: prints the key's default value; exits 1 when the key does not exist. */
export function regQueryArgs(key: string): string[] {
  return ['query', key, '/ve'];
}

/**
 * The default value from `reg query <key> /ve` output, e.g.
 * `    (Default)    REG_SZ    C:\Users\u\.nextai-agent\native-messaging\chrome\com.nextai.agent.json`.
 * "(Default)" is translated on localized Windows, so the value is found after the type instead.
 */
export function parseRegDefaultValue(stdout: string): string | undefined {
  const match = /\sREG_(?:EXPAND_)?SZ[ \t]+([^\r\n]*?)[ \t]*\r?$/m.exec(stdout);
  return match?.[1];
}

/** How a command is shown to a person (`--dry-run`): cmd.exe-style quoting where needed. */
export function formatWindowsCommand(command: string, args: readonly string[]): string {
  const quote = (arg: string) => (arg === '' || /[\s"&|<>^()]/.test(arg) ? `"${arg.replace(/"/g, '\\"')}"` : arg);
  return [command, ...args].map(quote).join(' ');
}
