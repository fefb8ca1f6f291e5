import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const sextant = new URL('../../bin/sextant', import.meta.url).pathname;

// Loaded into the node the command starts: churns short-lived objects, then prints the largest size
// V8 gave its young generation's new space meanwhile (two semi-spaces), in MB, and glibc's arena limit.
const probe = `
import { getHeapSpaceStatistics } from 'node:v8';
let largest = 0;
let kept = [];
for (let i = 0; i < 2_000_000; i += 1) {
  kept.push({ i, list: [i] });
  if (kept.length > 150_000) kept = kept.slice(75_000);
  if (i % 10_000 === 0) largest = Math.max(largest, getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size);
}
process.stderr.write('new space MB ' + largest / 2 ** 20 + ', arenas ' + process.env.MALLOC_ARENA_MAX + '\\n');
`;

interface Settings {
  /** The new space's largest size, in MB. */
  newSpace: number;
  /** MALLOC_ARENA_MAX, as the process has it. */
  arenas: string;
}

/** What node ran with when `command` (the sextant command, or a link to it) ran `args`. */
async function settingsOf(command: string, args: string[], probeFile: string, env: Record<string, string> = {}): Promise<Settings> {
  const { stderr } = await promisify(execFile)(command, args, {
    env: Object.assign({ PATH: process.env.PATH, HOME: process.env.HOME }, env, {
      NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import ${probeFile}`.trim(),
    }),
  });
  const figures = /new space MB (\d+), arenas (\S+)/.exec(stderr);
  assert.ok(figures !== null, `no figures in: ${stderr}`);
  return { newSpace: Number(figures[1]), arenas: figures[2]! };
}

test('sextant serve runs with semi-spaces of 8 MB and two malloc arenas, the other commands with the defaults, whatever options come before the command; either may be set', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sextant-command-'));
  try {
    const probeFile = path.join(dir, 'probe.mjs');
    await writeFile(probeFile, probe);
    // node_modules/.bin and npx reach the command through a link.
    const linked = path.join(dir, 'sextant');
    await symlink(sextant, linked);
    const served = await settingsOf(sextant, ['serve', '--help'], probeFile);
    const indexed = await settingsOf(sextant, ['index', '--help'], probeFile);
    assert.deepEqual(served, { newSpace: 16, arenas: '2' });
    assert.deepEqual(await settingsOf(linked, ['serve', '--help'], probeFile), served);
    assert.ok(indexed.newSpace > served.newSpace, `index ${indexed.newSpace} MB, serve ${served.newSpace} MB`);
    assert.equal(indexed.arenas, 'undefined');
    const chosen = await settingsOf(sextant, ['serve', '--help'], probeFile, {
      NODE_OPTIONS: '--max-semi-space-size=16',
      MALLOC_ARENA_MAX: '4',
    });
    assert.deepEqual(chosen, { newSpace: indexed.newSpace, arenas: '4' });
    // The command, not an option's value spelled as one, decides.
    assert.deepEqual(await settingsOf(sextant, ['--log-level', 'serve', 'index', '--help'], probeFile), indexed);
    assert.deepEqual(
      await settingsOf(sextant, ['--port', '4001', '--disable-internal-transactions', 'serve', '--help'], probeFile),
      served,
    );
    assert.deepEqual(await settingsOf(sextant, ['--port=4001', 'serve', '--help'], probeFile), served);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
