import { describe, expect, it } from 'vitest';

import { translator } from '../i18n.js';
import { runDraftSchema } from '../panel-messages.js';
import { MAX_SELECTION_CHARS, draftFromClick, kindOfMenuItem, menuItemId, menuLocale } from './context-menu.js';

const en = translator('en');
const zh = translator('zh-CN');
const id = () => 'draft-1';
const tab = { id: 7, windowId: 3, url: 'https://example.org/a', title: '  Example page ' };

describe('the right-click menu prepares a run', () => {
  it('maps its item ids to kinds and ignores other items', () => {
    for (const kind of ['selection', 'link', 'image', 'page'] as const)
      expect(kindOfMenuItem(menuItemId(kind))).toBe(kind);
    expect(kindOfMenuItem('someone-else')).toBeUndefined();
    expect(kindOfMenuItem('nextai-handle-video')).toBeUndefined();
    expect(draftFromClick({ menuItemId: 'someone-else' }, tab, en, id)).toBeUndefined();
  });

  it('a selection: the text, the page, its title and the tab, with an instruction in the person’s language', () => {
    const info = { menuItemId: menuItemId('selection'), selectionText: '  Quarterly numbers  ', pageUrl: tab.url };
    const draft = draftFromClick(info, tab, en, id);
    expect(draft).toEqual({
      id: 'draft-1',
      instruction: 'Help me with this selection',
      context: {
        kind: 'selection',
        selection: 'Quarterly numbers',
        page_url: 'https://example.org/a',
        page_title: 'Example page',
        tab_id: 7,
      },
    });
    expect(runDraftSchema.parse(draft)).toEqual(draft);
    expect(draftFromClick(info, tab, zh, id)?.instruction).toBe('帮我处理这段选中的文字');
  });

  it('a link and an image keep their URLs; a huge data: image is left out', () => {
    const link = draftFromClick(
      { menuItemId: menuItemId('link'), linkUrl: 'https://example.org/b', pageUrl: tab.url },
      tab,
      en,
      id,
    );
    expect(link?.context).toMatchObject({ kind: 'link', link_url: 'https://example.org/b' });
    expect(link?.instruction).toBe('Help me with this link');

    const image = draftFromClick(
      { menuItemId: menuItemId('image'), srcUrl: 'https://example.org/c.png', mediaType: 'image' },
      tab,
      en,
      id,
    );
    expect(image?.context).toMatchObject({ kind: 'image', image_url: 'https://example.org/c.png', page_url: tab.url });

    const dataImage = draftFromClick(
      { menuItemId: menuItemId('image'), srcUrl: `data:image/png;base64,${'A'.repeat(10_000)}`, mediaType: 'image' },
      tab,
      en,
      id,
    );
    expect(dataImage?.context.image_url).toBeUndefined();
    expect(dataImage?.context.page_url).toBe(tab.url);
  });

  it('a page without a tab (or with Chromium’s TAB_ID_NONE) still makes a valid draft', () => {
    const draft = draftFromClick({ menuItemId: menuItemId('page'), pageUrl: 'file:///tmp/x.html' }, { id: -1 }, en, id);
    expect(draft?.context).toEqual({ kind: 'page', page_url: 'file:///tmp/x.html' });
    expect(draftFromClick({ menuItemId: menuItemId('page') }, undefined, en, id)?.context).toEqual({ kind: 'page' });
  });

  it('cuts a very long selection', () => {
    const draft = draftFromClick(
      { menuItemId: menuItemId('selection'), selectionText: 'x'.repeat(MAX_SELECTION_CHARS + 500) },
      tab,
      en,
      id,
    );
    expect(draft?.context.selection).toHaveLength(MAX_SELECTION_CHARS + 1);
    expect(draft?.context.selection?.endsWith('…')).toBe(true);
  });
});

describe('the menu’s language', () => {
  it('is the one chosen in settings, and the browser’s for auto or anything unknown', () => {
    expect(menuLocale('zh-CN', 'en-US')).toBe('zh-CN');
    expect(menuLocale('en', 'zh-CN')).toBe('en');
    expect(menuLocale('auto', 'zh-TW')).toBe('zh-CN');
    expect(menuLocale('auto', 'de-DE')).toBe('en');
    expect(menuLocale(undefined, 'zh-CN')).toBe('zh-CN');
    expect(menuLocale('fr', 'en-GB')).toBe('en');
  });
});
