import type { Localized } from '@nextai/shared';
import { describe, expect, it } from 'vitest';

import { parseOptions } from './options.js';
import { localized, type ShellPhrase } from './phrases.js';
import { awkProgramConcern, sedScriptConcern, sqlConcern, sqlOnlyReads } from './text-programs.js';
import { computedWord, literalWord } from './words.js';

/** The English of a concern, to match against. */
function english(why: ShellPhrase | Localized | undefined): string | undefined {
  return why === undefined ? undefined : localized(why).en;
}

describe('sed scripts', () => {
  it.each([
    's/a/b/',
    's/a/b/g',
    's#/usr#/opt#gI',
    's/a\\/b/c/2',
    '1,20p',
    '/^#/d',
    '/start/,/end/{s/x/y/;p}',
    '$!N;P;D',
    '1!G;h;$p',
    ':a;N;$!ba;s/\\n/ /g',
    'y/abc/xyz/',
    '$a\\\nlast line',
    '0,/re/s//x/',
    '\\%re%d',
    '# comment\np',
    'q5',
    '=',
  ])('%j only edits text', (script) => {
    expect(sedScriptConcern(script)).toBeUndefined();
  });

  it.each([
    ['s/a/b/e', /runs the result as a command/],
    ['s/a/b/ge', /runs the result as a command/],
    ['1e date', /runs a command/],
    ['s/x/y/;e id', /runs a command/],
    ['w out.txt', /writes a file/],
    ['s/a/b/w out.txt', /writes to a file/],
    ['r /etc/passwd', /reads or writes a file/],
    ['R other', /reads or writes a file/],
    ['W out', /reads or writes a file/],
    ['/x/{w out\n}', /reads or writes a file/],
    ['s/a/b', /unfinished/],
    ['k', /does not know/],
    ['s/a/b/z', /flags the analyser does not know/],
  ])('%j is critical (%s)', (script, why) => {
    expect(english(sedScriptConcern(script))).toMatch(why);
  });
});

describe('awk programs', () => {
  it.each([
    '{print $1}',
    '$3 > 100 {print $1}',
    'NR==1 || NR==2',
    '{ x = a / b; print x }',
    '/a|b/ {print}',
    '{ sum += $2 } END { print sum }',
    'BEGIN { FS = ":" } { print $1 > "/dev/stderr" }',
    '{ printf "%s\\n", ($1 > 2) }',
    '{ print "|" $1 "|" }',
    '{ while ((getline line) > 0) n++ }',
    '!seen[$0]++',
    '{ gsub(/[|]/, "") } 1',
    '# a comment with system() in it\n{ print }',
  ])('%j only transforms text', (program) => {
    expect(awkProgramConcern(program)).toBeUndefined();
  });

  it.each([
    ['BEGIN { system("id") }', /system/],
    ['{ print | "sort" }', /pipes/],
    ['BEGIN { "date" | getline d }', /pipes/],
    ['{ print |& "cat" }', /pipes/],
    ['{ getline line < "/etc/shadow" }', /getline </],
    ['{ getline < FILENAME ".bak" }', /getline </],
    ['{ print > "out.txt" }', /writes to a file/],
    ['{ print $0 >> $1 }', /writes to a file/],
    ['{ printf "%s", $1 > "/home/u/.bashrc" }', /writes to a file/],
    ['@load "filefuncs"', /extensions/],
    ['@include "lib.awk"', /extensions/],
  ])('%j is critical (%s)', (program, why) => {
    expect(english(awkProgramConcern(program))).toMatch(why);
  });
});

describe('database input', () => {
  it.each([
    ['DROP TABLE users', /drops/],
    ['drop   database prod;', /drops/],
    ['DROP SCHEMA public CASCADE', /drops/],
    ['TRUNCATE orders', /empties/],
    ['ALTER TABLE t DROP COLUMN c', /drops columns/],
    ['DELETE FROM t', /every row/],
    ['SELECT 1; DELETE FROM t;', /every row/],
    ['UPDATE t SET a = 1', /every row/],
    ['FLUSHALL', /Redis/],
    ['flushdb', /Redis/],
    ['db.users.drop()', /MongoDB/],
    ['db.dropDatabase()', /MongoDB/],
    ['db.users.deleteMany({})', /every document/],
    ['CONFIG SET dir /root/.ssh', /Redis at another file/],
  ])('%j is destructive', (sql, why) => {
    expect(english(sqlConcern(sql))).toMatch(why);
  });

  it.each([
    'SELECT * FROM t',
    'DELETE FROM t WHERE id = 1',
    'UPDATE t SET a = 1 WHERE id = 2',
    '-- DROP TABLE x\nSELECT 1',
  ])('%j is not destructive', (sql) => {
    expect(sqlConcern(sql)).toBeUndefined();
  });

  it('tells reading from changing', () => {
    expect(sqlOnlyReads('SELECT 1; SHOW TABLES; .tables')).toBe(true);
    expect(sqlOnlyReads('SELECT 1; INSERT INTO t VALUES (1)')).toBe(false);
  });
});

describe('option parsing', () => {
  const spec = { short: 'o', flags: 'rf', long: ['output', 'use-compress-program'], longFlags: ['recursive'] };

  it('reads clusters, attached values, long options and the end of options', () => {
    const parsed = parseOptions(['-rf', '-oout', '--output=x', 'a', '--', '-b'].map(literalWord), spec);
    expect(parsed.options.map((option) => [option.name, option.value?.value])).toEqual([
      ['-r', undefined],
      ['-f', undefined],
      ['-o', 'out'],
      ['--output', 'x'],
    ]);
    expect(parsed.operands.map((operand) => operand.value)).toEqual(['a', '-b']);
  });

  it('resolves unique abbreviations of long options, as getopt_long does', () => {
    const parsed = parseOptions(['--use-comp=sh', '--rec'].map(literalWord), spec);
    expect(parsed.options.map((option) => option.name)).toEqual(['--use-compress-program', '--recursive']);
    expect(parsed.unknown).toEqual([]);
  });

  it('reports unknown options and computed words that could be options', () => {
    const parsed = parseOptions([literalWord('-x'), computedWord('$ARGS')], spec);
    expect(parsed.unknown).toEqual(['-x']);
    expect(parsed.computedOption).toBe(true);
  });

  it('stops at the first operand for wrappers', () => {
    const parsed = parseOptions(['-o', 'x', 'cmd', '-r'].map(literalWord), { ...spec, stopAtOperand: true });
    expect(parsed.operands.map((operand) => operand.value)).toEqual(['cmd', '-r']);
  });
});
