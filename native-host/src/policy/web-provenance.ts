/**
 * Remembers, per agent run, what web pages showed the model (snapshots, extracts, fetched pages),
 * so the policy can tell when a command the model wants to run came from a page — the classic
 * prompt-injection path "run this in your terminal". Such a command always asks a person.
 */
import { getTool } from '@nextai/shared';

/** Whether a tool's results carry text written by web pages, as the tool declares (`outputFrom`). */
function carriesWebText(tool: string): boolean {
  return getTool(tool)?.outputFrom === 'web';
}

/** Per run, the newest text is kept up to this many characters. */
const MAX_CHARS_PER_RUN = 4_000_000;
/** A run of this many words in a row, found in a page, makes a command "from the web". */
const WORD_RUN = 4;
/** A whole command this long or longer, found verbatim in a page, is from the web. */
const MIN_VERBATIM_CHARS = 8;
/** Ended runs remembered as ended, so a late result does not bring their text back. */
const MAX_FORGOTTEN = 10_000;

const URL_PATTERN = /\b(?:https?|ftp):\/\/[^\s|;&<>()]+/g;
const HOST_PATTERN = /\/\/([^/:?#\s|;&<>()]+)/g;

export interface WebOrigin {
  /** What in the command was found in a page. */
  excerpt: string;
}

/**
 * Words as both pages and commands are compared: lower case, quotes and backticks as spaces (a
 * page's inline code, "run:`curl …`", is words of its own), and the punctuation a sentence puts
 * around a word left off. Pages and commands go through the same steps, so what matches is the
 * same words, whatever surrounded them.
 */
function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[`'"“”‘’]/g, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^[([{<]+|[.,;:!?)\]}>]+$/g, ''))
    .filter((word) => word.length > 0);
}

/** 30 bits (a small integer to V8, so a Map of them stays compact), FNV-1a. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    value ^= text.charCodeAt(index);
    value = Math.imul(value, 0x01000193);
  }
  return value & 0x3fffffff;
}

/** The runs of WORD_RUN words of a text, each long enough to count. */
function wordRuns(list: readonly string[]): string[] {
  const runs: string[] = [];
  for (let start = 0; start + WORD_RUN <= list.length; start += 1) {
    const run = list.slice(start, start + WORD_RUN).join(' ');
    if (run.length >= MIN_VERBATIM_CHARS) runs.push(run);
  }
  return runs;
}

/** A URL as pages end them in sentences ("see https://x.sh/a."), without the sentence's mark. */
function trimUrl(url: string): string {
  return url.replace(/[.,;:!?'"\]}]+$/, '');
}

/** All string values in a tool's output, flattened (the content, snapshot, links, tables…). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    // Images are not text a model copies commands from.
    if (value.length < 200_000 || /\s/.test(value.slice(0, 1000))) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) strings(item, out);
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (key !== 'image') strings(item, out);
  }
  return out;
}

/** Counts, so the oldest text can leave the index without taking a newer text's entries. */
function add<K>(map: Map<K, number>, key: K, by: number): void {
  const count = (map.get(key) ?? 0) + by;
  if (count > 0) map.set(key, count);
  else map.delete(key);
}

/**
 * What one run read: its texts (each the page's words joined by single spaces), and an index of
 * their word runs, URLs and hosts, so matching a command costs about its own length whatever the
 * run read.
 */
class RunText {
  readonly texts: string[] = [];
  size = 0;
  private readonly runs = new Map<number, number>();
  private readonly urls = new Map<string, number>();
  private readonly hosts = new Map<string, number>();

  push(text: string): void {
    this.texts.push(text);
    this.size += text.length;
    this.index(text, 1);
  }

  dropOldest(): void {
    const text = this.texts.shift();
    if (text === undefined) return;
    this.size -= text.length;
    this.index(text, -1);
  }

  hasRun(run: string): boolean {
    // The index is by hash: a hit is confirmed against the texts, so a collision never matches.
    return this.runs.has(hash(run)) && this.contains(run);
  }

  hasUrl(url: string): boolean {
    return this.urls.has(trimUrl(url));
  }

  hasHost(host: string): boolean {
    return this.hosts.has(host);
  }

  contains(needle: string): boolean {
    return this.texts.some((text) => text.includes(needle));
  }

  private index(text: string, by: number): void {
    for (const run of wordRuns(text.split(' '))) add(this.runs, hash(run), by);
    for (const url of text.match(URL_PATTERN) ?? []) add(this.urls, trimUrl(url), by);
    for (const [, host] of text.matchAll(HOST_PATTERN)) add(this.hosts, (host as string).replace(/\.+$/, ''), by);
  }
}

export class WebProvenance {
  private readonly runs = new Map<string, RunText>();
  /** Page text a run typed and has not submitted yet, or put on the clipboard (see stage()). */
  private readonly staged = new Map<string, { typed?: string | undefined; clipboard?: string | undefined }>();
  private readonly forgotten = new Set<string>();

  /**
   * `load` gives the web text of a run from before this daemon started (its stored steps), so a
   * resumed run still knows what pages it saw.
   */
  constructor(private readonly load: (runId: string) => { tool: string; output: unknown }[] = () => []) {}

  record(runId: string, tool: string, output: unknown): void {
    if (!carriesWebText(tool)) return;
    const run = this.text(runId);
    if (!run) return;
    for (const text of strings(output)) {
      const normal = words(text).join(' ');
      if (normal.length > 0) run.push(normal);
    }
    while (run.size > MAX_CHARS_PER_RUN && run.texts.length > 1) run.dropOldest();
  }

  /** Whether the run has read any web content. */
  sawWeb(runId: string): boolean {
    return (this.text(runId)?.texts.length ?? 0) > 0;
  }

  /**
   * Where `command` (or part of it) appeared in a page this run read: the whole command, a run of
   * words, or a URL or host it names.
   */
  match(runId: string, command: string): WebOrigin | undefined {
    const run = this.text(runId);
    if (!run || run.texts.length === 0) return undefined;
    const list = words(command);
    const normal = list.join(' ');
    if (normal.length === 0) return undefined;
    // Looked up by hash, each costing about its own length; a hit is confirmed in the texts.
    const hit = wordRuns(list).find((part) => run.hasRun(part));
    // The whole command, as the person would recognise it. One of a few words has no run to look
    // up, so it is looked for whole; a longer one is, only once a run of its words was found.
    const whole = list.length < WORD_RUN || hit !== undefined;
    if (normal.length >= MIN_VERBATIM_CHARS && whole && run.contains(normal)) {
      return { excerpt: command.trim().slice(0, 200) };
    }
    for (const url of normal.match(URL_PATTERN) ?? []) {
      if (run.hasUrl(url)) return { excerpt: trimUrl(url) };
      const host = /^[a-z]+:\/\/([^/:?#]+)/.exec(url)?.[1]?.replace(/\.+$/, '');
      if (host && run.hasHost(host)) return { excerpt: host };
    }
    if (hit) return { excerpt: hit };
    return undefined;
  }

  /**
   * Page-suggested text the run typed (`typed`: Enter would submit it) or put on the clipboard
   * (`clipboard`: a paste would type it); undefined clears it.
   */
  stage(runId: string, where: 'typed' | 'clipboard', excerpt: string | undefined): void {
    if (this.forgotten.has(runId)) return;
    const staged = { ...this.staged.get(runId), [where]: excerpt };
    if (staged.typed === undefined && staged.clipboard === undefined) this.staged.delete(runId);
    else this.staged.set(runId, staged);
  }

  stagedText(runId: string, where: 'typed' | 'clipboard'): string | undefined {
    return this.staged.get(runId)?.[where];
  }

  /** The run ended: what it read is let go, and not read back from its steps later. */
  forget(runId: string): void {
    this.runs.delete(runId);
    this.staged.delete(runId);
    this.forgotten.add(runId);
    if (this.forgotten.size > MAX_FORGOTTEN) {
      const oldest = this.forgotten.values().next().value;
      if (oldest !== undefined) this.forgotten.delete(oldest);
    }
  }

  private text(runId: string): RunText | undefined {
    if (this.forgotten.has(runId)) return undefined;
    let run = this.runs.get(runId);
    if (!run) {
      run = new RunText();
      this.runs.set(runId, run);
      for (const { tool, output } of this.load(runId)) this.record(runId, tool, output);
    }
    return run;
  }
}
