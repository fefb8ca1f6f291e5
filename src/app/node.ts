import type { Logger } from 'pino';
import { detectCapabilities, type NodeCapabilities } from '../chain/capabilities.js';
import { createRpcClient, type RpcClient } from '../chain/rpc.js';
import type { Config } from '../config.js';
import { startAnvil, type AnvilNode } from '../demo/anvil.js';
import { runScenario } from '../demo/scenario.js';

export interface NodeConnection {
  client: RpcClient;
  /** The node's websocket URL (the demo chain's, or ETHEREUM_JSONRPC_WS_URL), or null. */
  wsUrl: string | null;
  capabilities: NodeCapabilities;
  /** The demo chain Sextant started itself, when no node URL was given. */
  demo: AnvilNode | null;
  close(): Promise<void>;
}

/** Connects to the configured node, or starts the demo chain and runs its scenario. */
export async function connectNode(config: Config, logger: Logger): Promise<NodeConnection> {
  let demo: AnvilNode | null = null;
  let url = config.rpcUrl;
  if (url === null) {
    demo = await startAnvil();
    logger.info(`demo chain (anvil) running at ${demo.rpcUrl}; deploying and exercising the demo contracts`);
    try {
      const scenario = await runScenario(demo.rpcUrl);
      logger.info(`demo scenario sent ${scenario.transactions.length} transactions`);
    } catch (error) {
      await demo.stop();
      throw error;
    }
    url = demo.rpcUrl;
  }
  const client = createRpcClient({ url });
  try {
    const capabilities = await detectCapabilities(client, { variant: config.variant ?? undefined });
    return { client, wsUrl: demo?.wsUrl ?? config.wsUrl, capabilities, demo, close: async () => demo?.stop() };
  } catch (error) {
    await demo?.stop();
    throw error;
  }
}
