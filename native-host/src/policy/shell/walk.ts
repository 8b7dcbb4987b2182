import { say, type Localized } from '@nextai/shared';
import type { Node } from 'web-tree-sitter';

import { shadowedCommand } from './commands/index.js';
import { criticalVariable, storesCommandText } from './environment.js';
import {
  checkPath,
  noteWrittenFile,
  resolvedTargets,
  type Invocation,
  type Output,
  type Place,
  type Stdin,
} from './invocation.js';
import { arithmeticText, setNumeric, subscriptText, useVariable } from './arithmetic-text.js';
import { isHarmlessDevice } from './paths.js';
import { joinZh } from './phrases.js';
import type { AnalysisState } from './state.js';
import { HISTORY_EXPANSION, computedWord, evaluateWord, literalWord, type Word } from './words.js';

/** Deeper syntax than this is not analysed (and fails closed) so that input cannot exhaust the stack. */
const MAX_NESTING = 150;
const NO_OUTPUT: Output = { download: false };

/** Walks a parsed program: every statement, and every command hidden inside words. */
export function walkProgram(root: Node, st: AnalysisState, stdin: Stdin): void {
  walkStatement(root, st, stdin);
}

function deeper<T>(st: AnalysisState, node: Node, fallback: T, run: () => T): T {
  st.tick();
  if (st.nesting >= MAX_NESTING) {
    st.raise('critical', 'is nested too deeply to analyse (fails closed)', node.text);
    return fallback;
  }
  st.nesting += 1;
  try {
    return run();
  } finally {
    st.nesting -= 1;
  }
}

/** Runs `walk` as code that may not run (a branch, a loop body, a function body). */
function conditionally<T>(st: AnalysisState, walk: () => T): T {
  st.conditional += 1;
  try {
    return walk();
  } finally {
    st.conditional -= 1;
  }
}

/** Runs `walk` in a subshell: variable assignments inside do not outlive it. */
function inSubshell<T>(st: AnalysisState, walk: () => T): T {
  const saved = st.numericVars;
  st.numericVars = new Set(saved);
  try {
    return walk();
  } finally {
    st.numericVars = saved;
  }
}

function statements(node: Node): Node[] {
  return node.namedChildren.filter((child) => child.type !== 'comment');
}

function walkStatement(node: Node, st: AnalysisState, stdin: Stdin): Output {
  return deeper(st, node, NO_OUTPUT, () => statement(node, st, stdin));
}

function statement(node: Node, st: AnalysisState, stdin: Stdin): Output {
  switch (node.type) {
    case 'program':
    case 'do_group':
    case 'else_clause':
      return sequence(node, st, stdin);
    case 'list': {
      // `a && b || c …` nests to the left, one level per operator: walk it as a flat chain so
      // that a long chain is not mistaken for deep nesting.
      const { nodes, operators } = flattenList(node);
      const [first, ...rest] = nodes;
      let output = first ? walkCd(first, st, stdin, operators[0]) : NO_OUTPUT;
      // Everything after the first && or || runs only sometimes.
      rest.forEach((next, index) => {
        output = conditionally(st, () => walkCd(next, st, stdin, operators[index + 1]));
      });
      return output;
    }
    case 'pipeline': {
      let output: Output | undefined;
      for (const stage of statements(node)) {
        const input: Stdin =
          output === undefined ? stdin : { kind: 'pipe', download: output.download, text: output.text };
        output = inSubshell(st, () => walkStatement(stage, st, input));
      }
      return output ?? NO_OUTPUT;
    }
    case 'subshell':
      return inSubshell(st, () => sequence(node, st, stdin));
    case 'compound_statement':
      if (node.child(0)?.type === '((') {
        for (const child of node.namedChildren) arithmetic(child, st, stdin, node.text);
        return NO_OUTPUT;
      }
      return sequence(node, st, stdin);
    case 'redirected_statement':
      return redirectedStatement(node, st, stdin);
    case 'command':
      return command(node, st, stdin, [], []);
    case 'variable_assignment':
      assignment(node, st, 'shell', stdin);
      return NO_OUTPUT;
    case 'variable_assignments':
      for (const child of node.namedChildren) assignment(child, st, 'shell', stdin);
      return NO_OUTPUT;
    case 'declaration_command':
      declaration(node, st, stdin);
      return NO_OUTPUT;
    case 'unset_command':
      unset(node, st, stdin);
      return NO_OUTPUT;
    case 'test_command':
      testExpression(node, st, stdin, node.child(0)?.type === '[[', node.text);
      return NO_OUTPUT;
    case 'negated_command':
      for (const child of statements(node)) walkStatement(child, st, stdin);
      return NO_OUTPUT;
    case 'for_statement':
      forStatement(node, st, stdin);
      return NO_OUTPUT;
    case 'c_style_for_statement':
      cStyleFor(node, st, stdin);
      return NO_OUTPUT;
    case 'while_statement':
      conditionally(st, () => {
        for (const child of statements(node)) walkStatement(child, st, stdin);
      });
      return NO_OUTPUT;
    case 'if_statement':
      ifStatement(node, st, stdin);
      return NO_OUTPUT;
    case 'case_statement':
      caseStatement(node, st, stdin);
      return NO_OUTPUT;
    case 'function_definition':
      functionDefinition(node, st, stdin);
      return NO_OUTPUT;
    default:
      st.raise('critical', unhandledSyntax(node.type), node.text);
      return NO_OUTPUT;
  }
}

