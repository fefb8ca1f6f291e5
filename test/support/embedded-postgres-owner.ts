/**
 * A Sextant stand-in for tests: starts the embedded PostgreSQL on the data directory given as its
 * argument, writes the row 'written by the owner process' to table `marks`, reports
 * `{"ready":true}` (or `{"error":{"name":…,"message":…}}`) as one JSON line on stdout, then runs
 * until it is killed.
 */
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/app/embedded-postgres.js';

const dataDir = process.argv[2];
if (dataDir === undefined) throw new Error('usage: embedded-postgres-owner.ts <dataDir>');

try {
  const server = await startEmbeddedPostgres({ dataDir });
  const pool = new pg.Pool({ connectionString: server.connectionString });
  await pool.query('CREATE TABLE marks (note text)');
  await pool.query('INSERT INTO marks VALUES ($1)', ['written by the owner process']);
  await pool.end();
  console.log(JSON.stringify({ ready: true }));
  setInterval(() => undefined, 60_000);
} catch (error) {
  const { name, message } = error as Error;
  console.log(JSON.stringify({ error: { name, message } }));
  process.exitCode = 1;
}
