/** Strings of the chat: sessions, messages, tool cards, run controls, questions. Every key in both languages. */
export const en = {} as const;

export const zhCN: Record<keyof typeof en, string> = {};
