import type { Command } from 'commander';

import { dataPaths } from '../core/paths.js';
import {
  effectiveModelSettings,
  maskApiKey,
  modelFieldOf,
  MODEL_KEYS,
  validateModelValue,
  writeModelValue,
} from '../agent/model-config.js';
import { printJson, printLine } from './output.js';

/**
 * `nextai config`: the model settings in config.json. The CLI edits the file itself, without the
 * daemon: a model must be configurable before the daemon ever ran, and the daemon holds nothing
 * about models that the file does not (it follows config.json and reads it when a run starts).
 */
export function registerConfigCommand(program: Command): void {
  const config = program
    .command('config')
    .description(`See and change the model settings in config.json: ${MODEL_KEYS.join(', ')}.`);

  config
    .command('set')
    .description('Set a model setting, e.g. `nextai config set model.provider openai`.')
    .argument('<key>', MODEL_KEYS.join(' | '))
    .argument('<value>', 'anthropic|openai for model.provider; an http(s) URL for model.base_url')
    .action((key: string, value: string) => {
      const field = modelFieldOf(key);
      const valid = validateModelValue(field, value);
      const file = dataPaths().configFile;
      writeModelValue(file, field, valid);
      printLine(`model.${field} = ${field === 'api_key' ? maskApiKey(valid) : valid} (in ${file})`);
    });

  config
    .command('unset')
    .description('Remove a model setting from config.json, so the environment or the default applies.')
    .argument('<key>', MODEL_KEYS.join(' | '))
    .action((key: string) => {
      const field = modelFieldOf(key);
      const file = dataPaths().configFile;
      writeModelValue(file, field, undefined);
      printLine(`model.${field} removed from ${file}`);
    });

  config
    .command('get')
    .description('Show the model settings in force and where each comes from (the API key masked).')
    .argument('[key]', MODEL_KEYS.join(' | '))
    .option('--json', 'print JSON')
    .action((key: string | undefined, options: { json?: boolean }) => {
      const field = key === undefined ? undefined : modelFieldOf(key);
      const effective = effectiveModelSettings(dataPaths().configFile, process.env);
      const settings = field
        ? effective.settings.filter((setting) => setting.key === `model.${field}`)
        : effective.settings;
      if (options.json) {
        printJson(field ? { ...settings[0], file: effective.file } : effective);
        return;
      }
      const width = Math.max(15, ...settings.map((setting) => setting.key.length));
      for (const setting of settings)
        printLine(`${setting.key.padEnd(width)} ${(setting.value ?? '(not set)').padEnd(32)} ${setting.source}`);
      if (!field) printLine(`${'file:'.padEnd(width)} ${effective.file}`);
      if (effective.problem) printLine(`${'problem:'.padEnd(width)} ${effective.problem}`);
    });
}