/** A chain's statements, and the operator after each (`&&`, `||`; none after the last). */
function flattenList(node: Node): { nodes: Node[]; operators: (string | undefined)[] } {
  const rights: Node[] = [];
  const operators: string[] = [];
  let current: Node | undefined = node;
  while (current?.type === 'list') {
    const [left, right]: (Node | undefined)[] = statements(current);
    if (right) rights.push(right);
    const operator = current.children.find((child) => !child.isNamed && (child.type === '&&' || child.type === '||'));
    operators.push(operator?.type ?? '');
    current = left;
  }
  return { nodes: [...(current ? [current] : []), ...rights.reverse()], operators: operators.reverse() };
}

/**
 * Walks one statement of a chain. When it is a plain `cd x` followed by `&&`, what follows runs
 * only if the cd succeeded: the folders before it are no longer possible (`cd ~/app && rm -rf
 * build` deletes ~/app/build, not ~/build).
 */
function walkCd(node: Node, st: AnalysisState, stdin: Stdin, operator: string | undefined): Output {
  st.lastCd = undefined;
  const output = walkStatement(node, st, stdin);
  const name = node.type === 'command' ? node.childForFieldName('name')?.text : undefined;
  // Set by the walk just above (TypeScript cannot see that through the call).
  const cd = st.lastCd as AnalysisState['lastCd'];
  if (operator === '&&' && (name === 'cd' || name === 'pushd') && cd && st.cwds !== undefined) {
    st.cwds = cd.targets;
  }
  st.lastCd = undefined;
  return output;
}

function sequence(node: Node, st: AnalysisState, stdin: Stdin): Output {
  let output = NO_OUTPUT;
  for (const child of statements(node)) output = walkStatement(child, st, stdin);
  return output;
}

function ifStatement(node: Node, st: AnalysisState, stdin: Stdin): void {
  // The first condition always runs; everything after it only sometimes.
  let first = true;
  for (let index = 0; index < node.childCount; index++) {
    const child = node.child(index);
    if (!child?.isNamed || child.type === 'comment') continue;
    if (first && node.fieldNameForChild(index) === 'condition') {
      walkStatement(child, st, stdin);
      continue;
    }
    first = false;
    if (child.type === 'elif_clause') {
      conditionally(st, () => {
        for (const part of statements(child)) walkStatement(part, st, stdin);
      });
    } else {
      conditionally(st, () => walkStatement(child, st, stdin));
    }
  }
}

function caseStatement(node: Node, st: AnalysisState, stdin: Stdin): void {
  const value = node.childForFieldName('value');
  if (value) scanWord(value, st, stdin);
  for (const item of node.namedChildren) {
    if (item.type !== 'case_item') continue;
    conditionally(st, () => {
      for (let index = 0; index < item.childCount; index++) {
        const child = item.child(index);
        if (!child?.isNamed || child.type === 'comment') continue;
        if (item.fieldNameForChild(index) === 'value') scanWord(child, st, stdin);
        else walkStatement(child, st, stdin);
      }
    });
  }
}

function forStatement(node: Node, st: AnalysisState, stdin: Stdin): void {
  const variable = node.childForFieldName('variable')?.text ?? '';
  const values = node.childrenForFieldName('value');
  for (const value of values) scanWord(value, st, stdin);
  const numeric = values.length > 0 && values.every((value) => /^-?\d+$/.test(value.text));
  setNumeric(st, variable, numeric);
  const body = node.childForFieldName('body');
  if (body) conditionally(st, () => walkStatement(body, st, stdin));
}

