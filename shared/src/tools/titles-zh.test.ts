import { describe, expect, it } from 'vitest';

import { TOOL_CATALOG } from './catalog.js';
import { TOOL_TITLES_ZH, toolTitleIn } from './titles-zh.js';

describe('tool titles in Chinese', () => {
  it('has a distinct title for every tool of the catalog', () => {
    const titles = TOOL_CATALOG.map((tool) => TOOL_TITLES_ZH[tool.name]);
    expect(titles.every((title) => typeof title === 'string' && title.length > 0)).toBe(true);
    expect(new Set(titles).size).toBe(TOOL_CATALOG.length);
  });

  it('picks the title for the locale, and the English one for a tool it does not know', () => {
    expect(toolTitleIn('zh-CN', 'screenshot', 'Take a screenshot')).toBe('截屏');
    expect(toolTitleIn('en', 'screenshot', 'Take a screenshot')).toBe('Take a screenshot');
    expect(toolTitleIn('zh-CN', 'future_tool', 'Future tool')).toBe('Future tool');
  });
});
