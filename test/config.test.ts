import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { environmentSettings, parseConfig, rawSettingsFromEnv, settingSecrets, settings } from '../src/config.js';
import { ConfigError } from '../src/errors.js';
import { sourceFiles } from './support/source-files.js';

test('defaults: demo chain, embedded database, port 4000, from block 0, following the head', () => {
  const config = parseConfig(rawSettingsFromEnv({}));
  assert.equal(config.rpcUrl, null);
  assert.equal(config.databaseUrl, null);
  assert.equal(config.dataDir, './data');
  assert.equal(config.port, 4000);
  assert.equal(config.firstBlock, 0n);
  assert.equal(config.lastBlock, null);
  assert.equal(config.disableInternalTransactions, false);
});

test('reads the Blockscout variable names', () => {
  const config = parseConfig(
    rawSettingsFromEnv({
      ETHEREUM_JSONRPC_HTTP_URL: 'http://127.0.0.1:8545',
      ETHEREUM_JSONRPC_VARIANT: 'Erigon',
      ETHEREUM_JSONRPC_WS_URL: 'ws://127.0.0.1:8546',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/x',
      FIRST_BLOCK: '18000000',
      LAST_BLOCK: '18000000',
      INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER: 'true',
      PORT: '0',
    }),
  );
  assert.equal(config.rpcUrl, 'http://127.0.0.1:8545');
  assert.equal(config.variant, 'erigon');
  assert.equal(config.wsUrl, 'ws://127.0.0.1:8546');
  assert.equal(config.firstBlock, 18_000_000n);
  assert.equal(config.lastBlock, 18_000_000n);
  assert.equal(config.disableInternalTransactions, true);
  assert.equal(config.port, 0);
});

