export const REDACTED = '[REDACTED]';

/**
 * Key fragments (lower case, separators removed) whose values are secrets wherever they appear:
 * `db_password`, `X-Api-Key`, `aws_secret_access_key`, `Set-Cookie`, `clientSecret`…
 */
const SECRET_KEY_PARTS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'apikey',
  'accesskey',
  'privatekey',
  'authorization',
  'cookie',
  'credential',
];

/**
 * Keys that name a secret's *place or shape*, not the secret: `password_file`, `token_type`,
 * `secrets_dir`, `--password-stdin`. Redacting them would hide useful, harmless facts.
 */
const NOT_SECRET_SUFFIXES = [
  'file',
  'path',
  'dir',
  'stdin',
  'env',
  'type',
  'count',
  'length',
  'ttl',
  'url',
  'uri',
  'expiry',
  'expires',
  'expiresin',
  'expiresat',
  'required',
  'policy',
];

/** True when the value under `key` is a secret. Case- and separator-insensitive. */
export function isSecretKey(key: string): boolean {
  const name = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (name === '') return false;
  if (NOT_SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix) && name !== suffix)) return false;
  if (SECRET_KEY_PARTS.some((part) => name.includes(part))) return true;
  // `access_token`, `GITHUB_TOKEN`, but not `max_tokens` or `token_count`.
  if (name.endsWith('token')) return true;
  // `MYSQL_PWD`; `OLDPWD` is the shell's previous directory.
  if (name.endsWith('pwd') && name !== 'oldpwd') return true;
  // A web session, but not `session_id`: the bash tools name their terminal sessions that way.
  return name === 'session' || name === 'sessionkey';
}

type Replacer = (match: string, ...groups: string[]) => string;

interface TextRule {
  name: string;
  pattern: RegExp;
  replace: Replacer;
}

/**
 * Keeps the leading groups (the label) and replaces the last one (the secret). String.replace
 * passes (match, ...groups, offset, whole text), hence the three dropped from the end.
 */
const keepLabel: Replacer = (match, ...groups) =>
  alreadyRedacted(groups.at(-3)) ? match : `${groups.slice(0, -3).join('')}${REDACTED}`;

/** A second pass must not swallow text that follows an earlier replacement. */
function alreadyRedacted(value: string | undefined): boolean {
  return value?.startsWith(REDACTED) ?? false;
}

/**
 * Secrets recognised by their shape inside any text. Every pattern starts only at the beginning
 * of a run of its own characters (a lookbehind), ends on a greedy run, and looks at most 400
 * characters past a command name, so no input makes one backtrack quadratically — redaction runs
 * on whatever a model put into a tool call, synchronously in the daemon.
 */
