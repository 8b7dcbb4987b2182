/** A checklist item of HEARTBEAT.md. */
export interface ChecklistItem {
  /** 0-based line number in the file. */
  line: number;
  text: string;
  done: boolean;
}

const ITEM = /^(\s*(?:[-*+]|\d+[.)])\s+)\[([ xX])\](\s+)(.*\S)\s*$/u;
const FENCE = /^\s*(```|~~~)/u;

/**
 * The checklist items of a HEARTBEAT.md: Markdown task-list lines such as `- [ ] …`,
 * `* [x] …` or `1. [ ] …`, at any indentation. Lines inside fenced code blocks are examples, not
 * items. Everything else in the file (headings, notes) is context the person keeps for themselves.
 */
export function parseChecklist(text: string): ChecklistItem[] {
  const items: ChecklistItem[] = [];
  let fenced = false;
  text.split(/\r?\n/u).forEach((line, index) => {
    if (FENCE.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const match = ITEM.exec(line);
    if (match) items.push({ line: index, text: match[4] ?? '', done: match[2] !== ' ' });
  });
  return items;
}

export function openItems(text: string): ChecklistItem[] {
  return parseChecklist(text).filter((item) => !item.done);
}

/**
 * The file with the given open items checked off (`[ ]` → `[x]`), matched by their text so an
 * edit elsewhere in the file since the run started changes nothing else. Line endings are kept.
 */
export function checkOff(text: string, itemTexts: readonly string[]): { text: string; checked: number } {
  const wanted = new Set(itemTexts);
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  const open = new Map(openItems(text).map((item) => [item.line, item]));
  let checked = 0;
  const lines = text.split(/\r?\n/u).map((line, index) => {
    const item = open.get(index);
    if (!item || !wanted.has(item.text)) return line;
    wanted.delete(item.text);
    checked += 1;
    return line.replace(/\[ \]/u, '[x]');
  });
  return { text: lines.join(newline), checked };
}

/**
 * The item numbers a run reports as done, from a line `DONE: 1, 3` in its final answer (the
 * heartbeat's instructions ask for it). Numbers outside 1…count are ignored.
 */
export function reportedDone(answer: string, count: number): number[] {
  const line = /^\s*DONE:\s*(.*)$/imu.exec(answer)?.[1] ?? '';
  const numbers = line.match(/\d+/gu)?.map(Number) ?? [];
  return [...new Set(numbers.filter((number) => number >= 1 && number <= count))].sort((a, b) => a - b);
}
