import type { SolidityJsonInput, SoliditySettings } from '@ethereum-sourcify/lib-sourcify';
import type { Address, Hex } from '../model.js';
import { failure, messages } from './messages.js';
import type { VerificationOutcome, VerificationRequest } from './types.js';

/** One compiler input to verify a contract against, however the form described it. */
export interface PreparedInput {
  compilerVersion: string;
  input: SolidityJsonInput;
  language: 'Solidity' | 'Yul';
  /** 'path:Name' or 'Name': the contract to match; null: every contract of the output is tried. */
  contractName: string | null;
  constructorArgs: Hex | null;
  autodetectConstructorArgs: boolean;
}

type Prepared = { ok: true; input: PreparedInput } | (VerificationOutcome & { ok: false });

type FileRequest = Exclude<VerificationRequest, { method: 'sourcify' }>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The form's optimizer, EVM version and libraries (by name, in every file) as standard JSON settings. */
function formSettings(
  request: { optimizationEnabled: boolean; optimizationRuns: number; evmVersion: string; libraries: Record<string, Address> },
  files: string[],
): SoliditySettings {
  const settings: SoliditySettings = { optimizer: { enabled: request.optimizationEnabled, runs: request.optimizationRuns } };
  if (request.evmVersion !== 'default') settings.evmVersion = request.evmVersion;
  if (Object.keys(request.libraries).length > 0) {
    settings.libraries = Object.fromEntries(files.map((file) => [file, { ...request.libraries }]));
  }
  return settings;
}

function standardInput(request: FileRequest & { method: 'standard-input' }): Prepared {
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.input);
  } catch {
    return failure('files', messages.invalidJson);
  }
  if (!isObject(parsed) || !isObject(parsed.sources)) return failure('files', `${messages.invalidJson} It has no "sources".`);
  const language = parsed.language ?? 'Solidity';
  if (language !== 'Solidity' && language !== 'Yul')
    return failure('files', `${messages.invalidJson} Language ${String(language)} is not supported.`);
  const sources: SolidityJsonInput['sources'] = {};
  for (const [path, source] of Object.entries(parsed.sources)) {
    if (!isObject(source) || typeof source.content !== 'string')
      return failure('files', `${messages.invalidJson} Source ${path} has no content.`);
    sources[path] = { content: source.content };
  }
  if (Object.keys(sources).length === 0) return failure('files', `${messages.invalidJson} It has no sources.`);
  const settings = parsed.settings === undefined ? {} : parsed.settings;
  if (!isObject(settings)) return failure('files', `${messages.invalidJson} Its "settings" is not an object.`);
  return {
    ok: true,
    input: {
      compilerVersion: request.compilerVersion,
      input: { language, sources, settings: settings as SoliditySettings },
      language,
      contractName: request.contractName,
      constructorArgs: request.constructorArgs,
      autodetectConstructorArgs: request.autodetectConstructorArgs,
    },
  };
}

function flattenedCode(request: FileRequest & { method: 'flattened-code' }): Prepared {
  if (request.sourceCode.trim() === '') return failure('contract_source_code', messages.emptySource);
  const language = request.isYul ? 'Yul' : 'Solidity';
  const name = request.contractName?.split(':').pop() || 'contract';
  const path = `${name}.${request.isYul ? 'yul' : 'sol'}`;
  return {
    ok: true,
    input: {
      compilerVersion: request.compilerVersion,
      input: { language, sources: { [path]: { content: request.sourceCode } }, settings: formSettings(request, [path]) },
      language,
      contractName: request.contractName,
      constructorArgs: request.constructorArgs,
      autodetectConstructorArgs: request.autodetectConstructorArgs,
    },
  };
}

function multiPart(request: FileRequest & { method: 'multi-part' }): Prepared {
  const paths = Object.keys(request.files);
  if (paths.length === 0) return failure('files', 'No source files were given.');
  return {
    ok: true,
    input: {
      compilerVersion: request.compilerVersion,
      input: {
        language: 'Solidity',
        sources: Object.fromEntries(paths.map((path) => [path, { content: request.files[path]! }])),
        settings: formSettings(request, paths),
      },
      language: 'Solidity',
      contractName: null,
      constructorArgs: null,
      autodetectConstructorArgs: true,
    },
  };
}

/** The compiler input of a form sent with its sources (every method but sourcify's metadata). */
export function prepareInput(request: FileRequest): Prepared {
  switch (request.method) {
    case 'standard-input':
      return standardInput(request);
    case 'flattened-code':
      return flattenedCode(request);
    case 'multi-part':
      return multiPart(request);
  }
}
