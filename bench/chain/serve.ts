import type { AddressInfo } from 'node:net';
import { createChainGenerator } from './generate.js';
import { createNodeServer } from './node-server.js';
import { chainShape, parseBlocks, parseScale } from './scale.js';

/**
 * Serves the generated chain on loopback in a process of its own, so that the node never takes CPU
 * from the process being measured: `node --import tsx bench/chain/serve.ts --scale small [--blocks N]
 * [--port N] [--reveal-from H]` (with --reveal-from, the head stays at block H until a `POST /reveal?rate=R`).
 * Prints `listening <url>` once it accepts connections.
 */
const args = process.argv.slice(2);
const portAt = args.indexOf('--port');
const revealAt = args.indexOf('--reveal-from');
const server = createNodeServer(
  createChainGenerator(chainShape(parseScale(args), parseBlocks(args))),
  revealAt >= 0 ? Number(args[revealAt + 1]) : undefined,
);
server.listen(portAt >= 0 ? Number(args[portAt + 1]) : 0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
