import { describe, expect, it } from 'vitest';

import { planSummary } from '../context.js';
import type { Message } from '../providers/types.js';
import { foldSummary, summaryRequest } from './summary.js';

function turn(index: number): Message[] {
  return [
    { role: 'assistant', content: [{ type: 'tool_use', id: `t${index}`, name: 'system_info', input: {} }] },
    {
      role: 'user',
      content: [{ type: 'tool_result', toolUseId: `t${index}`, content: [{ type: 'text', text: 'x'.repeat(2000) }] }],
    },
  ];
}

describe('summaries of old turns', () => {
  it('replaces the folded turns with a note and keeps user/assistant alternation and tool pairs', () => {
    const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'goal' }] }];
    for (let i = 0; i < 8; i++) messages.push(...turn(i));
    const plan = planSummary(messages, { budgetTokens: 1000, keepLastTurns: 2 });
    expect(plan).toBeDefined();
    const folded = foldSummary(messages, plan!, 'did things');
    expect(folded.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(JSON.stringify(folded[1])).toContain('did things');
    // Every tool_result left has its tool_use right before it.
    for (let i = 0; i < folded.length; i++) {
      for (const block of folded[i]!.content) {
        if (block.type === 'tool_result') {
          expect(JSON.stringify(folded[i - 1]?.content)).toContain(block.toolUseId);
        }
      }
    }
  });

  it('asks without tools and shows the turns as a transcript', () => {
    const request = summaryRequest('m', turn(1));
    expect(request.tools).toEqual([]);
    expect(JSON.stringify(request.messages)).toContain('assistant called system_info');
  });
});
