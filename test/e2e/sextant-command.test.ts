import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const sextant = new URL('../../bin/sextant', import.meta.url).pathname;

// Loaded into the node the command starts: churns short-lived objects, then prints the largest size
// V8 gave its young generation's new space meanwhile (two semi-spaces), in MB.
const probe = `
import { getHeapSpaceStatistics } from 'node:v8';
let largest = 0;
let kept = [];
for (let i = 0; i < 2_000_000; i += 1) {
  kept.push({ i, list: [i] });
  if (kept.length > 150_000) kept = kept.slice(75_000);
  if (i % 10_000 === 0) largest = Math.max(largest, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
}
process.stderr.write('new space MB ' + largest / 2 ** 20 + '\\n');
`;

/** The new space's largest size in MB when `command` (the sextant command, or a link to it) runs `args`. */
async function newSpaceMegabytes(command: string, args: string[], probeFile: string, nodeOptions = ''): Promise<number> {
  const { stderr } = await promisify(execFile)(command, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: `${nodeOptions} --import ${probeFile}`.trim() },
  });
  const megabytes = /new space MB (\d+)/.exec(stderr)?.[1];
  assert.ok(megabytes !== undefined, `no figure in: ${stderr}`);
  return Number(megabytes);
}

test('sextant serve runs with semi-spaces of 8 MB, the other commands with V8’s own; NODE_OPTIONS may set its own', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sextant-command-'));
  try {
    const probeFile = path.join(dir, 'probe.mjs');
    await writeFile(probeFile, probe);
    // node_modules/.bin and npx reach the command through a link.
    const linked = path.join(dir, 'sextant');
    await symlink(sextant, linked);
    const servedDefault = await newSpaceMegabytes(sextant, ['serve', '--help'], probeFile);
    const indexDefault = await newSpaceMegabytes(sextant, ['index', '--help'], probeFile);
    assert.equal(servedDefault, 16);
    assert.equal(await newSpaceMegabytes(linked, ['serve', '--help'], probeFile), 16);
    assert.ok(indexDefault > servedDefault, `index ${indexDefault} MB, serve ${servedDefault} MB`);
    assert.equal(await newSpaceMegabytes(sextant, ['serve', '--help'], probeFile, '--max-semi-space-size=16'), indexDefault);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
