import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_WRITE_WAIT_MS, handedOver } from '../answer-slots.js';
import { InvalidParametersError, isDatabaseUnavailable } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { accountActions } from './account.js';
import { contractActions } from './contract.js';
import { type ModuleActions, isListAction } from './action.js';
import { blockActions } from './block.js';
import { type ActionAnswer, SerializedBody, errorBody } from './envelope.js';
import { logsActions } from './logs.js';
import { actionParams } from './params.js';
import { statsActions } from './stats.js';
import { transactionActions } from './transaction.js';

/**
 * The Etherscan-style API at /api and /api/v1 (Blockscout's RPC translator): `module` and `action`
 * from the query string or the body pick the action, both in any case; the rest are its parameters.
 */

/** The modules served, by name in lower case. */
const modules: Readonly<Record<string, ModuleActions>> = {
  account: accountActions,
  block: blockActions,
  contract: contractActions,
  logs: logsActions,
  stats: statsActions,
  transaction: transactionActions,
};

export const etherscanPaths = ['/api', '/api/v1'] as const;

/** verifysourcecode carries a contract's sources in its body. */
const maxBodyBytes = 20 * 1024 * 1024;

// Declared for the reference document and the fuzz test; every value is read by the action itself,
// which answers a bad one in the envelope as Blockscout does.
const parameter = (description: string) => Type.Optional(Type.Unknown({ description }));
const Querystring = Type.Object({
  module: parameter('the module: account, block, contract, logs, stats or transaction'),
  action: parameter("the module's action"),
  address: parameter('an address, or (balancemulti) up to 20 separated by commas'),
  contractaddress: parameter('a token contract address'),
  txhash: parameter('a transaction hash'),
  blockno: parameter('a block number'),
  timestamp: parameter('a unix time in seconds'),
  closest: parameter('before or after'),
  page: parameter('the page, from 1'),
  offset: parameter('rows per page; page × offset at most 10000'),
  sort: parameter('asc or desc'),
  startblock: parameter('the first block'),
  endblock: parameter('the last block'),
  fromBlock: parameter('the first block, or latest'),
  toBlock: parameter('the last block, or latest'),
  topic0: parameter('a topic'),
  topic1: parameter('a topic'),
  topic2: parameter('a topic'),
  topic3: parameter('a topic'),
  topic0_1_opr: parameter('and or or'),
  guid: parameter('a verification id, as verifysourcecode or verifyproxycontract answered it'),
  filter: parameter('listcontracts: verified, unverified or empty (1, 2 or 3)'),
  contractaddresses: parameter('up to 10 contract addresses, separated by commas'),
});

const Answer = Type.Union([
  Type.Object({
    status: Type.String({ description: '"1" on success, else "0"' }),
    message: Type.String({ description: '"OK" on success, else what went wrong' }),
    result: Type.Unknown({ description: "the action's answer: its own shape, per Blockscout's views" }),
  }),
  Type.Object(
    { jsonrpc: Type.String(), id: Type.Unknown(), result: Type.String() },
    { description: 'eth_block_number: a JSON-RPC answer' },
  ),
]);

function route(module: unknown, action: unknown) {
  if (typeof module !== 'string' || typeof action !== 'string') return null;
  const actions = Object.hasOwn(modules, module.toLowerCase()) ? modules[module.toLowerCase()]! : null;
  const name = action.toLowerCase();
  return actions !== null && Object.hasOwn(actions, name) ? actions[name]! : null;
}

/** Failures outside the actions' own answers, in the envelope: Etherscan clients parse every body as one. */
function sendEnvelopeError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof InvalidParametersError) return reply.code(400).send(errorBody(error.message));
  const status = isDatabaseUnavailable(error) ? 503 : (error.statusCode ?? 500);
  if (status === 503) {
    const message = isDatabaseUnavailable(error) ? 'The database is unavailable; try again shortly.' : error.message;
    return reply.code(503).header('retry-after', '1').send(errorBody(message));
  }
  if (status >= 400 && status < 500) return reply.code(status).send(errorBody(error.message));
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send(errorBody('Something went wrong.'));
}

/** An action's answer as it is sent: its status and JSON text. */
interface SentAnswer {
  httpStatus: number;
  json: string;
}

/**
 * Serialized here, not by the response schema, which documents the answers (of any status) but
 * cannot write a result of every action's shape.
 */
const sent = (answer: ActionAnswer): SentAnswer => ({
  httpStatus: answer.httpStatus,
  json: answer.body instanceof SerializedBody ? answer.body.json : JSON.stringify(answer.body),
});

export const etherscanRoute: ApiRoute = (app, context) => {
  for (const url of etherscanPaths) {
    app.route({
      method: ['GET', 'POST'],
      url,
      bodyLimit: maxBodyBytes,
      config: { acceptsBody: true },
      schema: { querystring: Querystring, response: { 200: Answer } },
      errorHandler: sendEnvelopeError,
      handler: async (request, reply) => {
        const untyped = reply as unknown as FastifyReply;
        const send = (answer: SentAnswer) => untyped.code(answer.httpStatus).type('application/json; charset=utf-8').send(answer.json);
        const params = actionParams(request.query, request.body);
        const module = params.get('module');
        const action = params.get('action');
        if (module === undefined || action === undefined) {
          return send(sent({ httpStatus: 400, body: errorBody("Params 'module' and 'action' are required parameters") }));
        }
        const handle = route(module, action);
        if (handle === null) return send(sent({ httpStatus: 400, body: errorBody('Unknown action') }));
        if (!isListAction(handle)) return send(sent(await handle(params, context)));
        // A list's slot is held until its answer is written too: its body is as large as its rows.
        await context.listSlots.run(async () => {
          send(sent(await handle(params, context)));
          await handedOver(reply.raw, MAX_WRITE_WAIT_MS);
        });
        return untyped;
      },
    });
  }
};
