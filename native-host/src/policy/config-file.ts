import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from 'jsonc-parser';

import { policyConfigSchema, type PolicyConfig } from '@nextai/shared';

export type ParsedPolicy = { ok: true; config: PolicyConfig } | { ok: false; problems: string[] };

/**
 * Parses and validates the policy sections of config.json. Every problem names the line, the
 * column and the field, so a person can fix the file; nothing is guessed or repaired.
 */
export function parsePolicyConfig(text: string, file: string): ParsedPolicy {
  const errors: ParseError[] = [];
  // Comments and trailing commas are allowed, as in most editors' JSON-with-comments settings.
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || tree === undefined) {
    // The parser often reports several errors at one spot; the first says what is wrong there.
    const firstAtEachOffset = errors.filter(
      (error, index) => errors.findIndex((other) => other.offset === error.offset) === index,
    );
    const problems = firstAtEachOffset.map((error) => {
      const { line, column } = position(text, error.offset);
      return `${file} line ${line}, column ${column}: ${describeParseError(printParseErrorCode(error.error))}`;
    });
    return { ok: false, problems: problems.length > 0 ? problems : [`${file}: the file is empty or not JSON.`] };
  }
  const parsed = policyConfigSchema.safeParse(getNodeValue(tree));
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const field = issue.path.map(String).join('.') || '(top level)';
      const node = nearestNode(
        tree,
        issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
      );
      const { line, column } = position(text, node?.offset ?? 0);
      return `${file} line ${line}, column ${column}: ${field}: ${issue.message}`;
    }),
  };
}

/** Writes `value` at `path` into the JSON text, keeping the rest of the file as the person wrote it. */
export function editJson(text: string, path: (string | number)[], value: unknown): string {
  const edits = modify(text.trim() === '' ? '{}' : text, path, value, {
    formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
  });
  return applyEdits(text.trim() === '' ? '{}' : text, edits);
}

/** The deepest node that exists along `path` (a missing key points at its parent object). */
function nearestNode(tree: Node, path: (string | number)[]): Node | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = findNodeAtLocation(tree, path.slice(0, length));
    if (node) return node.parent?.type === 'property' ? node.parent : node;
  }
  return tree;
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { line, column };
}

function describeParseError(code: string): string {
  const words: Record<string, string> = {
    InvalidSymbol: 'unexpected character',
    InvalidNumberFormat: 'invalid number',
    PropertyNameExpected: 'expected a property name in double quotes',
    ValueExpected: 'expected a value',
    ColonExpected: 'expected ":"',
    CommaExpected: 'expected ","',
    CloseBraceExpected: 'expected "}"',
    CloseBracketExpected: 'expected "]"',
    EndOfFileExpected: 'unexpected text after the end',
    InvalidCommentToken: 'invalid comment',
    UnexpectedEndOfComment: 'unterminated comment',
    UnexpectedEndOfString: 'unterminated string',
    UnexpectedEndOfNumber: 'unterminated number',
    InvalidUnicode: 'invalid unicode escape',
    InvalidEscapeCharacter: 'invalid escape character',
    InvalidCharacter: 'invalid character',
  };
  return words[code] ?? code;
}
