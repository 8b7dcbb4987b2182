import { describe } from 'vitest';

import { expectLevels, useShellAnalyzer } from './test-support.js';

useShellAnalyzer();

describe('arithmetic, indirection and prompt expansion', () => {
  expectLevels([
    ['echo $((1 + 2 * 3))', 'low'],
    ['x=5; echo $((x + 1))', 'low'],
    ['echo $((x + 1))', 'critical'],
    ['echo $(($# + 1))', 'low'],
    ['echo $(($1 + 1))', 'critical'],
    ['echo $((${#x} + 1))', 'low'],
    ['echo $(( $(date +%s) - 5 ))', 'critical'],
    ['for ((i = 0; i < 10; i++)); do echo $i; done', 'low'],
    ['for i in 1 2 3; do echo $((i * 2)); done', 'low'],
    ['for i in a b; do echo $((i * 2)); done', 'critical'],
    ['i=0; while ((i < 3)); do ((i++)); done', 'low'],
    ['if true; then n=1; fi; echo $((n))', 'critical'],
    ['x=1 | cat; echo $((x))', 'critical'],
    ['(( y = 3 )); echo $((y))', 'low'],
    ['let x=1 y=x+1', 'low'],
    ['let "z = w * 2"', 'critical'],
    ['[[ 3 -eq 3 ]]', 'low'],
    ['n=3; [[ $n -eq 3 ]]', 'low'],
    ['[[ $n -eq 3 ]]', 'critical'],
    ['[[ $s == abc ]]', 'low'],
    ['[ "$n" -eq 3 ]', 'low'],
    ['arr=(a b); echo "${arr[0]}" "${arr[@]}" "${#arr[@]}"', 'low'],
    ['echo "${arr[$i]}"', 'critical'],
    ['echo ${!name}', 'critical'],
    ['echo ${!prefix*} ${!arr[@]}', 'low'],
    ['echo "${x@P}"', 'critical'],
    ['echo "${x@Q}"', 'low'],
    ['echo ${x:0:3}', 'low'],
    ['echo ${x:off:3}', 'critical'],
    ['echo ${x//a/b} ${x%.*} ${x^^}', 'low'],
    ['read -r name', 'low'],
    ["read 'a[$(id)]'", 'critical'],
    ['printf -v out "%s" x', 'low'],
    ["printf -v 'a[$(id)]' x", 'critical'],
    ['a[1]=x', 'low'],
    ['arr=([0]=a [1]=b)', 'low'],
    ['arr=([$x]=1)', 'critical'],
    ['declare -A m=([key]=v [$x]=w)', 'low'],
    ['a[i+1]=x', 'critical'],
    ["unset 'a[$(id)]'", 'critical'],
    ['test -v name', 'low'],
    ["test -v 'a[$(id)]'", 'critical'],
  ]);
});
