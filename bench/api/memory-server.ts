/**
 * The in-memory floor: a Fastify server answering each captured URL with the JSON the real endpoint
 * gave for it, serialized per request as a route without a database would. Run as its own process:
 * `memory-server.ts <responses.json> <port>`, where the file maps a request URL (path and query) to the body.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [file, port] = process.argv.slice(2);
if (file === undefined || port === undefined) throw new Error('usage: memory-server.ts <responses.json> <port>');
const bodies = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
const responses = new Map(Object.entries(bodies).map(([url, body]) => [url, JSON.parse(body) as unknown]));

const app = Fastify({ logger: false });
app.get('/*', async (request, reply) => {
  const body = responses.get(request.url);
  if (body === undefined) return reply.code(404).send({ message: 'Not found' });
  return body;
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
