import type { Logger } from 'pino';
import { detectCapabilities, type NodeCapabilities } from '../chain/capabilities.js';
import { createRpcClient, type RpcClient } from '../chain/rpc.js';
import type { Config } from '../config.js';
import type { NodeRequestErrors } from '../model.js';
import { startAnvil, type AnvilNode } from '../demo/anvil.js';
import { startLiveActivity, type LiveActivity } from '../demo/live-activity.js';
import { runScenario, type ScenarioResult } from '../demo/scenario.js';

export interface NodeConnection {
  client: RpcClient;
  /** The node's websocket URL (the demo chain's, or ETHEREUM_JSONRPC_WS_URL), or null. */
  wsUrl: string | null;
  capabilities: NodeCapabilities;
  /** The demo chain Sextant started itself, when no node URL was given. */
  demo: AnvilNode | null;
  /** What the demo's scenario deployed and sent on it; null without the demo. */
  demoScenario: ScenarioResult | null;
  /** Failed requests of this client and of the others made for the same node, by kind, for the metrics. */
  errors: NodeRequestErrors;
  close(): Promise<void>;
}

/** After the scenario, the demo chain keeps moving, unless told not to or to index up to LAST_BLOCK only. */
function startDemoActivity(config: Config, logger: Logger, rpcUrl: string, scenario: ScenarioResult): LiveActivity | null {
  if (config.lastBlock !== null || config.demoBlockIntervalMs === 0) return null;
  logger.info(
    `the demo chain keeps moving: a block of new transfers, token transfers and contract calls every ${config.demoBlockIntervalMs / 1000} s ` +
      '(SEXTANT_DEMO_BLOCK_INTERVAL_MS=0 keeps it still)',
  );
  return startLiveActivity(rpcUrl, scenario, {
    intervalMs: config.demoBlockIntervalMs,
    onError: (error) => logger.warn(`demo chain: a block of new transactions failed: ${error.message}`),
  });
}

/** Connects to the configured node, or starts the demo chain and runs its scenario. */
export async function connectNode(config: Config, logger: Logger): Promise<NodeConnection> {
  let demo: AnvilNode | null = null;
  let demoScenario: ScenarioResult | null = null;
  let live: LiveActivity | null = null;
  const close = async () => {
    await live?.stop();
    await demo?.stop();
  };
  let url = config.rpcUrl;
  if (url === null) {
    demo = await startAnvil();
    logger.info(`demo chain (anvil) running at ${demo.rpcUrl}; deploying and exercising the demo contracts`);
    try {
      demoScenario = await runScenario(demo.rpcUrl);
      logger.info(`demo scenario sent ${demoScenario.transactions.length} transactions`);
      live = startDemoActivity(config, logger, demo.rpcUrl, demoScenario);
    } catch (error) {
      await close();
      throw error;
    }
    url = demo.rpcUrl;
  }
  const errors: NodeRequestErrors = new Map();
  const client = createRpcClient({ url, errors });
  try {
    const capabilities = await detectCapabilities(client, { variant: config.variant ?? undefined });
    return { client, wsUrl: demo?.wsUrl ?? config.wsUrl, capabilities, demo, demoScenario, errors, close };
  } catch (error) {
    await close();
    throw error;
  }
}
