/** Strings of the right-click menu and the run it pre-fills. Every key in both languages. */
export const en = {
  contextMenuSelection: 'Let the agent handle this selection',
  contextMenuLink: 'Let the agent handle this link',
  contextMenuImage: 'Let the agent handle this image',
  contextMenuPage: 'Let the agent handle this page',
  contextInstructionSelection: 'Help me with this selection',
  contextInstructionLink: 'Help me with this link',
  contextInstructionImage: 'Help me with this image',
  contextInstructionPage: 'Help me with this page',
} as const;

export const zhCN: Record<keyof typeof en, string> = {
  contextMenuSelection: '让智能体处理选中的文字',
  contextMenuLink: '让智能体处理这个链接',
  contextMenuImage: '让智能体处理这张图片',
  contextMenuPage: '让智能体处理这个页面',
  contextInstructionSelection: '帮我处理这段选中的文字',
  contextInstructionLink: '帮我处理这个链接',
  contextInstructionImage: '帮我处理这张图片',
  contextInstructionPage: '帮我处理这个页面',
};
