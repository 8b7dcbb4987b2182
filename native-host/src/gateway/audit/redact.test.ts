import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { isSecretKey, redactForAudit, redactSecrets } from './redact.js';

const R = '[REDACTED]';

// Built at run time so secret scanners do not flag this file; none of these are real.
const openAiKey = ['sk', 'proj', 'Ab3dEf6hIj9kLm2nOp5qRs8t'].join('-');
const anthropicKey = ['sk', 'ant', 'api03', 'x1Y2z3A4b5C6d7E8f9G0h1I2'].join('-');
const githubToken = ['ghp', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('_');
const githubPat = ['github', 'pat', '11ABCDEFG0123456789_abcdefghijklmnop'].join('_');
const awsKeyId = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const slackToken = ['xoxb', '1234567890', '0987654321', 'AbCdEfGhIjKl'].join('-');
const jwt = [
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
].join('.');
const pemBody = 'MIIEowIBAAKCAQEA7bq9\nq3mXw0Yk1rT2vB3\n';
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}-----END RSA PRIVATE KEY-----`;

describe('redactSecrets: secrets in text', () => {
  it.each([
    ['an OpenAI key', `key is ${openAiKey} ok`, `key is ${R} ok`],
    ['an Anthropic key', `ANTHROPIC_API_KEY=${anthropicKey}`, `ANTHROPIC_API_KEY=${R}`],
    ['an Anthropic key in prose', `use ${anthropicKey}.`, `use ${R}.`],
    ['a GitHub token', `git clone https://${githubToken}@github.com/a/b`, `git clone https://${R}@github.com/a/b`],
    ['a fine-grained GitHub token', `gh auth login --with-token ${githubPat}`, `gh auth login --with-token ${R}`],
    ['an AWS access key id', `id ${awsKeyId} here`, `id ${R} here`],
    ['an AWS secret key after its name', `aws_secret_access_key = ${awsSecret}`, `aws_secret_access_key = ${R}`],
    [
      'an AWS secret in an env prefix',
      `AWS_SECRET_ACCESS_KEY=${awsSecret} aws s3 ls`,
      `AWS_SECRET_ACCESS_KEY=${R} aws s3 ls`,
    ],
    ['a Slack token', `slack ${slackToken}`, `slack ${R}`],
    ['a JWT', `token: ${jwt}`, `token: ${R}`],
    ['a JWT in a query string', `https://x.test/cb?id_token=${jwt}&state=1`, `https://x.test/cb?id_token=${R}&state=1`],
    [
      'a Bearer header in curl',
      `curl -H 'Authorization: Bearer abc123def456ghi' https://api.test`,
      `curl -H 'Authorization: ${R}' https://api.test`,
    ],
    ['a bare Bearer token', 'send Bearer abc.def-ghi_jkl', `send Bearer ${R}`],
    ['a Basic authorization header', 'Authorization: Basic dXNlcjpwYXNz', `Authorization: ${R}`],
    ['a cookie header', 'Cookie: sid=abc; theme=dark', `Cookie: ${R}`],
    [
      'a PEM private key',
      `before\n${pem}\nafter`,
      `before\n-----BEGIN RSA PRIVATE KEY-----${R}-----END RSA PRIVATE KEY-----\nafter`,
    ],
    [
      'a PEM key cut off before its end',
      `-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA`,
      `-----BEGIN OPENSSH PRIVATE KEY-----${R}-----END OPENSSH PRIVATE KEY-----`,
    ],
    ['a URL password', 'https://user:pass@host.test/x', `https://user:${R}@host.test/x`],
    ['a database URL password', 'psql postgres://alice:s3cr3t@db:5432/app', `psql postgres://alice:${R}@db:5432/app`],
    ['a redis URL with only a password', 'redis://:hunter2@cache:6379', `redis://:${R}@cache:6379`],
    ['--password=x', 'app --password=hunter2 --user bob', `app --password=${R} --user bob`],
    ['--password x', 'app --password hunter2 --verbose', `app --password ${R} --verbose`],
    ['--token=…', 'deploy --token=abc123 --env prod', `deploy --token=${R} --env prod`],
    ['--api-key "…"', 'tool --api-key "a b c"', `tool --api-key "${R}"`],
    ['--client-secret x', 'oauth --client-secret s3cr3t', `oauth --client-secret ${R}`],
    ['mysql -pSECRET', 'mysql -u root -phunter2 shop', `mysql -u root -p${R} shop`],
    ["mysql -p'x'", "mysqldump -u root -p'hunter 2' shop", `mysqldump -u root -p${R} shop`],
    ['sshpass -p x', 'sshpass -p hunter2 ssh me@host', `sshpass -p ${R} ssh me@host`],
    ['curl -u user:password', 'curl -u alice:s3cr3t https://x.test', `curl -u alice:${R} https://x.test`],
    ['export TOKEN=…', 'export TOKEN=abc123', `export TOKEN=${R}`],
    [
      'export GITHUB_TOKEN=… (a known token shape too)',
      `export GITHUB_TOKEN=${githubToken}`,
      `export GITHUB_TOKEN=${R}`,
    ],
    ['PGPASSWORD prefix', 'PGPASSWORD=s3cr3t psql -h db', `PGPASSWORD=${R} psql -h db`],
    ['MYSQL_PWD prefix', 'MYSQL_PWD=s3cr3t mysql', `MYSQL_PWD=${R} mysql`],
    ['a quoted assignment', "DB_PASSWORD='a b c' ./run", `DB_PASSWORD='${R}' ./run`],
    ['PowerShell env assignment', '$env:API_KEY = "abc123"', `$env:API_KEY = "${R}"`],
    ['Windows set', 'set SECRET_KEY=abc123', `set SECRET_KEY=${R}`],
    ['JSON text', '{"password":"hunter2","user":"bob"}', `{"password":"${R}","user":"bob"}`],
    ['YAML text', 'user: bob\npassword: hunter2\n', `user: bob\npassword: ${R}\n`],
    ['a query-string key', 'GET /v1?api_key=abc123&page=2', `GET /v1?api_key=${R}&page=2`],
    ['a .env line with a client secret', 'CLIENT_SECRET=xyz789', `CLIENT_SECRET=${R}`],
    ['a value whose quote never closes', 'API_TOKEN="abc def\nnext line', `API_TOKEN=${R}\nnext line`],
  ])('redacts %s', (_name, input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });
});

