import { htmlToContent } from '@nextai/page/html-convert';

import { AppError, VERSION, type ToolInput, type ToolOutput } from '@nextai/shared';

import { DomainGuard } from '../../policy/guards/domains.js';
import type { HostServices, ToolContext } from '../types.js';

const MAX_REDIRECTS = 10;

/**
 * web_fetch: one HTTP(S) GET without a browser. The policy checked the address before the call;
 * every redirect is checked here again with the same domain guard and the call's grant, before it
 * is followed — a blocked host is never contacted. HTML becomes markdown or text with the page agent's converter.
 */
export async function webFetch(
  input: ToolInput<'web_fetch'>,
  context: ToolContext,
  services: Pick<HostServices, 'security'>,
): Promise<ToolOutput<'web_fetch'>> {
  const guard = new DomainGuard(services.security());
  let url = input.url;
  let response: Response | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    // The grant narrows redirects too: a task granted docs.example.com is not led elsewhere.
    const verdict = guard.check(url, context.grantedDomains ? { allowed_domains: context.grantedDomains } : undefined);
    if (!verdict.allowed) {
      const reason = verdict.reason?.en ?? `${url} is blocked.`;
      throw new AppError('POLICY_BLOCKED', hop === 0 ? reason : `The address redirected to ${url}: ${reason}`);
    }
    try {
      response = await fetch(url, {
        redirect: 'manual',
        signal: context.signal,
        headers: {
          'user-agent': `NextAI-Agent/${VERSION} (web_fetch)`,
          accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5',
        },
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new AppError(
        'TOOL_FAILED',
        `${url} could not be fetched: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    break;
  }
  if (!response || (response.status >= 300 && response.status < 400)) {
    throw new AppError('TOOL_FAILED', `${input.url} redirected more than ${MAX_REDIRECTS} times.`);
  }
  const { text, truncated } = await readText(response, input.max_bytes);
  const contentType = response.headers.get('content-type') ?? '';
  const html = /html|xml/i.test(contentType) || /^\s*<(!doctype html|html)/i.test(text);
  const content = html && input.format !== 'html' ? htmlToContent(text, url, input.format) : text;
  return { url, status: response.status, content_type: contentType, content, truncated };
}

async function readText(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}
