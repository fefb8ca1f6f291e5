import { setTimeout as sleep } from 'node:timers/promises';
import type { Address } from '../model.js';
import type { ScenarioContracts } from './scenario.js';
import { demoCompilerVersion, demoStandardInput } from './standard-input.js';

/**
 * The demo's contracts verified after its scenario, as a developer would verify theirs: through the
 * API's verification form (standard JSON input). The ERC-1155 is left for a newcomer to verify.
 */
const verified: readonly { contract: keyof ScenarioContracts; name: string }[] = [
  { contract: 'erc20', name: 'contracts/DemoERC20.sol:DemoERC20' },
  { contract: 'erc721', name: 'contracts/DemoERC721.sol:DemoERC721' },
  { contract: 'caller', name: 'contracts/DemoCaller.sol:DemoCaller' },
  { contract: 'createChild', name: 'contracts/DemoChild.sol:DemoChild' },
];

/** Waits until the API knows the address as a contract with its code read (the contract code stage runs beside the indexer). */
async function codeKnown(api: string, address: Address, signal: AbortSignal): Promise<void> {
  for (;;) {
    const answer = await fetch(`${api}/api/v2/smart-contracts/${address}`, { signal });
    if (answer.ok && ((await answer.json()) as { deployed_bytecode: string | null }).deployed_bytecode !== null) return;
    await sleep(500, undefined, { signal });
  }
}

/** Submits the demo's contracts for verification to the API at `api`; each is verified in the background. */
export async function verifyDemoContracts(api: string, contracts: ScenarioContracts, signal: AbortSignal): Promise<void> {
  for (const { contract, name } of verified) {
    const address = contracts[contract];
    await codeKnown(api, address, signal);
    const form = new FormData();
    form.set('compiler_version', demoCompilerVersion);
    form.set('contract_name', name);
    form.set('license_type', 'mit');
    form.set('autodetect_constructor_args', 'true');
    form.set('files[0]', new Blob([demoStandardInput], { type: 'application/json' }), 'input.json');
    const answer = await fetch(`${api}/api/v2/smart-contracts/${address}/verification/via/standard-input`, {
      method: 'POST',
      body: form,
      signal,
    });
    if (!answer.ok) throw new Error(`verifying ${name} at ${address}: ${answer.status} ${await answer.text()}`);
  }
}