const TEXT_RULES: TextRule[] = [
  {
    // A PEM private key block; one cut off before its END line is redacted to the end of the text.
    name: 'pem private key',
    pattern: /-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g,
    replace: (_match, label) => `-----BEGIN ${label}-----${REDACTED}-----END ${label}-----`,
  },
  {
    // Header lines, e.g. curl -H 'Authorization: Basic dXNlcjpwYXNz' — the whole value goes.
    name: 'secret header',
    pattern:
      /(?<![\w-])((?:proxy-)?authorization|set-cookie|cookie|x-api-key|api-key|x-auth-token|private-token)([ \t]*:[ \t]*)([^\r\n"'\\]+)/gi,
    replace: (_match, name: string, separator: string, value: string) =>
      value.trim() === '' ? `${name}${separator}${value}` : `${name}${separator}${REDACTED}`,
  },
  {
    name: 'bearer token',
    pattern: /(?<![\w-])(bearer)([ \t]+)([\w.~+/-]{8,}=*)/gi,
    replace: keepLabel,
  },
  {
    // scheme://user:password@host keeps the user and the host.
    name: 'url password',
    pattern: /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@"'<>]*:)([^\s/?#@"'<>]+)(?=@)/gi,
    replace: keepLabel,
  },
  {
    // OpenAI (sk-…, sk-proj-…) and Anthropic (sk-ant-…) keys. Real keys contain digits; a long
    // hyphenated word that happens to start with "sk-" does not.
    name: 'sk- api key',
    pattern: /(?<![\w-])sk-[\w-]{20,}/g,
    replace: (match) => (/\d/.test(match) ? REDACTED : match),
  },
  { name: 'github token', pattern: /(?<!\w)(?:gh[pousr]_|github_pat_)\w{20,}/g, replace: () => REDACTED },
  {
    name: 'aws access key id',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    replace: () => REDACTED,
  },
  { name: 'slack token', pattern: /(?<![\w-])xox[abprs]-[\w-]{10,}/g, replace: () => REDACTED },
  { name: 'jwt', pattern: /(?<![\w-])eyJ[\w-]{5,}\.eyJ[\w-]{5,}\.[\w-]*/g, replace: () => REDACTED },
  { name: 'google api key', pattern: /(?<![\w-])AIza[\w-]{35}(?![\w-])/g, replace: () => REDACTED },
  { name: 'stripe key', pattern: /(?<!\w)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g, replace: () => REDACTED },
  { name: 'npm token', pattern: /(?<!\w)npm_[A-Za-z0-9]{36,}/g, replace: () => REDACTED },
  { name: 'hugging face token', pattern: /(?<!\w)hf_[A-Za-z0-9]{30,}/g, replace: () => REDACTED },
  { name: 'gitlab token', pattern: /(?<![\w-])glpat-[\w-]{20,}/g, replace: () => REDACTED },
  {
    // mysql -psecret / -p'secret' (a bare -p prompts, and has nothing to hide).
    name: 'mysql -p',
    pattern: /((?<![\w-])(?:mysql|mariadb)[\w-]*[^;&|\n]{0,400}?\s-p)("[^"\n]*"|'[^'\n]*'|[^\s"';&|]+)/g,
    replace: keepLabel,
  },
  {
    name: 'sshpass -p',
    pattern: /((?<![\w-])sshpass\b[^;&|\n]{0,400}?\s-p[ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"';&|]+)/g,
    replace: keepLabel,
  },
  {
    // curl -u user:password keeps the user.
    name: 'curl -u',
    pattern: /((?<![\w-])curl\b[^;&|\n]{0,400}?\s(?:-u|--user)[ \t=]*["']?[^\s:"']+:)([^\s"']+)/g,
    replace: keepLabel,
  },
  {
    // --password secret, --token "x y": an option named like a secret and its separate value.
    // Values that are variables ($TOKEN) or further options stay.
    name: 'secret option',
    pattern: /(?<![\w-])(--?([A-Za-z][\w-]*)[ \t]+)("[^"\n]*"|'[^'\n]*'|[^\s"';&|$-][^\s"';&|]*)/g,
    replace: (match, label: string, name: string, value: string) =>
      isSecretKey(name) && !alreadyRedacted(value) ? `${label}${quoted(match, label)}` : match,
  },
];

/** The replacement for a value, keeping the quotes it had. */
function quoted(match: string, label: string): string {
  const quote = match[label.length];
  return quote === '"' || quote === "'" ? `${quote}${REDACTED}${quote}` : REDACTED;
}

/**
 * `name=value` and `name: value` where the name is a secret's: `export GITHUB_TOKEN=…`,
 * `--password=…`, `?access_token=…&`, `"password": "…"`, `password: …` (YAML). A name may start
 * only at the beginning of a word (or right after `-`/`--` there), which keeps the scan linear.
 */
const ASSIGNMENT = /(?<=^|[^\w.-]|(?:^|[^\w.-])--?)([A-Za-z_][\w.-]*)(["']?[ \t]*[=:][ \t]*)/g;
const UNQUOTED_VALUE = /[^\s"',;&|)}\]<>]+/y;

function redactAssignments(text: string): string {
  let out = '';
  let copied = 0;
  ASSIGNMENT.lastIndex = 0;
  for (let match = ASSIGNMENT.exec(text); match; match = ASSIGNMENT.exec(text)) {
    const name = match[1] ?? '';
    if (!isSecretKey(name)) {
      // Scan again right after the name: what followed it may itself be `name=value`.
      ASSIGNMENT.lastIndex = match.index + name.length;
      continue;
    }
    const valueStart = match.index + match[0].length;
    const value = text.startsWith(REDACTED, valueStart) ? undefined : valueAt(text, valueStart);
    if (value === undefined) continue;
    if (!isLiteralSecret(value.inner)) {
      // `TOKEN=$GITHUB_TOKEN`: the value is a reference, and skipping it keeps the scan linear.
      ASSIGNMENT.lastIndex = value.end;
      continue;
    }
    out += text.slice(copied, value.start) + value.quote + REDACTED + value.quote;
    copied = value.end;
    ASSIGNMENT.lastIndex = value.end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function valueAt(
  text: string,
  start: number,
): { start: number; end: number; inner: string; quote: string } | undefined {
  const first = text[start];
  if (first === '"' || first === "'") {
    const close = text.indexOf(first, start + 1);
    if (close >= 0) return { start, end: close + 1, inner: text.slice(start + 1, close), quote: first };
    // An unclosed quote (text cut short, or a typo in a command): the rest of the line goes.
    const lineEnd = text.indexOf('\n', start);
    const end = lineEnd < 0 ? text.length : lineEnd;
    return { start, end, inner: text.slice(start + 1, end), quote: '' };
  }
  UNQUOTED_VALUE.lastIndex = start;
  const match = UNQUOTED_VALUE.exec(text);
  if (!match) return undefined;
  return { start, end: start + match[0].length, inner: match[0], quote: '' };
}

/** Variable references and literals that carry no secret stay. */
function isLiteralSecret(value: string): boolean {
  if (value === '' || value.startsWith('$') || value.startsWith('%')) return false;
  return !['true', 'false', 'null', 'none', 'undefined'].includes(value.toLowerCase());
}

function redactText(text: string): string {
  let result = text;
  for (const rule of TEXT_RULES) result = result.replace(rule.pattern, rule.replace as (...args: string[]) => string);
  return redactAssignments(result);
}

export interface RedactOptions {
  /** Longer strings are cut to this length (before redaction, which bounds its cost). */
  maxStringLength?: number;
  /** Deeper nesting is replaced by a marker. */
  maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 32;

/**
 * A deep copy of `value` as plain JSON data, with secrets replaced by "[REDACTED]": every value
 * under a secret-named key (see isSecretKey), and anything inside a string that looks like a
 * secret (API keys and tokens of well-known shapes, JWTs, `Bearer …`, PEM private keys, URL
 * passwords, `--password x`, `TOKEN=…`). Non-JSON values are converted the way JSON.stringify
 * would (Dates to ISO text, `undefined` dropped); cycles and binary data become markers.
 */
export function redactSecrets(value: unknown): unknown {
  return copy(value, { maxDepth: DEFAULT_MAX_DEPTH }, new Set(), 0);
}

/** redactSecrets with limits, for the audit log. */
export function redactForAudit(value: unknown, options: RedactOptions): unknown {
  return copy(value, { maxDepth: DEFAULT_MAX_DEPTH, ...options }, new Set(), 0);
}

function copy(value: unknown, options: RedactOptions, ancestors: Set<object>, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return redactString(value, options.maxStringLength);
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return '[circular reference]';
  if (depth >= (options.maxDepth ?? DEFAULT_MAX_DEPTH)) return '[nested too deeply]';
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
  if (object instanceof ArrayBuffer || ArrayBuffer.isView(object)) {
    return `[${object.byteLength} bytes of binary data]`;
  }
  if (object instanceof Error) return copy({ name: object.name, message: object.message }, options, ancestors, depth);
  if (object instanceof Map) return copy(Object.fromEntries(object), options, ancestors, depth);
  if (object instanceof Set) return copy([...object], options, ancestors, depth);
  const toJSON = (object as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copy(toJSON.call(object), options, ancestors, depth + 1);

  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      return object.map((item) => copy(item, options, ancestors, depth + 1) ?? null);
    }
    const result: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(object)) {
      const copied = isSecretKey(key) && holdsSecret(child) ? REDACTED : copy(child, options, ancestors, depth + 1);
      if (copied === undefined) continue;
      // A key named __proto__ (JSON.parse makes such keys) must stay data, not set a prototype.
      Object.defineProperty(result, key, { value: copied, enumerable: true, writable: true, configurable: true });
    }
    return result;
  } finally {
    ancestors.delete(object);
  }
}

/** `password: null`, `password: false` or `password: ''` reveal nothing worth hiding. */
function holdsSecret(value: unknown): boolean {
  return !(value === null || value === undefined || typeof value === 'boolean' || value === '');
}

/** Cuts first (which bounds the cost of redaction), then notes the cut after redacting. */
function redactString(text: string, max: number | undefined): string {
  if (max === undefined || text.length <= max) return redactText(text);
  // Do not split a surrogate pair: half a character is not valid text.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${redactText(text.slice(0, end))}… [${text.length - end} more characters not recorded]`;
}