test("the rate limit is off by default; on, it reads Blockscout's variables and time format", () => {
  const defaults = parseConfig(rawSettingsFromEnv({}));
  assert.equal(defaults.rateLimitDisabled, true);
  assert.equal(defaults.rateLimitByIp, 300);
  assert.equal(defaults.rateLimitByIpInterval, 60_000);
  assert.deepEqual(defaults.rateLimitWhitelistedIps, []);
  assert.equal(defaults.requestLogLevel, 'debug');
  const config = parseConfig(
    rawSettingsFromEnv({
      API_RATE_LIMIT_DISABLED: 'false',
      API_RATE_LIMIT_BY_IP: '3000',
      API_RATE_LIMIT_BY_IP_TIME_INTERVAL: '5m',
      API_RATE_LIMIT_WHITELISTED_IPS: '127.0.0.1, ::1,,10.0.0.1',
      REQUEST_LOG_LEVEL: 'info',
    }),
  );
  assert.equal(config.rateLimitDisabled, false);
  assert.equal(config.rateLimitByIp, 3000);
  assert.equal(config.rateLimitByIpInterval, 300_000);
  assert.deepEqual(config.rateLimitWhitelistedIps, ['127.0.0.1', '::1', '10.0.0.1']);
  assert.equal(config.requestLogLevel, 'info');
  const intervals: [string, number][] = [
    ['500ms', 500],
    ['30s', 30_000],
    ['30', 30_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
  ];
  for (const [text, ms] of intervals) {
    assert.equal(parseConfig(rawSettingsFromEnv({ API_RATE_LIMIT_BY_IP_TIME_INTERVAL: text })).rateLimitByIpInterval, ms, text);
  }
});

test('an empty variable counts as unset', () => {
  assert.equal(parseConfig(rawSettingsFromEnv({ ETHEREUM_JSONRPC_HTTP_URL: '' })).rpcUrl, null);
});

const refused: [Record<string, string>, RegExp][] = [
  [{ ETHEREUM_JSONRPC_HTTP_URL: 'localhost:8545' }, /ETHEREUM_JSONRPC_HTTP_URL \(--rpc-url\) must start with http: or https:/],
  [{ ETHEREUM_JSONRPC_HTTP_URL: 'not a url' }, /ETHEREUM_JSONRPC_HTTP_URL \(--rpc-url\) is not a valid URL/],
  [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL \(--database-url\) must start with postgres: or postgresql:/],
  [{ PORT: '80a' }, /PORT \(--port\) must be a whole number from 0 to 65535/],
  [{ PORT: '70000' }, /PORT/],
  [{ FIRST_BLOCK: '-1' }, /FIRST_BLOCK \(--first-block\) must be a block number/],
  [{ FIRST_BLOCK: '10', LAST_BLOCK: '9' }, /LAST_BLOCK \(9\) is below FIRST_BLOCK \(10\)/],
  [{ ETHEREUM_JSONRPC_VARIANT: 'parity' }, /must be one of geth, erigon, nethermind, besu, reth, anvil/],
  [{ INDEXER_DISABLE_INTERNAL_TRANSACTIONS_FETCHER: 'maybe' }, /must be true or false/],
  [
    { API_RATE_LIMIT_BY_IP_TIME_INTERVAL: '5 minutes' },
    /API_RATE_LIMIT_BY_IP_TIME_INTERVAL \(--rate-limit-by-ip-time-interval\) must be a time/,
  ],
  [{ API_RATE_LIMIT_BY_IP_TIME_INTERVAL: '0s' }, /must be a time/],
  [{ API_RATE_LIMIT_BY_IP: '0' }, /API_RATE_LIMIT_BY_IP \(--rate-limit-by-ip\) must be a whole number/],
  [{ API_RATE_LIMIT_DISABLED: 'nope' }, /API_RATE_LIMIT_DISABLED \(--rate-limit-disabled\) must be true or false/],
  [{ REQUEST_LOG_LEVEL: 'trace' }, /REQUEST_LOG_LEVEL \(--request-log-level\) must be one of debug, info, warn, error, silent/],
  [{ DATABASE_VERIFICATION_URL: 'postgres://verifier@h/db' }, /DATABASE_VERIFICATION_URL needs DATABASE_URL/],
  [
    { DATABASE_URL: 'postgres://h/db', DATABASE_VERIFICATION_URL: 'http://h' },
    /DATABASE_VERIFICATION_URL \(--database-verification-url\) must start with postgres:/,
  ],
  [{ INDEXER_BULK_LOAD_DISTANCE: '128' }, /INDEXER_BULK_LOAD_DISTANCE \(128\) must exceed INDEXER_MAX_REORG_DEPTH \(128\)/],
  [
    { EXCHANGE_RATES_SOURCE: 'coin_market_cap', EXCHANGE_RATES_COINGECKO_COIN_ID: 'ethereum' },
    /EXCHANGE_RATES_SOURCE \(--exchange-rates-source\) "coin_market_cap" is not supported; the supported sources are coin_gecko/,
  ],
  [
    { EXCHANGE_RATES_SOURCE: 'coin_gecko' },
    /set EXCHANGE_RATES_COINGECKO_COIN_ID \(--coingecko-coin-id\) or EXCHANGE_RATES_COINGECKO_PLATFORM_ID/,
  ],
  [
    { EXCHANGE_RATES_COINGECKO_BASE_URL: 'ftp://x' },
    /EXCHANGE_RATES_COINGECKO_BASE_URL \(--coingecko-base-url\) must start with https: or http:/,
  ],
  [{ EXCHANGE_RATES_FETCH_INTERVAL: 'hourly' }, /EXCHANGE_RATES_FETCH_INTERVAL \(--exchange-rates-fetch-interval\) must be a time/],
  [{ TOKEN_LIST_URL: 'ftp://lists.example/tokens.json' }, /TOKEN_LIST_URL \(--token-list-url\) must start with https: or http:/],
];

test('the price source: none by default, CoinGecko when one of its ids is set, its Pro API with a key', () => {
  const none = parseConfig(rawSettingsFromEnv({}));
  assert.equal(none.exchangeRatesSource, null);
  assert.equal(none.tokenListUrl, null);
  const coin = parseConfig(rawSettingsFromEnv({ EXCHANGE_RATES_COINGECKO_COIN_ID: 'ethereum' }));
  assert.equal(coin.exchangeRatesSource, 'coin_gecko');
  assert.equal(coin.coinGeckoBaseUrl, 'https://api.coingecko.com/api/v3');
  assert.equal(coin.exchangeRatesFetchIntervalMs, 600_000);
  const keyed = parseConfig(
    rawSettingsFromEnv({ EXCHANGE_RATES_COINGECKO_PLATFORM_ID: 'ethereum', EXCHANGE_RATES_COINGECKO_API_KEY: 'k' }),
  );
  assert.equal(keyed.coinGeckoBaseUrl, 'https://pro-api.coingecko.com/api/v3');
  assert.equal(parseConfig(rawSettingsFromEnv({ TOKEN_LIST_URL: './tokens.json' })).tokenListUrl, './tokens.json');
  assert.equal(parseConfig(rawSettingsFromEnv({ TOKEN_LIST_URL: 'file:///srv/tokens.json' })).tokenListUrl, 'file:///srv/tokens.json');
  // The key is a secret the logs redact, as a URL's password is.
  assert.ok(settingSecrets(rawSettingsFromEnv({ EXCHANGE_RATES_COINGECKO_API_KEY: 'CG-s3cret' })).includes('CG-s3cret'));
});

for (const [env, message] of refused) {
  test(`refuses ${JSON.stringify(env)} with one line naming the setting`, () => {
    assert.throws(
      () => parseConfig(rawSettingsFromEnv(env)),
      (error: unknown) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('\n'),
    );
  });
}

test('the websocket URL must be ws: or wss:', () => {
  assert.throws(
    () => parseConfig(rawSettingsFromEnv({ ETHEREUM_JSONRPC_WS_URL: 'http://127.0.0.1:8546' })),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
      assert.match(error.message, /ETHEREUM_JSONRPC_WS_URL \(--ws-url\) must start with ws: or wss:/);
      return true;
    },
  );
});

test("the README's configuration table is src/config.ts's settings: variable, flag, default and meaning", () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## API'));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  assert.deepEqual(rows, [
    ...settings.map((s) => `| \`${s.env}\` | \`--${s.flag}\` | ${s.default} | ${s.meaning} |`),
    ...environmentSettings.map((s) => `| \`${s.env}\` | | ${s.default} | ${s.meaning} |`),
  ]);
});

test('the variables src/ reads from process.env itself are exactly the environment-only settings', () => {
  const read = new Set([...sourceFiles().values()].flatMap((text) => [...text.matchAll(/process\.env\.(\w+)/g)].map((m) => m[1])));
  assert.deepEqual([...read].sort(), environmentSettings.map((s) => s.env).sort());
});