describe('redactSecrets: ordinary text stays as it is', () => {
  it.each([
    ['ls -la ~/projects'],
    ['git status && npm test'],
    ['git push -u origin main'],
    ['mkdir -p /tmp/build && cd /tmp/build'],
    ['mysql -u root -p shop'],
    ['docker login --password-stdin registry.example.com'],
    ['TOKEN=$GITHUB_TOKEN npm publish'],
    ['https://example.com:8080/path?q=1&page=2'],
    ['see https://docs.test/auth#tokens for how tokens work'],
    ['max_tokens=4096 token_count: 12'],
    ['a risk-assessment-document-for-the-whole-team'],
    ['sk-learn is not scikit-learn'],
    ['the password policy requires 12 characters'],
    ['cd $PWD/src'],
    ['{"max_tokens":1024,"temperature":0.2}'],
    ['Bearer of bad news'],
    ['time: 12:30, place: home'],
    ['echo "hello, world" | wc -c'],
    ['SELECT id, name FROM users WHERE active = 1'],
    ['-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----'],
    ['中文路径 /home/用户/文档 and émojis 🎉'],
    ['password_file=/etc/app/pw.txt'],
  ])('keeps %j', (input) => {
    expect(redactSecrets(input)).toBe(input);
  });
});

describe('redactSecrets: objects', () => {
  it('replaces values under secret keys, whatever their case or separators', () => {
    const input = {
      password: 'a',
      PASSWD: 'b',
      pwd: 'c',
      db_password: 'd',
      'X-Api-Key': 'e',
      apiKey: 'f',
      access_key: 'g',
      privateKey: 'h',
      Authorization: 'Basic xyz',
      'Set-Cookie': 'sid=1',
      session: 'abc',
      credentials: { user: 'u', pass: 'p' },
      client_secret: 'i',
      accessToken: 'j',
      GITHUB_TOKEN: 'k',
      pin: 1234,
    };
    expect(redactSecrets(input)).toEqual({
      password: R,
      PASSWD: R,
      pwd: R,
      db_password: R,
      'X-Api-Key': R,
      apiKey: R,
      access_key: R,
      privateKey: R,
      Authorization: R,
      'Set-Cookie': R,
      session: R,
      credentials: R,
      client_secret: R,
      accessToken: R,
      GITHUB_TOKEN: R,
      pin: 1234,
    });
  });

  it('keeps keys that only name a secret, and values that hide nothing', () => {
    const input = {
      max_tokens: 100,
      token_count: 3,
      token_type: 'bearer',
      session_id: 'default',
      password_file: '/run/secrets/db',
      has_password: true,
      password: null,
      token: '',
      OLDPWD: '/home/me',
    };
    expect(redactSecrets(input)).toEqual(input);
  });

  it('redacts deep inside arrays and nested objects, and scans every string', () => {
    const input = {
      command: `curl -H "Authorization: Bearer ${jwt}" https://api.test`,
      env: [{ name: 'API_KEY', value: 'plain' }, 'TOKEN=abc'],
      nested: { deeper: { aws: { secret_access_key: awsSecret } } },
    };
    const output = redactSecrets(input);
    expect(output).toEqual({
      command: `curl -H "Authorization: ${R}" https://api.test`,
      env: [{ name: 'API_KEY', value: 'plain' }, `TOKEN=${R}`],
      nested: { deeper: { aws: { secret_access_key: R } } },
    });
    expect(JSON.stringify(output)).not.toContain(awsSecret);
  });

  it('returns a copy and leaves the input untouched', () => {
    const input = { password: 'x', list: [1, { token: 'y' }] };
    const before = structuredClone(input);
    const output = redactSecrets(input) as typeof input;
    expect(input).toEqual(before);
    expect(output).not.toBe(input);
    expect(output.list).not.toBe(input.list);
  });

  it('turns anything into plain JSON data without throwing', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { a: 1 };
    const input = {
      when: new Date(0),
      big: 10n,
      bytes: new Uint8Array(4),
      error: new Error('boom'),
      gone: undefined,
      fn: () => 1,
      nan: Number.NaN,
      map: new Map([['token', 'secret']]),
      set: new Set(['x']),
      cyclic,
      twice: [shared, shared],
    };
    expect(redactSecrets(input)).toEqual({
      when: '1970-01-01T00:00:00.000Z',
      big: '10',
      bytes: '[4 bytes of binary data]',
      error: { name: 'Error', message: 'boom' },
      nan: null,
      map: { token: R },
      set: ['x'],
      cyclic: { name: 'loop', self: '[circular reference]' },
      twice: [{ a: 1 }, { a: 1 }],
    });
  });

  it('keeps a key named __proto__ as data', () => {
    const input = JSON.parse('{"__proto__": {"password": "x"}, "a": 1}') as object;
    const output = redactSecrets(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output)).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(output)).toBe(`{"__proto__":{"password":"${R}"},"a":1}`);
  });

  it('classifies keys without caring about case or separators', () => {
    for (const key of ['API_KEY', 'api-key', 'ApiKey', 'x.api.key', 'Private_Key', 'CLIENT-SECRET']) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ['key', 'keys', 'tokens', 'maxTokens', 'path', 'session_id', 'author']) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });
});

