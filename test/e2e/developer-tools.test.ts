import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createWalletClient, encodeAbiParameters, encodeDeployData, http, type Abi, type Hex } from 'viem';
import { createRpcClient } from '../../src/chain/rpc.js';
import { startAnvil, type AnvilNode } from '../../src/demo/anvil.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import {
  bundledSolcVersion,
  castBinary,
  describeRun,
  forgeBinary,
  foundryHome,
  hardhatCli,
  linkNodeModules,
  runTool,
  type ToolRun,
  writeProject,
} from '../support/developer-tools.js';
import { startSextant, type RunningSextant } from '../support/sextant-process.js';
import { deployer } from '../support/verification-chain.js';
import { waitForMined } from '../support/mined.js';
import { waitFor } from '../support/wait.js';

/**
 * The developer tools themselves, from npm, against `sextant start` following anvil: forge deploys a
 * contract and verifies it through the Etherscan-style API as `--verifier blockscout` does, cast reads
 * its source back, and Hardhat's hardhat-verify verifies another through its Blockscout path. Both
 * compile with the solc-js build Sextant bundles (see test/support/developer-tools.ts): there is no
 * network to download a compiler from.
 */
describe('forge, cast and hardhat-verify against the Etherscan-style API', () => {
  let anvil: AnvilNode;
  let db: TestDatabase;
  let sextant: RunningSextant;
  let workDir: string;
  /** Sextant's base URL on 127.0.0.1 (the tools may resolve localhost to ::1, where it does not listen). */
  let base: string;
  let greeterSource: string;

  type Envelope = { status: string; message: string; result: any };
  const etherscan = async (query: Record<string, string>): Promise<Envelope> => {
    const answer = await fetch(`${base}/api?${new URLSearchParams(query)}`);
    assert.equal(answer.status, 200);
    return (await answer.json()) as Envelope;
  };
  const smartContract = async (address: string): Promise<Record<string, any>> =>
    (await (await fetch(`${base}/api/v2/smart-contracts/${address}`)).json()) as Record<string, any>;
  /** Waits until Sextant has indexed the contract at `address`, which verification needs. */
  const indexed = (address: string) =>
    waitFor(
      async () => ((await (await fetch(`${base}/api/v2/addresses/${address}`)).json()) as { is_contract?: boolean }).is_contract === true,
      () => `sextant to index the contract at ${address}:\n${sextant.output()}`,
      { timeoutMs: 60_000, intervalMs: 200 },
    );

  before(async () => {
    greeterSource = await readFile(new URL('../fixtures/contracts/tools/Greeter.sol', import.meta.url), 'utf8');
    workDir = await mkdtemp(join(tmpdir(), 'sextant-tools-'));
    anvil = await startAnvil({ hardfork: 'cancun' });
    db = await createTestDatabase({ migrated: false });
    sextant = await startSextant(
      {
        ETHEREUM_JSONRPC_HTTP_URL: anvil.rpcUrl,
        DATABASE_URL: db.url,
        INDEXER_POLL_INTERVAL_MS: '100',
        SEXTANT_DATA_DIR: join(workDir, 'sextant'),
        // Verification compiles with the bundled solc-js alone.
        SOLC_BIN_API_URL: 'none',
      },
      120_000,
    );
    base = sextant.baseUrl.replace('//localhost:', '//127.0.0.1:');
  });

  after(async () => {
    if (sextant) assert.equal(await sextant.stop(), 0, 'a clean exit on SIGTERM');
    await db?.drop();
    await anvil?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  test('forge create, forge verify-contract --verifier blockscout (standard JSON input, then flattened) and forge verify-check; cast source reads it back', async () => {
    const home = join(workDir, 'forge-home');
    await foundryHome(home);
    const project = join(workDir, 'forge-project');
    await writeProject(project, {
      'src/Greeter.sol': greeterSource,
      // No build cache: forge verify-contract then keeps --compiler-version's commit instead of
      // looking it up in soliditylang.org's list of releases.
      'foundry.toml': [
        '[profile.default]',
        `solc_version = "${bundledSolcVersion.split('+')[0]}"`,
        'offline = true',
        'cache = false',
        'optimizer = true',
        'optimizer_runs = 200',
        'evm_version = "cancun"',
        '',
      ].join('\n'),
    });
    const forge = (args: string[], env: Record<string, string> = {}) =>
      runTool(forgeBinary(), args, { cwd: project, env: { HOME: home, ...env } });

    const createArgs = [
      'create',
      'src/Greeter.sol:Greeter',
      '--broadcast',
      '--rpc-url',
      anvil.rpcUrl,
      '--unlocked',
      '--from',
      deployer,
      '--constructor-args',
    ];
    /** Deploys a Greeter with forge create; its address once Sextant has indexed it. */
    const create = async (greeting: string, env: Record<string, string> = {}): Promise<string> => {
      const created = await forge([...createArgs, greeting], env);
      assert.equal(created.code, 0, describeRun(created));
      const address = /Deployed to: (0x[0-9a-fA-F]{40})/.exec(created.stdout)?.[1];
      assert.ok(address, describeRun(created));
      await indexed(address);
      return address;
    };
    const verifierArgs = ['--verifier', 'blockscout', '--verifier-url', `${base}/api/`, '--chain', '31337'];
    /** The GUID forge verify-contract printed, polled with forge verify-check until it passes. */
    const checkUntilVerified = async (submitted: ToolRun): Promise<void> => {
      assert.equal(submitted.code, 0, describeRun(submitted));
      assert.match(submitted.stdout, /Response: `OK`/, describeRun(submitted));
      const guid = /GUID: `([0-9a-f]+)`/.exec(submitted.stdout)?.[1];
      assert.ok(guid, describeRun(submitted));
      const checked = await forge(['verify-check', guid, ...verifierArgs, '--retries', '60', '--delay', '1']);
      assert.equal(checked.code, 0, describeRun(checked));
      assert.match(checked.stdout, /Details: `Pass - Verified`/, describeRun(checked));
      assert.match(checked.stdout, /Contract successfully verified/, describeRun(checked));
    };

    const address = await create('hello from forge');
    const constructorArgs = encodeAbiParameters([{ type: 'string' }], ['hello from forge']);
    const verify = () =>
      forge([
        'verify-contract',
        address,
        'src/Greeter.sol:Greeter',
        ...verifierArgs,
        '--compiler-version',
        `v${bundledSolcVersion}`,
        '--constructor-args',
        constructorArgs,
      ]);
    await checkUntilVerified(await verify());

    const v2 = await smartContract(address);
    assert.equal(v2.is_verified, true);
    assert.equal(v2.name, 'Greeter');
    assert.equal(v2.compiler_version, `v${bundledSolcVersion}`);
    assert.equal(v2.source_code, greeterSource);
    const source = (await etherscan({ module: 'contract', action: 'getsourcecode', address })).result[0];
    assert.equal(source.ContractName, 'Greeter');
    assert.equal(source.CompilerVersion, `v${bundledSolcVersion}`);
    assert.equal(source.ConstructorArguments, constructorArgs.slice(2));

    // The next run finds it verified through getabi, and submits nothing.
    const again = await verify();
    assert.equal(again.code, 0, describeRun(again));
    assert.match(again.stdout, /is already verified\. Skipping verification\./, describeRun(again));

    // A second deployment, of other code (Sextant, as Blockscout, counts the same code verified at every
    // address), verified as one flattened file with the constructor arguments forge finds itself from
    // getcontractcreation's transaction, read from the node.
    const otherRuns = { FOUNDRY_OPTIMIZER_RUNS: '1000' };
    const flatAddress = await create('hello again', otherRuns);
    const flat = await forge(
      [
        'verify-contract',
        flatAddress,
        'src/Greeter.sol:Greeter',
        ...verifierArgs,
        '--compiler-version',
        `v${bundledSolcVersion}`,
        '--flatten',
        '--guess-constructor-args',
        '--rpc-url',
        anvil.rpcUrl,
      ],
      otherRuns,
    );
    await checkUntilVerified(flat);
    const flatSource = (await etherscan({ module: 'contract', action: 'getsourcecode', address: flatAddress })).result[0];
    assert.equal(flatSource.ContractName, 'Greeter');
    assert.equal(flatSource.OptimizationUsed, '1');
    assert.equal(flatSource.Runs, '1000');
    assert.equal(flatSource.ConstructorArguments, encodeAbiParameters([{ type: 'string' }], ['hello again']).slice(2));

    const cast = await runTool(
      castBinary(),
      ['source', address, '--chain', '31337', '--explorer-api-url', `${base}/api`, '--explorer-url', base],
      { cwd: project, env: { HOME: home } },
    );
    assert.equal(cast.code, 0, describeRun(cast));
    assert.ok(cast.stdout.includes(greeterSource.trim()), describeRun(cast));
  });

  test('hardhat compile, then hardhat verify through the Blockscout path of hardhat-verify', async () => {
    const project = join(workDir, 'hardhat-project');
    await writeProject(project, {
      'contracts/Greeter.sol': greeterSource,
      'package.json': '{ "private": true }\n',
      'hardhat.config.js': hardhatConfig(anvil.rpcUrl, base),
    });
    await linkNodeModules(project);
    const hardhat = (args: string[]) =>
      runTool(process.execPath, [hardhatCli(), ...args], {
        cwd: project,
        env: { HOME: join(workDir, 'hardhat-home'), HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', CI: 'true' },
      });

    const compiled = await hardhat(['compile']);
    assert.equal(compiled.code, 0, describeRun(compiled));
    const artifact = JSON.parse(await readFile(join(project, 'artifacts/contracts/Greeter.sol/Greeter.json'), 'utf8')) as {
      abi: Abi;
      bytecode: Hex;
    };
    const wallet = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl) });
    const hash = await wallet.sendTransaction({
      chain: null,
      data: encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args: ['hello from hardhat'] }),
    });
    const client = createRpcClient({ url: anvil.rpcUrl });
    await waitForMined(client, hash, 'the deployment');
    const { contractAddress: address } = await client.request<{ contractAddress: string }>('eth_getTransactionReceipt', [hash]);
    await indexed(address);

    const verified = await hardhat(['verify', '--network', 'anvil', address, 'hello from hardhat']);
    assert.equal(verified.code, 0, describeRun(verified));
    assert.match(verified.stdout, /Successfully verified contract Greeter on the block explorer/, describeRun(verified));

    const v2 = await smartContract(address);
    assert.equal(v2.is_verified, true);
    assert.equal(v2.name, 'Greeter');
    assert.equal(v2.source_code, greeterSource);
    const source = (await etherscan({ module: 'contract', action: 'getsourcecode', address: address })).result[0];
    assert.equal(source.ContractName, 'Greeter');

    const again = await hardhat(['verify', '--network', 'anvil', address, 'hello from hardhat']);
    assert.equal(again.code, 0, describeRun(again));
    assert.match(again.stdout, /has already been verified on the block explorer/, describeRun(again));
  });
});

/**
 * A Hardhat 2 config verifying on Sextant through hardhat-verify's Blockscout path only, compiling
 * with the bundled solc-js (Hardhat's "custom compiler" subtask) instead of a downloaded compiler.
 */
function hardhatConfig(rpcUrl: string, base: string): string {
  const [release] = bundledSolcVersion.split('+');
  return `const { subtask } = require('hardhat/config');
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require('hardhat/builtin-tasks/task-names');
require('@nomicfoundation/hardhat-verify');

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  if (args.solcVersion !== '${release}') return runSuper();
  return { compilerPath: require.resolve('solc/soljson.js'), isSolcJs: true, version: args.solcVersion, longVersion: '${bundledSolcVersion}' };
});

module.exports = {
  solidity: { version: '${release}', settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' } },
  networks: { anvil: { url: '${rpcUrl}' } },
  etherscan: { enabled: false },
  sourcify: { enabled: false },
  blockscout: {
    enabled: true,
    customChains: [{ network: 'anvil', chainId: 31337, urls: { apiURL: '${base}/api', browserURL: '${base}' } }],
  },
};
`;
}
