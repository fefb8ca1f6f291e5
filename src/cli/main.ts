#!/usr/bin/env node
import { Command, Option } from 'commander';
import { createLogger } from '../app/logger.js';
import {
  environmentSettings,
  parseConfig,
  rawSettingsFromEnv,
  settingSecrets,
  settings,
  type Config,
  type EnvironmentSetting,
  type RawSettings,
} from '../config.js';
import { ConfigError, redact } from '../errors.js';
import type { Logger } from 'pino';

type Action = (config: Config, logger: Logger) => Promise<void>;

// Imported when run, so that `serve` does not load the indexer, the chain client (viem) and the demo.
const commands: { name: string; description: string; load: () => Promise<Action> }[] = [
  {
    name: 'start',
    description: 'migrate, index and serve (the default)',
    load: async () => (await import('../app/commands.js')).startCommand,
  },
  { name: 'index', description: 'run the indexer only', load: async () => (await import('../app/commands.js')).indexCommand },
  {
    name: 'serve',
    description: 'serve the API only, from an existing database',
    load: async () => (await import('../app/serve.js')).serveCommand,
  },
  {
    name: 'migrate',
    description: 'create or update the database schema, then exit',
    load: async () => (await import('../app/commands.js')).migrateCommand,
  },
];

function camelCase(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** Flags override the environment; each flag maps to the Config key of its setting. */
function rawSettings(options: Record<string, unknown>): RawSettings {
  const raw = rawSettingsFromEnv(process.env);
  for (const s of settings) {
    const value = options[camelCase(s.flag)];
    if (typeof value === 'string') raw[s.key] = value;
    if (value === true) raw[s.key] = 'true';
  }
  return raw;
}

/** A setting's meaning and default as --help shows them: the README's Markdown without its backticks. */
const help = (s: EnvironmentSetting): string => `${s.meaning} (default: ${s.default})`.replaceAll('`', '');

/**
 * One line: a bad setting says what to fix; any other error (a fatal one from indexing) says which it
 * is. Neither shows a password of the settings' URLs.
 */
function fail(error: unknown, secrets: readonly string[]): never {
  const message = !(error instanceof Error)
    ? String(error)
    : error instanceof ConfigError
      ? error.message
      : `${error.name}: ${error.message}`;
  process.stderr.write(redact(`sextant: ${message.split('\n')[0]}\n`, secrets));
  if (process.env.SEXTANT_DEBUG) process.stderr.write(redact(`${(error as Error).stack}\n`, secrets));
  process.exit(1);
}

const program = new Command('sextant')
  .description('EVM block explorer backend: indexes a JSON-RPC node into PostgreSQL and serves the Blockscout API v2')
  .showHelpAfterError();
for (const s of settings) {
  const option = s.key === 'disableInternalTransactions' ? new Option(`--${s.flag}`, help(s)) : new Option(`--${s.flag} <value>`, help(s));
  program.addOption(option.env(s.env));
}
program.addHelpText('after', `\nAlso read from the environment:\n${environmentSettings.map((s) => `  ${s.env}: ${help(s)}`).join('\n')}`);

for (const command of commands) {
  program
    .command(command.name, { isDefault: command.name === 'start' })
    .description(command.description)
    .action(async () => {
      const raw = rawSettings(program.opts());
      const secrets = settingSecrets(raw);
      try {
        const config = parseConfig(raw);
        const action = await command.load();
        await action(config, createLogger(config.logLevel, secrets));
        process.exit(0);
      } catch (error) {
        fail(error, secrets);
      }
    });
}

await program.parseAsync(process.argv);
