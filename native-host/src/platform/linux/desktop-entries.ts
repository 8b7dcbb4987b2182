import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Freedesktop `.desktop` files (the Desktop Entry Specification): how `app_launch` finds an app
 * the person calls by its menu name ("Firefox ESR", "Text Editor") rather than by its program.
 */
export interface DesktopEntry {
  /** The desktop file id, e.g. "firefox-esr" for firefox-esr.desktop. */
  id: string;
  file: string;
  name: string;
  /** Every Name / Name[locale] / GenericName value, for matching. */
  names: string[];
  exec: string;
  terminal: boolean;
}

/** `$XDG_DATA_HOME/applications` first, then each `$XDG_DATA_DIRS/applications`, as the spec orders them. */
export function applicationDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || os.homedir();
  // The XDG Base Directory spec: relative paths in these variables are invalid and ignored.
  const dataHome =
    env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(home, '.local', 'share');
  const listed = (env.XDG_DATA_DIRS ?? '').split(':').filter((dir) => path.isAbsolute(dir));
  const dataDirs = listed.length > 0 ? listed : ['/usr/local/share', '/usr/share'];
  return [...new Set([dataHome, ...dataDirs].map((dir) => path.join(dir, 'applications')))];
}

/**
 * Reads the launchable entries (Type=Application, not Hidden) of the given directories and one
 * level of subdirectories (some packages install into applications/kde4/ and the like). An id
 * found earlier shadows the same id later, as the spec says, even when the earlier one is Hidden
 * (that is how a person deletes a system-wide entry).
 */
export async function readDesktopEntries(dirs: string[]): Promise<DesktopEntry[]> {
  const byId = new Map<string, DesktopEntry>();
  // Ids already decided, launchable or not: a user's Hidden=true copy deletes the system entry.
  const seen = new Set<string>();
  for (const dir of dirs) {
    for (const file of await listDesktopFiles(dir, 1)) {
      const id = path
        .relative(dir, file)
        .replace(/\.desktop$/u, '')
        .split(path.sep)
        .join('-');
      if (seen.has(id)) continue;
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch {
        continue; // Unreadable entries are skipped like the menu skips them.
      }
      seen.add(id);
      const entry = parseDesktopEntry(id, file, text);
      if (entry) byId.set(id, entry);
    }
  }
  return [...byId.values()];
}

async function listDesktopFiles(dir: string, depth: number): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return []; // A data directory without applications/ is normal.
  }
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) files.push(...(await listDesktopFiles(full, depth - 1)));
    else if (entry.name.endsWith('.desktop')) files.push(full);
  }
  return files;
}

/** Parses the [Desktop Entry] group; undefined for entries that cannot be launched. */
export function parseDesktopEntry(id: string, file: string, text: string): DesktopEntry | undefined {
  const values = new Map<string, string>();
  let inMainGroup = false;
  for (const rawLine of text.split(/\r?\n/u)) {
    const line = rawLine.trim();
    if (line.startsWith('[')) {
      inMainGroup = line === '[Desktop Entry]';
      continue;
    }
    if (!inMainGroup || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) continue;
    const key = line.slice(0, equals).trim();
    if (!values.has(key)) values.set(key, line.slice(equals + 1).trim());
  }
  const name = values.get('Name');
  const exec = values.get('Exec');
  if (!name || !exec) return undefined;
  if ((values.get('Type') ?? 'Application') !== 'Application') return undefined;
  if (values.get('Hidden') === 'true') return undefined;
  const names = [...values.entries()]
    .filter(([key]) => /^(?:Name|GenericName)(?:\[[^\]]+\])?$/u.test(key))
    .map(([, value]) => unescapeString(value));
  return { id, file, name: unescapeString(name), names, exec, terminal: values.get('Terminal') === 'true' };
}

/** The spec's escapes for string values: \s \n \t \r \\. */
function unescapeString(value: string): string {
  return value.replace(/\\([sntr\\])/gu, (_, char: string) =>
    char === 's' ? ' ' : char === 'n' ? '\n' : char === 't' ? '\t' : char === 'r' ? '\r' : '\\',
  );
}

/**
 * Turns an Exec= value into an argument array: string escapes, then the spec's quoting (double
 * quotes, with \" \` \$ \\ escaped inside), then field codes. %f %F %u %U take the caller's
 * arguments (appended at the end when the line has none of them); %c is the app name, %k the
 * desktop file; every other field code (%i and the deprecated ones) is removed; %% is a literal
 * percent sign.
 */
export function execToArgs(exec: string, entry: Pick<DesktopEntry, 'name' | 'file'>, args: string[]): string[] {
  const tokens = splitExec(unescapeString(exec));
  const result: string[] = [];
  let argsPlaced = false;
  for (const token of tokens) {
    if (/^%[fFuU]$/u.test(token)) {
      if (!argsPlaced) result.push(...args);
      argsPlaced = true;
      continue;
    }
    if (/^%[a-zA-Z]$/u.test(token) && token !== '%c' && token !== '%k') continue;
    const expanded = token.replace(/%([a-zA-Z%])/gu, (_, code: string) => {
      if (code === '%') return '%';
      if (code === 'c') return entry.name;
      if (code === 'k') return entry.file;
      if ('fu'.includes(code) && !argsPlaced && args.length > 0) {
        argsPlaced = true;
        return args[0] ?? '';
      }
      return '';
    });
    result.push(expanded);
  }
  if (!argsPlaced) result.push(...args);
  return result;
}

function splitExec(exec: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let inToken = false;
  let quoted = false;
  for (let index = 0; index < exec.length; index++) {
    const char = exec[index] as string;
    if (quoted) {
      if (char === '\\' && index + 1 < exec.length) {
        current += exec[++index];
      } else if (char === '"') {
        quoted = false;
      } else {
        current += char;
      }
    } else if (char === '"') {
      quoted = true;
      inToken = true;
    } else if (/\s/u.test(char)) {
      if (inToken) tokens.push(current);
      current = '';
      inToken = false;
    } else {
      current += char;
      inToken = true;
    }
  }
  if (inToken) tokens.push(current);
  return tokens;
}

/** Entries whose Name (any language), GenericName or id equals `query`, ignoring case. */
export function findDesktopEntry(entries: DesktopEntry[], query: string): DesktopEntry | undefined {
  const wanted = query
    .trim()
    .toLowerCase()
    .replace(/\.desktop$/u, '');
  return (
    entries.find((entry) => entry.name.toLowerCase() === wanted) ??
    entries.find((entry) => entry.id.toLowerCase() === wanted) ??
    entries.find((entry) => entry.names.some((name) => name.toLowerCase() === wanted))
  );
}
