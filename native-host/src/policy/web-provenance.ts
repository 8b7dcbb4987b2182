/**
 * Remembers, per agent run, what web pages showed the model (snapshots, extracts, fetched pages),
 * so the policy can tell when a command the model wants to run came from a page — the classic
 * prompt-injection path "run this in your terminal". Such a command always asks a person.
 */

/** Tools whose results carry text written by web pages. */
export const WEB_CONTENT_TOOLS: ReadonlySet<string> = new Set([
  'browser_snapshot',
  'browser_extract',
  'browser_navigate',
  'browser_interact',
  'browser_tabs',
  'web_fetch',
]);

/** Per run, the newest text is kept up to this many characters. */
const MAX_CHARS_PER_RUN = 4_000_000;
/** A run of this many words in a row, found in a page, makes a command "from the web". */
const WORD_RUN = 4;
/** A whole command this long or longer, found verbatim in a page, is from the web. */
const MIN_VERBATIM_CHARS = 8;

export interface WebOrigin {
  /** What in the command was found in a page. */
  excerpt: string;
}

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`'"“”‘’]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
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

export class WebProvenance {
  private readonly runs = new Map<string, string[]>();
  private readonly sizes = new Map<string, number>();

  /**
   * `load` gives the web text of a run from before this daemon started (its stored steps), so a
   * resumed run still knows what pages it saw.
   */
  constructor(private readonly load: (runId: string) => { tool: string; output: unknown }[] = () => []) {}

  record(runId: string, tool: string, output: unknown): void {
    if (!WEB_CONTENT_TOOLS.has(tool)) return;
    const texts = this.texts(runId);
    for (const text of strings(output)) {
      const normal = normalise(text);
      if (normal.length === 0) continue;
      texts.push(normal);
      this.sizes.set(runId, (this.sizes.get(runId) ?? 0) + normal.length);
    }
    while ((this.sizes.get(runId) ?? 0) > MAX_CHARS_PER_RUN && texts.length > 1) {
      const dropped = texts.shift() as string;
      this.sizes.set(runId, (this.sizes.get(runId) ?? 0) - dropped.length);
    }
  }

  /** Whether the run has read any web content. */
  sawWeb(runId: string): boolean {
    return this.texts(runId).length > 0;
  }

  /**
   * Where `command` (or part of it) appeared in a page this run read: the whole command, a run of
   * words, or a URL or host it names.
   */
  match(runId: string, command: string): WebOrigin | undefined {
    const texts = this.texts(runId);
    if (texts.length === 0) return undefined;
    const normal = normalise(command);
    if (normal.length === 0) return undefined;
    const found = (needle: string) => texts.some((text) => text.includes(needle));
    if (normal.length >= MIN_VERBATIM_CHARS && found(normal)) return { excerpt: command.trim().slice(0, 200) };
    for (const url of normal.match(/\b(?:https?|ftp):\/\/[^\s|;&<>()]+/g) ?? []) {
      if (found(url)) return { excerpt: url };
      const host = /^[a-z]+:\/\/([^/:?#]+)/.exec(url)?.[1];
      if (host && found(`//${host}`)) return { excerpt: host };
    }
    const words = normal.split(' ');
    for (let start = 0; start + WORD_RUN <= words.length; start += 1) {
      const run = words.slice(start, start + WORD_RUN).join(' ');
      if (run.length >= MIN_VERBATIM_CHARS && found(run)) return { excerpt: run };
    }
    return undefined;
  }

  forget(runId: string): void {
    this.runs.delete(runId);
    this.sizes.delete(runId);
  }

  private texts(runId: string): string[] {
    let texts = this.runs.get(runId);
    if (!texts) {
      texts = [];
      this.runs.set(runId, texts);
      for (const { tool, output } of this.load(runId)) this.record(runId, tool, output);
    }
    return texts;
  }
}
