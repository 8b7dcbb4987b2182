import { describe, expect, it } from 'vitest';

import { checkOff, openItems, parseChecklist, reportedDone } from './parser.js';

const FILE = [
  '# Heartbeat',
  '',
  '- [ ] Check the build of ~/Projects/site',
  '* [x] Rotate the logs',
  '  1. [ ] Summarise new mail in ~/Mail/inbox',
  '```',
  '- [ ] an example inside a code block',
  '```',
  '- [] not an item',
  'Notes: anything else is context.',
].join('\n');

describe('HEARTBEAT.md', () => {
  it('finds the open and done checklist items, not examples in code blocks', () => {
    expect(parseChecklist(FILE).map((item) => [item.line, item.done, item.text])).toEqual([
      [2, false, 'Check the build of ~/Projects/site'],
      [3, true, 'Rotate the logs'],
      [4, false, 'Summarise new mail in ~/Mail/inbox'],
    ]);
    expect(openItems('# Nothing to do\n- [x] done\n')).toEqual([]);
  });

  it('checks off exactly the items named, keeping everything else and the line endings', () => {
    const crlf = FILE.replace(/\n/g, '\r\n');
    const edited = checkOff(crlf, ['Summarise new mail in ~/Mail/inbox', 'not there']);
    expect(edited.checked).toBe(1);
    expect(edited.text).toBe(crlf.replace('1. [ ] Summarise', '1. [x] Summarise'));
  });

  it('reads the numbers a run reports done', () => {
    expect(reportedDone('All checked.\nDONE: 1, 3, 3, 9', 3)).toEqual([1, 3]);
    expect(reportedDone('done: none', 2)).toEqual([]);
    expect(reportedDone('no report', 2)).toEqual([]);
  });
});
