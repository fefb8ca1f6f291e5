// A compiler process: loads the soljson build named by its first argument, then answers each message
// from its parent, a standard JSON input to compile or a request for the build's version.
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

interface SolcJs {
  version(): string;
  compile(input: string): string;
}

const require = createRequire(import.meta.url);
const setupMethods = require('solc/wrapper.js') as (soljson: unknown) => SolcJs;

/**
 * A build is CommonJS; it may sit in a folder whose package.json says otherwise (a cache inside an ES
 * module package), so it is compiled as CommonJS whatever its place.
 */
function loadBuild(path: string): SolcJs {
  const module = new Module(path) as Module & { _compile(code: string, filename: string): void };
  module.filename = path;
  module.paths = [];
  module._compile(readFileSync(path, 'utf8'), path);
  return setupMethods(module.exports);
}

const build = process.argv[2];
if (build === undefined || process.send === undefined) {
  console.error('usage: fork compile-worker with the path of a soljson build');
  process.exit(2);
}
const send = (reply: WorkerReply) => process.send!(reply);

let solc: SolcJs | undefined;
try {
  solc = loadBuild(build);
} catch (err) {
  send({ kind: 'failure', message: `cannot load the compiler ${build}: ${(err as Error).message}` });
  process.exit(1);
}

process.on('message', (request: WorkerRequest) => {
  try {
    if (request.kind === 'version') send({ kind: 'version', version: solc!.version() });
    else send({ kind: 'output', output: solc!.compile(request.input) });
  } catch (err) {
    send({ kind: 'failure', message: (err as Error).message });
  }
});
process.on('disconnect', () => process.exit(0));
