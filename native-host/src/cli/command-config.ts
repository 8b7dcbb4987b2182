import type { Command } from 'commander';

import { dataPaths } from '../core/paths.js';
import {
  effectiveModelSettings,
  maskApiKey,
  modelFieldOf,
  MODEL_KEYS,
  planModelChanges,
  readModelConfig,
  validateModelValue,
  writeModelValue,
  writeModelValues,
} from '../agent/model-config.js';
import { findPreset, PRESET_IDS } from '../agent/providers/presets.js';
import { selectProvider } from '../agent/providers/select.js';
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
    .description(
      'Set a model setting, e.g. `nextai config set model.preset deepseek` (which also sets the provider, ' +
        'base URL and model) or `nextai config set model.provider openai`.',
    )
    .argument('<key>', MODEL_KEYS.join(' | '))
    .argument(
      '<value>',
      `${PRESET_IDS.join('|')} for model.preset; anthropic|openai for model.provider; an http(s) URL for model.base_url`,
    )
    .action((key: string, value: string) => {
      const field = modelFieldOf(key);
      const file = dataPaths().configFile;
      // Empty is refused here: `nextai config unset` removes a setting.
      const valid = validateModelValue(field, value);
      const plan = planModelChanges(readModelConfig(file).config, { [field]: valid }, process.env);
      writeModelValues(file, plan.changes);
      let first = true;
      for (const [changed, written] of plan.changes) {
        // Said below, with why.
        if (changed === 'api_key' && written === undefined && plan.apiKeyRemovedFrom !== undefined) continue;
        const line =
          written === undefined
            ? `model.${changed} removed`
            : `model.${changed} = ${changed === 'api_key' ? maskApiKey(written) : written}`;
        printLine(first ? `${line} (in ${file})` : line);
        first = false;
      }
      const preset = field === 'preset' ? findPreset(valid) : undefined;
      if (plan.apiKeyRemovedFrom !== undefined) {
        printLine(
          `model.api_key removed: the saved key was for ${plan.apiKeyRemovedFrom}, and it is not sent anywhere else.`,
        );
      }
      if (preset?.needsKey && !hasKey(file)) {
        const where = preset.keyUrl ? `Create a ${preset.label.en} key at ${preset.keyUrl}, then run` : 'Run';
        printLine(`${where} \`nextai config set model.api_key <key>\`.`);
      }
    });

  /** Whether the model as now configured has a key (config.json or the environment). */
  function hasKey(file: string): boolean {
    try {
      return selectProvider(readModelConfig(file).config, process.env).apiKey !== undefined;
    } catch {
      return false;
    }
  }

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
