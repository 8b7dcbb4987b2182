import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import type { RunView } from '@nextai/shared';

import { DaemonClient } from '../../native-host/src/client/daemon-client.js';
import { dataPaths } from '../../native-host/src/core/paths.js';
import { runCli } from '../support/cli.js';
import { startFakeModelServer, type FakeModelServer, type RecordedRequest } from '../support/fake-model-server.js';
import { makeHome, type TestHome } from '../support/home.js';
import { CLI_BUNDLE, requireBuilt } from '../support/paths.js';
import { startXServer, type XServer } from '../support/x-server.js';

/**
 * Observe → act → verify on a real X server: after the model clicks, the loop takes a
 * screenshot itself and sends it as an image block; when the next click changes nothing on the
 * screen, the model is told so in a sentence instead of receiving the same image again.
 */
let server: XServer;
let home: TestHome;
let model: FakeModelServer;
let client: DaemonClient | undefined;

beforeAll(async () => {
  requireBuilt(CLI_BUNDLE);
  server = await startXServer({ width: 1280, height: 800 });
}, 40_000);
afterAll(async () => server?.stop());
afterEach(async () => {
  client?.close();
  await home?.cleanup();
  await model?.close();
});

type Block = {
  type: string;
  source?: { type: string; media_type: string; data: string };
  content?: Block[];
  text?: string;
};

/** The blocks of the last message of an Anthropic request, tool_result contents flattened in. */
function lastMessageBlocks(request: RecordedRequest | undefined): Block[] {
  const messages = (request?.body.messages ?? []) as { content: Block[] }[];
  return (messages.at(-1)?.content ?? []).flatMap((block) => [block, ...(block.content ?? [])]);
}

it('shows the model the screen after a click as an image block, and says so when nothing changed', async () => {
  home = makeHome();
  model = await startFakeModelServer([
    { kind: 'tool_calls', calls: [{ name: 'left_click', input: { x: 20, y: 20 } }] },
    { kind: 'tool_calls', calls: [{ name: 'left_click', input: { x: 20, y: 20 } }] },
    { kind: 'text', text: 'Clicked twice.' },
  ]);
  const env = {
    ...home.env,
    DISPLAY: server.display,
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
  };
  const started = await runCli(['daemon', '--detach'], env);
  expect(started.code, started.stderr).toBe(0);
  client = await DaemonClient.connect(dataPaths(home.dir), { start: false, client: { kind: 'test', name: 'observe' } });
  const { run } = await client.peer.request('runs.start', { goal: 'Click the top-left corner twice' });
  let view: RunView = run;
  const deadline = Date.now() + 30_000;
  while (view.state !== 'finished' && view.state !== 'failed' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    view = (await client.peer.request('runs.get', { id: run.id })).run;
  }
  expect(view).toMatchObject({ state: 'finished', result: 'Clicked twice.' });

  // After the first click: the tool result, then the loop's own observation with the image.
  const first = lastMessageBlocks(model.requests[1]);
  const image = first.find((block) => block.type === 'image');
  expect(image?.source).toMatchObject({ type: 'base64', media_type: 'image/jpeg' });
  expect(Buffer.from(image?.source?.data ?? '', 'base64').subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  expect(first.some((block) => block.text?.includes('Observation after your actions: the screen now'))).toBe(true);

  // The second click on an empty desktop changes nothing: a sentence, and no second copy of the image.
  const second = lastMessageBlocks(model.requests[2]);
  expect(second.some((block) => block.type === 'image')).toBe(false);
  expect(second.some((block) => block.text?.includes('has not changed since the previous screenshot'))).toBe(true);

  const { steps } = await client.peer.request('runs.get', { id: run.id, steps: true });
  expect(steps?.map((step) => step.kind)).toEqual([
    'model_call',
    'tool_call',
    'observe',
    'model_call',
    'tool_call',
    'observe',
    'model_call',
  ]);
}, 60_000);
