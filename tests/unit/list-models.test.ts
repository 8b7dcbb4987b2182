import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { AppError } from '@nextai/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { listModels } from '../../native-host/src/agent/providers/list-models.js';
import { SettingsService } from '../../native-host/src/daemon/settings-handlers.js';
import { startFakeModelServer, type FakeModelServer } from '../support/fake-model-server.js';

/**
 * The model picker's `settings.list_models` handler against the scripted model server on
 * loopback: the ids it returns, which key goes where, and what a person is told when a server
 * offers no list, refuses the key, cannot be reached or answers something else.
 */
let dir: string;
let file: string;
let model: FakeModelServer;
let other: http.Server | undefined;

const SAVED_KEY = 'sk-saved-key-for-the-fake-0001';
const TYPED_KEY = 'sk-typed-in-the-form-key-0002';

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nx-list-models-'));
  file = path.join(dir, 'config.json');
  model = await startFakeModelServer();
});
afterEach(async () => {
  await model.close();
  await stopOther();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function stopOther(): Promise<void> {
  other?.closeAllConnections();
  if (other) await new Promise((resolve) => other?.close(resolve));
  other = undefined;
}

/** The handler as the daemon builds it, reading this test's config.json, with no model variables. */
function settings(environment: Record<string, string> = {}): SettingsService {
  return new SettingsService({ policy: { configFile: file } } as never, 'test', environment);
}

function saveModel(section: Record<string, string>): void {
  fs.writeFileSync(file, JSON.stringify({ model: section }), { mode: 0o600 });
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(AppError);
  return caught as AppError;
}

/** A one-route server for what the fake model server does not do (hang, redirect, HTML). */
async function startOther(handler: http.RequestListener): Promise<string> {
  other = http.createServer(handler);
  await new Promise<void>((resolve) => other?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;
}

describe('settings.list_models', () => {
  it('lists an OpenAI-compatible server’s models sorted and once each, with the key typed in the form', async () => {
    const listed = await settings().listModels({
      preset: 'deepseek',
      base_url: model.openaiBaseUrl,
      api_key: TYPED_KEY,
    });
    expect(listed).toEqual({
      provider: 'openai',
      base_url: model.openaiBaseUrl,
      models: ['fake-model-large', 'fake-model-reasoner', 'fake-model-small'],
    });
    expect(model.modelListRequests).toHaveLength(1);
    expect(model.modelListRequests[0]?.path).toBe('/v1/models');
    expect(model.modelListRequests[0]?.headers.authorization).toBe(`Bearer ${TYPED_KEY}`);
    // No turn of the script is consumed and no chat request made.
    expect(model.requests).toHaveLength(0);
  });

  it('lists Anthropic’s with x-api-key and anthropic-version, using the saved settings and key', async () => {
    saveModel({ provider: 'anthropic', base_url: model.anthropicBaseUrl, api_key: SAVED_KEY });
    model.models = ['claude-b', 'claude-a'];
    const listed = await settings().listModels({});
    expect(listed).toEqual({
      provider: 'anthropic',
      base_url: model.anthropicBaseUrl,
      models: ['claude-a', 'claude-b'],
    });
    const request = model.modelListRequests[0];
    expect(request?.path).toBe('/v1/models?limit=1000');
    expect(request?.headers).toMatchObject({ 'x-api-key': SAVED_KEY, 'anthropic-version': '2023-06-01' });
    expect(request?.headers.authorization).toBeUndefined();
  });

  it('sends the saved key only to the server it was saved for', async () => {
    saveModel({ preset: 'deepseek', provider: 'openai', base_url: model.openaiBaseUrl, api_key: SAVED_KEY });
    await settings().listModels({ preset: 'deepseek', base_url: `${model.openaiBaseUrl}/` });
    expect(model.modelListRequests.at(-1)?.headers.authorization).toBe(`Bearer ${SAVED_KEY}`);

    // The same form pointed at another server: that server gets no key at all.
    const seen: (string | undefined)[] = [];
    const elsewhere = await startOther((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'other-model' }] }));
    });
    expect((await settings().listModels({ preset: 'deepseek', base_url: elsewhere })).models).toEqual(['other-model']);
    expect(seen).toEqual([undefined]);
  });

  it('says a server without a list does not offer one (HTTP 404): type the name, in both languages', async () => {
    model.models = 'not_found';
    const error = await failure(settings().listModels({ provider: 'openai', base_url: model.openaiBaseUrl }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(
      /^This server does not list its models \(HTTP 404 from http:\/\/127\.0\.0\.1:\d+\); type the model name\.$/,
    );
    expect(error.translations?.['zh-CN']).toMatch(/该服务不提供模型列表.*请直接输入模型名称/);
  });

  it('says a refused key is refused, in the server’s words, without the key', async () => {
    const url = await startOther((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${TYPED_KEY}`, type: 'invalid_request_error' },
        }),
      );
    });
    const error = await failure(settings().listModels({ provider: 'openai', base_url: url, api_key: TYPED_KEY }));
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toMatch(
      /refused to list its models \(HTTP 401\) \("Incorrect API key provided: \[redacted\]"\)\. Check the API key\./,
    );
    expect(JSON.stringify({ message: error.message, translations: error.translations })).not.toContain(TYPED_KEY);
  });

  it('says a server that cannot be reached, or answers HTML, or does not answer in time, is the problem', async () => {
    const closed = await startOther((_req, res) => res.end());
    const port = (other?.address() as AddressInfo).port;
    await stopOther();
    const refused = await failure(settings().listModels({ preset: 'ollama', base_url: closed }));
    expect(refused.message).toBe(
      `Could not reach http://127.0.0.1:${port} (ECONNREFUSED). Is the server running on this computer?`,
    );

    const html = await startOther((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><title>Welcome</title></html>');
    });
    expect((await failure(settings().listModels({ provider: 'openai', base_url: html }))).message).toMatch(
      /answered, but not with JSON\. Check the base URL/,
    );
    await stopOther();

    const silent = await startOther(() => undefined);
    const timeout = await failure(
      listModels({ provider: 'openai', baseUrl: silent, apiKey: undefined, timeoutMs: 300 }),
    );
    expect(timeout.code).toBe('TIMEOUT');
    expect(timeout.message).toMatch(/did not answer within 0\.3 s/);
  });

  it('does not follow a redirect (the key would go along) and says where it points', async () => {
    const url = await startOther((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/v1/models' });
      res.end();
    });
    const error = await failure(settings().listModels({ provider: 'openai', base_url: url, api_key: TYPED_KEY }));
    expect(error.message).toMatch(/redirects the model list to https:\/\/elsewhere\.example \(HTTP 302\)/);
  });

  it('reads the other list shapes servers use, and refuses a body that is no list', async () => {
    const bodies: unknown[] = [
      { models: [{ name: 'llama3.2:latest' }, { model: 'qwen3:8b' }] },
      ['plain-a', 'plain-b'],
      { data: 'nothing' },
    ];
    const url = await startOther((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(bodies.shift()));
    });
    expect((await settings().listModels({ provider: 'openai', base_url: url })).models).toEqual([
      'llama3.2:latest',
      'qwen3:8b',
    ]);
    expect((await settings().listModels({ provider: 'openai', base_url: url })).models).toEqual(['plain-a', 'plain-b']);
    expect((await failure(settings().listModels({ provider: 'openai', base_url: url }))).message).toMatch(
      /answered, but not with a list of models/,
    );
  });

  it('asks for a provider when neither the form nor the saved settings name one', async () => {
    expect((await failure(settings().listModels({}))).message).toBe('Choose a provider first, then list its models.');
    const bad = await failure(settings().listModels({ provider: 'openai', base_url: 'file:///etc' }));
    expect(bad.message).toMatch(/must start with http:\/\/ or https:\/\//);
  });
});
