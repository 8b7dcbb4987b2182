/** Types of the Node build of html-convert.ts, free of DOM types (native-host has no DOM library). */
export declare function htmlToContent(html: string, url: string, format: 'markdown' | 'text'): string;