function cStyleFor(node: Node, st: AnalysisState, stdin: Stdin): void {
  for (const part of node.childrenForFieldName('initializer')) arithmetic(part, st, stdin, node.text);
  for (const part of node.childrenForFieldName('condition')) arithmetic(part, st, stdin, node.text);
  conditionally(st, () => {
    for (const part of node.childrenForFieldName('update')) arithmetic(part, st, stdin, node.text);
    const body = node.childForFieldName('body');
    if (body) walkStatement(body, st, stdin);
  });
}

function functionDefinition(node: Node, st: AnalysisState, stdin: Stdin): void {
  const name = node.childForFieldName('name')?.text ?? '';
  const shadowed = shadowedCommand(name);
  if (shadowed) {
    st.raise(
      'critical',
      say(`defines a function that replaces ${shadowed.en}`, joinZh('定义函数顶替', shadowed['zh-CN'])),
      node.text,
    );
  }
  st.functions.add(name);
  const body = node.childForFieldName('body');
  // The body is analysed as if it ran, wherever and however often it is called.
  st.defining.push(name);
  try {
    if (body) conditionally(st, () => walkStatement(body, st, stdin));
  } finally {
    st.defining.pop();
  }
  for (const redirect of node.childrenForFieldName('redirect')) applyRedirect(redirect, st, stdin, node.text);
}

/** What a redirect means for the command it belongs to. */
interface RedirectEffect {
  stdin?: Stdin;
  stdout?: Word;
  /** `>>`: the file keeps what it had, so its whole content is not known. */
  append?: boolean;
}

function redirectedStatement(node: Node, st: AnalysisState, stdin: Stdin): Output {
  const body = node.childForFieldName('body');
  let input = stdin;
  let stdout: Word | undefined;
  let append = false;
  const extraArgs: Node[] = [];
  const followers: { node: Node; piped: boolean }[] = [];
  const apply = (effect: RedirectEffect) => {
    if (effect.stdin) input = effect.stdin;
    if (effect.stdout) {
      stdout = effect.stdout;
      append = effect.append ?? false;
    }
  };
  // The paths the redirects below record for the sandbox (effects.ts), from here…
  const redirectsFrom = st.effects.paths.length;
  for (let index = 0; index < node.childCount; index++) {
    const child = node.child(index);
    if (!child?.isNamed || (body && child.equals(body))) continue;
    if (child.type === 'heredoc_redirect') {
      input = { kind: 'text', text: heredocText(child) };
      for (let at = 0; at < child.childCount; at++) {
        const part = child.child(at);
        if (!part?.isNamed) continue;
        const field = child.fieldNameForChild(at);
        if (part.type === 'heredoc_body') scanWord(part, st, stdin);
        else if (field === 'argument') extraArgs.push(part);
        else if (field === 'redirect') apply(applyRedirect(part, st, stdin, node.text));
        else if (part.type === 'pipeline') followers.push({ node: part, piped: true });
        else if (field === 'right') followers.push({ node: part, piped: false });
      }
    } else if (child.type !== 'comment') {
      apply(applyRedirect(child, st, stdin, node.text));
    }
  }
  let output = NO_OUTPUT;
  if (body?.type === 'command') {
    output = command(body, st, input, extraArgs, []);
  } else if (body) {
    for (const extra of extraArgs) scanWord(extra, st, stdin);
    const redirectsTo = st.effects.paths.length;
    const cwdsBefore = st.cwds;
    output = walkStatement(body, st, input);
    // The grammar hangs `a && cd ~ && echo x > .bashrc`'s redirect on the whole chain, while bash
    // opens it after the cd. When the body changed folder, check the targets in the new ones too.
    if (st.cwds !== cwdsBefore) {
      // In a chain of `&&` only, the redirect's command runs only after every step succeeded, the
      // cd included: for the sandbox, its targets are only where the cd went (the risk above
      // keeps the old folder too, as it always did).
      if (body.type === 'list' && flattenList(body).operators.every((operator) => operator === '&&')) {
        st.effects.paths.splice(redirectsFrom, redirectsTo - redirectsFrom);
      }
      for (const child of node.namedChildren) {
        if (child.type === 'file_redirect') applyRedirect(child, st, stdin, node.text);
      }
    }
  }
  noteOutput(st, output, stdout, append);
  for (const follower of followers) {
    if (follower.piped) {
      for (const stage of statements(follower.node)) {
        const piped: Stdin = { kind: 'pipe', download: output.download, text: output.text };
        output = inSubshell(st, () => walkStatement(stage, st, piped));
      }
    } else {
      output = conditionally(st, () => walkStatement(follower.node, st, stdin));
    }
  }
  return output;
}

