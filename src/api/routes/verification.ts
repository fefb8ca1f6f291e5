import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Address } from '../../model.js';
import { findSmartContract } from '../../store/read/smart-contracts.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { AddressHashParam, StringEnum } from '../schemas.js';
import { licenseTypes, type SubmittedForm, type VerificationMethod, verificationMethods } from '../verification-input.js';

const methods = Object.keys(verificationMethods) as VerificationMethod[];

const Config = Type.Object({
  solidity_compiler_versions: Type.Array(Type.String()),
  solidity_evm_versions: Type.Array(Type.String()),
  vyper_compiler_versions: Type.Array(Type.String()),
  vyper_evm_versions: Type.Array(Type.String()),
  verification_options: Type.Array(Type.String()),
  is_rust_verifier_microservice_enabled: Type.Boolean(),
  license_types: Type.Record(Type.String(), Type.Integer()),
});

const Message = Type.Object({ message: Type.String() });

/** A JSON body, or a multipart form, is read within these bounds; beyond, the request is a 413. */
export const formLimits = { bodyBytes: 20 * 1024 * 1024, fileBytes: 10 * 1024 * 1024, files: 200, fields: 100 };

/** What the verification form can choose from: the compilers that can actually be run here, and the methods served. */
export const verificationConfigRoute: ApiRoute = (app, { verification }) => {
  app.get('/api/v2/smart-contracts/verification/config', { schema: { response: { 200: Config } } }, async () => {
    const compilers = verification === null ? { solidity: [], evmVersions: [] } : await verification.compilers();
    return {
      solidity_compiler_versions: compilers.solidity,
      solidity_evm_versions: compilers.evmVersions,
      vyper_compiler_versions: [],
      vyper_evm_versions: [],
      verification_options: verification === null ? [] : methods,
      // The form then lets every contract of the input be tried, as Sextant's verifier does, instead of asking for a name.
      is_rust_verifier_microservice_enabled: true,
      license_types: licenseTypes,
    };
  });
};

/** The form's fields and files: a multipart form (files by name, as text), or a JSON object of fields. */
async function readForm(request: FastifyRequest): Promise<SubmittedForm> {
  if (!request.isMultipart()) {
    const body = request.body;
    return {
      fields: body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {},
      files: {},
    };
  }
  const fields: Record<string, unknown> = {};
  const files: Record<string, string> = {};
  let bytes = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const content = await part.toBuffer();
        bytes += content.length;
        files[part.filename || `${part.fieldname}_${Object.keys(files).length}`] = content.toString('utf8');
      } else {
        fields[part.fieldname] = part.value;
        bytes += typeof part.value === 'string' ? part.value.length : 0;
      }
      if (bytes > formLimits.bodyBytes) throw Object.assign(new Error('The form is too large.'), { statusCode: 413 });
    }
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) throw error;
    // What the multipart parser cannot read (no boundary, a part cut short) is the client's mistake.
    throw Object.assign(new Error(`The multipart form cannot be read: ${(error as Error).message}.`), { statusCode: 400 });
  }
  return { fields, files };
}

const Params = Type.Object({ address_hash: AddressHashParam, method: StringEnum(methods) });

/**
 * Starts a verification: answered at once; the result reaches the form on the websocket
 * (`verification_result` on `addresses:{hash}`), as Blockscout's does.
 */
export const verificationViaRoute: ApiRoute = (app, { db, verification }) => {
  const schema = { params: Params, response: { 200: Message, 503: Message } };
  app.post(
    '/api/v2/smart-contracts/:address_hash/verification/via/:method',
    { schema, bodyLimit: formLimits.bodyBytes, config: { acceptsBody: true } },
    async (request, reply) => {
      if (verification === null) return reply.code(503).send({ message: 'Contract verification is not available on this server.' });
      const address = request.params.address_hash.toLowerCase() as Address;
      const contract = await findSmartContract(db, address);
      if (contract === null) throw new NotFoundError();
      const own = contract.verified?.address.toLowerCase() === address ? contract.verified : null;
      if (own?.match === 'full') return { message: 'Already verified' };
      const submission = verificationMethods[request.params.method](await readForm(request));
      await verification.submit(address, submission);
      return { message: 'Smart-contract verification started' };
    },
  );
};