describe('redactForAudit', () => {
  it('cuts long strings before redacting, and still hides a key cut in half', () => {
    const long = `${'x'.repeat(90)}${pem}`;
    // The cut falls inside the key's body, before its END line.
    const output = redactForAudit({ content: long }, { maxStringLength: 90 + 40 }) as { content: string };
    expect(output.content.startsWith('x'.repeat(90))).toBe(true);
    expect(output.content).toContain(R);
    expect(output.content).not.toContain('MIIE');
    expect(output.content).toMatch(/more characters not recorded\]$/);
  });

  // A pattern that backtracks on these would take hours, far past the test's time-out; how fast
  // redaction is, is for `npm run bench`.
  it('gets through text built to make patterns backtrack', () => {
    const hostile = ['a-'.repeat(50_000), 'mysql '.repeat(20_000), 'a://b:'.repeat(20_000), 'a='.repeat(50_000)];
    for (const text of hostile) expect(String(redactSecrets(text)).length).toBeGreaterThan(0);
  });
});

describe('redactSecrets on arbitrary input', () => {
  it('never throws, returns JSON data, and redacting twice changes nothing more', () => {
    const secretish = fc.constantFrom(
      'password=',
      '--token ',
      'Bearer ',
      'https://u:p@h',
      'mysql -p',
      'sk-',
      '-----BEGIN PRIVATE KEY-----',
      '"',
      "'",
      ':',
      '=',
      '\n',
      ' ',
    );
    const text = fc.array(fc.oneof(fc.string(), secretish), { maxLength: 12 }).map((parts) => parts.join(''));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(text, fc.constantFrom('password', 'token', 'api_key', 'name')), tie('node'), {
          maxKeys: 4,
        }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (input) => {
        const once = redactSecrets(input);
        expect(JSON.parse(JSON.stringify(once) ?? 'null')).toEqual(once ?? null);
        expect(redactSecrets(once)).toEqual(once);
      }),
      { numRuns: 2_000 },
    );
  });
});