/**
 * Output written to a file: a download makes the file a download, and fixed text is kept so
 * that running the file later runs that text.
 */
function noteOutput(st: AnalysisState, output: Output, stdout: Word | undefined, append: boolean): void {
  if (stdout?.value === undefined) return;
  if (output.download) {
    for (const target of resolvedTargets(st, stdout)) st.downloads.add(target);
  }
  noteWrittenFile(st, stdout, append ? undefined : output.text);
}

/** The text a heredoc feeds in, or undefined when the shell computes part of it. */
function heredocText(node: Node): string | undefined {
  let start = '';
  let body: Node | undefined;
  let stripTabs = false;
  for (const child of node.children) {
    if (child.type === 'heredoc_start') start = child.text;
    else if (child.type === 'heredoc_body') body = child;
    else if (child.type === '<<-') stripTabs = true;
  }
  let text = body?.text ?? '';
  // History expansion happens as lines are read, before quoting of the delimiter matters.
  if (HISTORY_EXPANSION.test(text)) return undefined;
  if (!/['"\\]/.test(start)) {
    if (body?.namedChildren.some((child) => child.type !== 'heredoc_content')) return undefined;
    text = text.replace(/\\\n/g, '').replace(/\\([$`\\])/g, '$1');
  }
  return stripTabs ? text.replace(/^\t+/gm, '') : text;
}

function command(node: Node, st: AnalysisState, stdin: Stdin, extraArgs: Node[], extraRedirects: Node[]): Output {
  let nameNode: Node | undefined;
  const argNodes: Node[] = [];
  const redirects: Node[] = [...extraRedirects];
  const prefixes: Node[] = [];
  for (let index = 0; index < node.childCount; index++) {
    const child = node.child(index);
    if (!child) continue;
    const field = node.fieldNameForChild(index);
    if (field === 'name') nameNode = child;
    else if (field === 'argument') argNodes.push(child);
    else if (field === 'redirect') redirects.push(child);
    else if (child.type === 'variable_assignment') prefixes.push(child);
    else if (child.type === 'comment') continue;
    else if (child.isNamed) {
      st.raise('critical', unhandledSyntax(child.type), node.text);
      if (child.type === 'subshell') walkStatement(child, st, stdin);
    }
  }
  const env = new Map<string, Word>();
  for (const prefix of prefixes) {
    const assigned = assignment(prefix, st, 'prefix', stdin);
    if (assigned) env.set(assigned.name, assigned.value);
  }
  let input = stdin;
  let stdout: Word | undefined;
  let append = false;
  for (const redirect of redirects) {
    const effect = applyRedirect(redirect, st, stdin, node.text);
    if (effect.stdin) input = effect.stdin;
    if (effect.stdout) {
      stdout = effect.stdout;
      append = effect.append ?? false;
    }
  }
  const args = [...argNodes, ...extraArgs].map((arg) => {
    scanWord(arg, st, stdin);
    return arg.isNamed ? evaluateWord(arg, st.wordEnv()) : literalWord(arg.text);
  });
  if (!nameNode) return NO_OUTPUT;
  scanWord(nameNode, st, stdin);
  const literal = nameNode.namedChildCount === 1 ? (nameNode.namedChild(0) as Node) : nameNode;
  const name = literal.type === 'command_name' ? computedWord(literal.text) : evaluateWord(literal, st.wordEnv());
  const excerpt = extraArgs.length > 0 ? `${node.text} ${extraArgs.map((arg) => arg.text).join(' ')}` : node.text;
  if (env.has('IFS') && !(name.value === 'read' || name.value === 'mapfile' || name.value === 'readarray')) {
    st.raise('critical', 'changes how the shell splits words (IFS)', excerpt);
  }
  const inv: Invocation = {
    name,
    program: '',
    args,
    stdin: input,
    env,
    excerpt,
    output: { download: input.kind === 'pipe' && input.download },
  };
  st.invoke(inv);
  noteOutput(st, inv.output, stdout, append);
  return stdout === undefined ? inv.output : NO_OUTPUT;
}

const CLOSE_OR_DUPLICATE = /^(?:\d+|-)$/;

function applyRedirect(node: Node, st: AnalysisState, stdin: Stdin, excerpt: string): RedirectEffect {
  if (node.type === 'herestring_redirect') {
    const literal = node.namedChildren.find((child) => child.type !== 'file_descriptor');
    if (!literal) return {};
    scanWord(literal, st, stdin);
    const word = evaluateWord(literal, st.wordEnv());
    return { stdin: { kind: 'text', text: word.value === undefined ? undefined : `${word.value}\n` } };
  }
  if (node.type !== 'file_redirect') {
    st.raise(
      'critical',
      say(
        `uses a redirect the analyser does not handle (${node.type}; fails closed)`,
        `使用了分析器无法处理的重定向（${node.type}；无法确认安全，按最危险处理）`,
      ),
      excerpt,
    );
    return {};
  }
  const operator = node.children.find((child) => !child.isNamed)?.type ?? '';
  const descriptor = node.childForFieldName('descriptor')?.text;
  const destinations = node.childrenForFieldName('destination');
  for (const destination of destinations) scanWord(destination, st, stdin);
  if (operator === '<&-' || operator === '>&-') return {};
  const only = destinations.length === 1 ? destinations[0] : undefined;
  if (!only) {
    st.raise('critical', 'redirects to a target the analyser cannot read (fails closed)', excerpt);
    return {};
  }
  const word = evaluateWord(only, st.wordEnv());
  const place: Place = { excerpt };
  if ((operator === '>&' || operator === '<&') && word.value !== undefined && CLOSE_OR_DUPLICATE.test(word.value)) {
    return {};
  }
  if (operator === '<' || operator === '<&') {
    checkPath(st, place, word, 'read');
    return descriptor === undefined || descriptor === '0' ? { stdin: { kind: 'file', word } } : {};
  }
  checkPath(st, place, word, 'write');
  if (word.value === undefined || !isHarmlessDevice(word.value)) st.raise('medium', 'writes output to a file', excerpt);
  const toStdout = descriptor === undefined || descriptor === '1' || operator.startsWith('&') || operator === '>&';
  return toStdout ? { stdout: word, append: operator === '>>' || operator === '&>>' } : {};
}

interface Assigned {
  name: string;
  value: Word;
}

function assignment(
  node: Node,
  st: AnalysisState,
  mode: 'shell' | 'prefix' | 'declare',
  stdin: Stdin,
): Assigned | undefined {
  const nameNode = node.childForFieldName('name');
  const valueNode = node.childForFieldName('value');
  if (!nameNode) return undefined;
  let name = nameNode.text;
  if (nameNode.type === 'subscript') {
    name = nameNode.childForFieldName('name')?.text ?? name;
    subscript(nameNode, st, stdin, node.text);
  }
  let value: Word = literalWord('');
  if (valueNode) {
    scanWord(valueNode, st, stdin);
    value = valueNode.type === 'array' ? computedWord(valueNode.text) : evaluateWord(valueNode, st.wordEnv());
    if (valueNode.type === 'array' && !st.assocArrays.has(name)) {
      // `a=([i]=x)`: the index of an indexed array is arithmetic, like `a[i]=x`.
      for (const element of valueNode.namedChildren) {
        const index = /^\[(.*?)\]\+?=/s.exec(element.text)?.[1];
        if (index !== undefined) arithmeticText(index, st, node.text);
      }
    }
  }
  const appends = node.children.some((child) => child.type === '+=');
  // `IFS=… read` only changes how read splits its line; the command decides (see command()).
  if (!(mode === 'prefix' && name === 'IFS'))
    judgeAssignment(st, name, appends ? computedWord(node.text) : value, node.text);
  if (mode !== 'prefix') {
    const numeric = !appends && (valueNode?.type === 'arithmetic_expansion' || /^-?\d+$/.test(value.value ?? ''));
    setNumeric(st, name, numeric);
    if (name === 'HOME') st.homeKnown = false;
    if (name === 'PWD') st.pwdKnown = false;
  }
  return { name, value };
}

function judgeAssignment(st: AnalysisState, name: string, value: Word, excerpt: string): void {
  // A proxy sees every request: the network guard hears about it like any other address.
  if (/^(?:https?|all|ftp)_proxy$/i.test(name) && value.value) {
    const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(value.value) ? value.value : `http://${value.value}`;
    st.verdict(st.guards.checkUrl(url), excerpt);
  }
  const why = criticalVariable(name, value);
  if (why) st.raise('critical', why, excerpt);
  if (storesCommandText(value)) {
    st.raise('critical', 'stores command text that a later expansion or arithmetic could run', excerpt);
  }
}

function declaration(node: Node, st: AnalysisState, stdin: Stdin): void {
  const keyword = node.child(0)?.type ?? 'declare';
  const flags = new Set<string>();
  const assignments: Node[] = [];
  const names: Word[] = [];
  for (const child of node.namedChildren) {
    if (child.type === 'variable_assignment') {
      assignments.push(child);
      continue;
    }
    scanWord(child, st, stdin);
    const word = evaluateWord(child, st.wordEnv());
    if (word.value !== undefined && /^[-+][A-Za-z]+$/.test(word.value) && names.length === 0) {
      for (const letter of word.value.slice(1)) flags.add(letter);
    } else {
      names.push(word);
    }
  }
  const excerpt = node.text;
  if (flags.has('f') && (keyword === 'export' || flags.has('x'))) {
    st.raise('critical', 'exports shell functions to every child shell', excerpt);
  }
  if (flags.has('n')) st.raise('critical', 'makes a variable refer to another one by name', excerpt);
  const integer = flags.has('i');
  for (const child of assignments) {
    if (flags.has('A')) st.assocArrays.add(child.childForFieldName('name')?.text ?? '');
    const assigned = assignment(child, st, 'declare', stdin);
    if (!assigned) continue;
    if (integer && !/^-?\d+$/.test(assigned.value.value ?? '')) {
      st.raise('critical', 'declares an integer variable from a value that is not a number', excerpt);
    }
  }
  for (const word of names) {
    if (word.value === undefined) {
      st.raise(
        'critical',
        say(`${keyword}s a variable whose name is computed at run time`, `用 ${keyword} 设置名字在运行时才确定的变量`),
        excerpt,
      );
      continue;
    }
    const equals = word.value.indexOf('=');
    const name = equals >= 0 ? word.value.slice(0, equals) : word.value;
    if (flags.has('A')) st.assocArrays.add(name);
    if (name.includes('[')) subscriptText(name, st, excerpt);
    if (equals >= 0) {
      // `export "PATH=/tmp"` is an assignment the grammar sees as a plain word.
      const value = literalWord(word.value.slice(equals + 1));
      judgeAssignment(st, name, value, excerpt);
      setNumeric(st, name, /^-?\d+$/.test(value.value ?? ''));
      if (integer && !/^-?\d+$/.test(value.value ?? '')) {
        st.raise('critical', 'declares an integer variable from a value that is not a number', excerpt);
      }
    } else if (integer) {
      st.raise('critical', 'makes later assignments to a variable run as arithmetic', excerpt);
    }
  }
}

function unset(node: Node, st: AnalysisState, stdin: Stdin): void {
  let functions = false;
  for (const child of node.namedChildren) {
    scanWord(child, st, stdin);
    const word = evaluateWord(child, st.wordEnv());
    if (word.value === undefined) {
      st.raise('critical', 'unsets a variable whose name is computed at run time', node.text);
      continue;
    }
    if (/^-[fvn]+$/.test(word.value)) {
      functions ||= word.value.includes('f');
      continue;
    }
    if (functions) continue;
    if (word.value.includes('[')) subscriptText(word.value, st, node.text);
    const why = criticalVariable(word.value, undefined);
    if (why) st.raise('critical', why, node.text);
    st.numericVars.delete(word.value);
  }
}

const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** `[[ … ]]` and `[ … ]`: `[[` evaluates the operands of -eq and friends as arithmetic. */
function testExpression(node: Node, st: AnalysisState, stdin: Stdin, double: boolean, excerpt: string): void {
  deeper(st, node, undefined, () => {
    for (const child of node.namedChildren) {
      if (child.type === 'binary_expression') {
        const operator = child.childForFieldName('operator');
        const left = child.childForFieldName('left');
        const right = child.childForFieldName('right');
        if (double && operator && ARITHMETIC_TESTS.has(operator.text)) {
          if (left) arithmeticOperand(left, st, stdin, excerpt);
          if (right) arithmeticOperand(right, st, stdin, excerpt);
        } else {
          testExpression(child, st, stdin, double, excerpt);
        }
      } else if (child.type === 'unary_expression') {
        const operator = child.childForFieldName('operator')?.text;
        const operand = child.namedChildren.find((part) => part.type !== 'test_operator');
        if (operator === '-v' && operand) {
          scanWord(operand, st, stdin);
          const word = evaluateWord(operand, st.wordEnv());
          if (word.value === undefined) st.raise('critical', 'tests a variable whose name is computed', excerpt);
          else if (word.value.includes('[')) subscriptText(word.value, st, excerpt);
        } else {
          testExpression(child, st, stdin, double, excerpt);
        }
      } else if (child.type === 'parenthesized_expression' || child.type === 'ternary_expression') {
        testExpression(child, st, stdin, double, excerpt);
      } else if (child.type === 'redirected_statement') {
        walkStatement(child, st, stdin);
      } else if (child.type !== 'test_operator') {
        scanWord(child, st, stdin);
      }
    }
  });
}

/** An operand that `[[ -eq ]]`, a subscript or `let` evaluates as arithmetic. */
function arithmeticOperand(node: Node, st: AnalysisState, stdin: Stdin, excerpt: string): void {
  if (['simple_expansion', 'expansion', 'variable_name', 'number', 'binary_expression'].includes(node.type)) {
    arithmetic(node, st, stdin, excerpt);
    return;
  }
  scanWord(node, st, stdin);
  const word = evaluateWord(node, st.wordEnv());
  if (word.value === undefined) {
    st.raise('critical', 'does arithmetic on a value computed at run time, which can run commands', excerpt);
  } else {
    arithmeticText(word.value, st, excerpt);
  }
}

/** Checks arithmetic syntax: variables in it must provably hold numbers, or `a[$(cmd)]` in one runs cmd. */
function arithmetic(node: Node, st: AnalysisState, stdin: Stdin, excerpt: string): void {
  deeper(st, node, undefined, () => arithmeticNode(node, st, stdin, excerpt));
}

const ASSIGNING = /^(?:=|\+=|-=|\*=|\/=|%=|\*\*=|<<=|>>=|&=|\^=|\|=)$/;

function arithmeticNode(node: Node, st: AnalysisState, stdin: Stdin, excerpt: string): void {
  switch (node.type) {
    case 'number':
      if (node.namedChildCount > 0) {
        st.raise('critical', 'does arithmetic with a computed number base', excerpt);
        for (const child of node.namedChildren) scanWord(child, st, stdin);
      }
      return;
    case 'variable_name':
    case 'word':
      if (/^\d/.test(node.text)) return;
      if (/^[A-Za-z_]\w*$/.test(node.text)) useVariable(node.text, st, excerpt);
      else arithmeticText(node.text, st, excerpt);
      return;
    case 'simple_expansion': {
      const inner = node.namedChild(0);
      if (inner?.type === 'special_variable_name' && ['#', '?', '$', '!'].includes(inner.text)) return;
      if (inner?.type === 'variable_name' && /^[A-Za-z_]\w*$/.test(inner.text)) useVariable(inner.text, st, excerpt);
      else st.raise('critical', 'does arithmetic on a value computed at run time, which can run commands', excerpt);
      return;
    }
    case 'expansion': {
      const parts = node.children;
      const simple = parts.length === 3 && parts[1]?.type === 'variable_name';
      const length = parts.length === 4 && parts[1]?.type === '#' && parts[2]?.type === 'variable_name';
      if (simple) useVariable(parts[1]?.text ?? '', st, excerpt);
      else if (!length) {
        st.raise('critical', 'does arithmetic on a value computed at run time, which can run commands', excerpt);
      }
      scanWord(node, st, stdin);
      return;
    }
    case 'command_substitution':
      scanWord(node, st, stdin);
      st.raise('critical', "does arithmetic on a command's output, which can run further commands", excerpt);
      return;
    case 'subscript':
      subscript(node, st, stdin, excerpt);
      st.raise('critical', 'does arithmetic on an array element, whose value is not known to be a number', excerpt);
      return;
    case 'string':
    case 'raw_string': {
      scanWord(node, st, stdin);
      const word = evaluateWord(node, st.wordEnv());
      if (word.value === undefined) {
        st.raise('critical', 'does arithmetic on a value computed at run time, which can run commands', excerpt);
      } else {
        arithmeticText(word.value, st, excerpt);
      }
      return;
    }
    case 'variable_assignment': {
      const name = node.childForFieldName('name');
      const value = node.childForFieldName('value');
      if (value) arithmetic(value, st, stdin, excerpt);
      if (name) setNumeric(st, name.text, true);
      return;
    }
    case 'binary_expression': {
      const operator = node.childForFieldName('operator')?.text ?? '';
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (right) arithmetic(right, st, stdin, excerpt);
      if (left && ASSIGNING.test(operator) && /^[A-Za-z_]\w*$/.test(left.text)) {
        if (operator !== '=') useVariable(left.text, st, excerpt);
        setNumeric(st, left.text, true);
      } else if (left) {
        arithmetic(left, st, stdin, excerpt);
      }
      return;
    }
    case 'postfix_expression':
    case 'unary_expression': {
      const operand = node.namedChildren[0];
      if (!operand) return;
      arithmetic(operand, st, stdin, excerpt);
      const operator = node.childForFieldName('operator')?.text;
      if ((operator === '++' || operator === '--') && /^[A-Za-z_]\w*$/.test(operand.text)) {
        setNumeric(st, operand.text, true);
      }
      return;
    }
    case 'parenthesized_expression':
    case 'ternary_expression':
      for (const child of node.namedChildren) arithmetic(child, st, stdin, excerpt);
      return;
    default:
      st.raise(
        'critical',
        say(
          `uses arithmetic the analyser does not handle (${node.type}; fails closed)`,
          `使用了分析器无法处理的算术表达式（${node.type}；无法确认安全，按最危险处理）`,
        ),
        excerpt,
      );
  }
}

/** `a[i]`: the index of an indexed array is arithmetic; that of an associative one is plain text. */
function subscript(node: Node, st: AnalysisState, stdin: Stdin, excerpt: string): void {
  const name = node.childForFieldName('name')?.text ?? '';
  const index = node.childForFieldName('index');
  if (!index) return;
  if (st.assocArrays.has(name) || index.text === '@' || index.text === '*') {
    scanWord(index, st, stdin);
    return;
  }
  arithmeticOperand(index, st, stdin, excerpt);
}

/**
 * Finds what runs inside a word: command and process substitutions, arithmetic, and
 * expansions that evaluate code (`${!x}` indirection, `${x@P}` prompt expansion).
 */
function scanWord(node: Node, st: AnalysisState, stdin: Stdin): void {
  if (node.childCount === 0) return;
  deeper(st, node, undefined, () => {
    switch (node.type) {
      case 'command_substitution':
        commandSubstitution(node, st, stdin);
        return;
      case 'process_substitution': {
        const input: Stdin = node.child(0)?.type === '>(' ? { kind: 'pipe', download: false } : stdin;
        inSubshell(st, () => {
          for (const child of statements(node)) walkStatement(child, st, input);
        });
        return;
      }
      case 'arithmetic_expansion':
        for (const child of node.namedChildren) arithmetic(child, st, stdin, node.text);
        return;
      case 'expansion':
        expansion(node, st, stdin);
        return;
      case 'subscript':
        subscript(node, st, stdin, node.text);
        return;
      case 'simple_expansion':
        return;
      default:
        for (const child of node.namedChildren) scanWord(child, st, stdin);
    }
  });
}

function commandSubstitution(node: Node, st: AnalysisState, stdin: Stdin): void {
  inSubshell(st, () => {
    for (let index = 0; index < node.childCount; index++) {
      const child = node.child(index);
      if (!child?.isNamed || child.type === 'comment') continue;
      if (node.fieldNameForChild(index) === 'redirect') {
        // `$(< file)` reads the file into the command line.
        applyRedirect(child, st, stdin, node.text);
      } else {
        walkStatement(child, st, stdin);
      }
    }
  });
}

function expansion(node: Node, st: AnalysisState, stdin: Stdin): void {
  const parts = node.children;
  const excerpt = node.text;
  if (parts[1]?.type === '!') {
    const target = parts[2];
    const rest = parts.slice(3, -1);
    const listsNames = rest.length === 1 && (rest[0]?.type === '*' || rest[0]?.type === '@');
    const index = target?.type === 'subscript' ? target.childForFieldName('index')?.text : undefined;
    const listsKeys = index === '@' || index === '*';
    if (!listsNames && !listsKeys) {
      st.raise('critical', 'reads a variable named by another variable (${!…}), which can run commands', excerpt);
    }
  }
  let afterColon = false;
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index] as Node;
    if (part.type === '@' && parts[index + 1]?.text === 'P') {
      st.raise('critical', 'expands a value as a prompt (${…@P}), which runs commands inside it', excerpt);
    }
    if (part.type === ':') afterColon = true;
    if (!part.isNamed) continue;
    if (afterColon) arithmeticOperand(part, st, stdin, excerpt);
    else if (part.type === 'subscript') subscript(part, st, stdin, excerpt);
    else scanWord(part, st, stdin);
  }
}

/** Syntax the walk has no rule for: judged as the worst it could be. */
function unhandledSyntax(type: string): Localized {
  return say(
    `uses shell syntax the analyser does not handle (${type}; fails closed)`,
    `使用了分析器无法处理的 shell 语法（${type}；无法确认安全，按最危险处理）`,
  );
}
