#!/usr/bin/env node
import { Command, Option } from 'commander';
import { createLogger } from '../app/logger.js';
import { indexCommand, migrateCommand, serveCommand, startCommand } from '../app/commands.js';
import { parseConfig, rawSettingsFromEnv, settings, type Config, type RawSettings } from '../config.js';
import type { Logger } from 'pino';

type Action = (config: Config, logger: Logger) => Promise<void>;

const commands: { name: string; description: string; action: Action }[] = [
  { name: 'start', description: 'migrate, index and serve (the default)', action: startCommand },
  { name: 'index', description: 'run the indexer only', action: indexCommand },
  { name: 'serve', description: 'serve the API only, from an existing database', action: serveCommand },
  { name: 'migrate', description: 'create or update the database schema, then exit', action: migrateCommand },
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

function fail(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`sextant: ${message.split('\n')[0]}\n`);
  if (process.env.SEXTANT_DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
}

const program = new Command('sextant')
  .description('EVM block explorer backend: indexes a JSON-RPC node into PostgreSQL and serves the Blockscout API v2')
  .showHelpAfterError();
for (const s of settings) {
  const option = s.key === 'disableInternalTransactions'
    ? new Option(`--${s.flag}`, s.description)
    : new Option(`--${s.flag} <value>`, s.description);
  program.addOption(option.env(s.env));
}

for (const command of commands) {
  program
    .command(command.name, { isDefault: command.name === 'start' })
    .description(command.description)
    .action(async () => {
      try {
        const config = parseConfig(rawSettings(program.opts()));
        await command.action(config, createLogger());
        process.exit(0);
      } catch (error) {
        fail(error);
      }
    });
}

await program.parseAsync(process.argv);
