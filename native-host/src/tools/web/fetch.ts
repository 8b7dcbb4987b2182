import type { Readable } from 'node:stream';

import { htmlToContent } from '@nextai/page/html-convert';

import { AppError, VERSION, say, type Localized, type ToolInput, type ToolOutput } from '@nextai/shared';

import { checkDestination, type CheckedDestination, type HostResolver } from '../../policy/guards/destination.js';
import { DomainGuard } from '../../policy/guards/domains.js';
import type { HostServices, ToolContext } from '../types.js';
import { pinnedGet, type PinnedResponse } from './pinned-get.js';

const MAX_REDIRECTS = 10;

/**
 * web_fetch: one HTTP(S) GET without a browser. The policy checked the address before the call;
 * every hop — the first address and each redirect — is checked here again before it is contacted:
 * the domain guard with the call's grant, then the addresses the host resolves to (loopback,
 * link-local, private and metadata addresses only for a host the person named exactly), and the
 * connection goes to those very addresses. HTML becomes markdown or text with the page agent's
 * converter. `resolve` is for tests, which map names to addresses without a DNS server.
 */
export async function webFetch(
  input: ToolInput<'web_fetch'>,
  context: ToolContext,
  services: Pick<HostServices, 'security'>,
  resolve?: HostResolver,
): Promise<ToolOutput<'web_fetch'>> {
  const guard = new DomainGuard(services.security());
  let url = input.url;
  let response: PinnedResponse | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const refuse = (reason: Localized) =>
      new AppError(
        'POLICY_BLOCKED',
        hop === 0
          ? reason
          : say(`The address redirected to ${url}: ${reason.en}`, `该地址重定向到 ${url}：${reason['zh-CN']}`),
      );
    // The grant narrows redirects too: a task granted docs.example.com is not led elsewhere.
    const verdict = guard.check(url, context.grantedDomains ? { allowed_domains: context.grantedDomains } : undefined);
    if (!verdict.allowed || verdict.host === undefined) {
      throw refuse(verdict.reason ?? say(`${url} is blocked.`, `${url} 被阻止。`));
    }
    const target = new URL(url);
    let destination: CheckedDestination;
    try {
      destination = await checkDestination(verdict.host, {
        explicitlyAllowed: verdict.explicitlyAllowed === true,
        resolve,
      });
    } catch (error) {
      if (error instanceof AppError && error.code === 'POLICY_BLOCKED') {
        throw refuse({ en: error.message, 'zh-CN': error.translations?.['zh-CN'] ?? error.message });
      }
      throw new AppError('TOOL_FAILED', `${url} could not be fetched: ${(error as Error).message}`, { cause: error });
    }
    try {
      response = await pinnedGet(target, destination, {
        signal: context.signal,
        headers: {
          'user-agent': `NextAI-Agent/${VERSION} (web_fetch)`,
          accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5',
        },
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new AppError('TOOL_FAILED', `${url} could not be fetched: ${code ?? (error as Error).message}`, {
        cause: error,
      });
    }
    const location = response.headers.location;
    if (response.status >= 300 && response.status < 400 && location) {
      response.discard();
      url = new URL(location, url).href;
      continue;
    }
    break;
  }
  if (!response || (response.status >= 300 && response.status < 400)) {
    response?.discard();
    throw new AppError('TOOL_FAILED', `${input.url} redirected more than ${MAX_REDIRECTS} times.`);
  }
  const { text, truncated } = await readText(response, input.max_bytes, url);
  const contentType = String(response.headers['content-type'] ?? '');
  const html = /html|xml/i.test(contentType) || /^\s*<(!doctype html|html)/i.test(text);
  const content = html && input.format !== 'html' ? htmlToContent(text, url, input.format) : text;
  return { url, status: response.status, content_type: contentType, content, truncated };
}

async function readText(
  response: PinnedResponse,
  maxBytes: number,
  url: string,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of response.body as Readable & AsyncIterable<Buffer>) {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        truncated = true;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    throw new AppError('TOOL_FAILED', `${url} could not be read: ${(error as Error).message}`, { cause: error });
  } finally {
    response.discard();
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}
