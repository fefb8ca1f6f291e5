import type { Address, Hex } from '../model.js';
import type { VerificationRequest } from '../verification/index.js';
import { InvalidParametersError, invalidValueDetail, type InvalidParameter } from './errors.js';

/** The license types Blockscout takes, by name, with its numbers (served by the verification config). */
export const licenseTypes = {
  none: 1,
  unlicense: 2,
  mit: 3,
  gnu_gpl_v2: 4,
  gnu_gpl_v3: 5,
  gnu_lgpl_v2_1: 6,
  gnu_lgpl_v3: 7,
  bsd_2_clause: 8,
  bsd_3_clause: 9,
  mpl_2_0: 10,
  osl_3_0: 11,
  apache_2_0: 12,
  gnu_agpl_v3: 13,
  bsl_1_1: 14,
} as const;

/** The fields of a verification form, as text (JSON values already read as text), and its files by name. */
export interface SubmittedForm {
  fields: Record<string, unknown>;
  files: Record<string, string>;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX = /^(0x)?([0-9a-fA-F]{2})*$/;

/** Reads each field of a form by its rule, collecting one 422 entry per field that breaks it. */
class FormReader {
  readonly invalid: InvalidParameter[] = [];

  constructor(private readonly fields: Record<string, unknown>) {}

  private fail(param: string, expected: string, value: unknown): null {
    this.invalid.push({ param, detail: invalidValueDetail(expected, value) });
    return null;
  }

  private raw(param: string): unknown {
    const value = this.fields[param];
    return value === '' ? undefined : value;
  }

  text(param: string, options: { required?: boolean; maxLength?: number } = {}): string | null {
    const value = this.raw(param);
    if (value === undefined || value === null) return options.required ? this.fail(param, 'a value', value) : null;
    if (typeof value !== 'string') return this.fail(param, 'text', value);
    if (value.includes('\0')) return this.fail(param, 'text without NUL characters', value);
    if (options.maxLength !== undefined && value.length > options.maxLength)
      return this.fail(param, `at most ${options.maxLength} characters`, value);
    return value;
  }

  boolean(param: string, fallback: boolean): boolean {
    const value = this.raw(param);
    if (value === undefined || value === null) return fallback;
    if (value === true || value === 'true' || value === '1' || value === 1) return true;
    if (value === false || value === 'false' || value === '0' || value === 0) return false;
    this.fail(param, 'true or false', value);
    return fallback;
  }

  integer(param: string, fallback: number, max: number): number {
    const value = this.raw(param);
    if (value === undefined || value === null) return fallback;
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)$/.test(text) || Number(text) > max) {
      this.fail(param, `an integer from 0 to ${max}`, value);
      return fallback;
    }
    return Number(text);
  }

  hex(param: string): Hex | null {
    const value = this.text(param, { maxLength: 1024 * 1024 });
    if (value === null) return null;
    if (!HEX.test(value)) return this.fail(param, 'hex bytes', value);
    return `0x${value.replace(/^0x/, '').toLowerCase()}` as Hex;
  }

  licenseType(): string | null {
    const value = this.text('license_type', { maxLength: 64 });
    if (value === null) return null;
    const byNumber = Object.entries(licenseTypes).find(([, n]) => String(n) === value)?.[0];
    const name = byNumber ?? value;
    return Object.hasOwn(licenseTypes, name) ? name : this.fail('license_type', `one of ${Object.keys(licenseTypes).join(', ')}`, value);
  }

  /** Libraries as a map of name to address: an object, or its JSON text. */
  libraries(): Record<string, Address> {
    let value = this.raw('libraries');
    if (value === undefined || value === null) return {};
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value) as unknown;
      } catch {
        this.fail('libraries', 'a JSON map of library names to addresses', value);
        return {};
      }
    }
    const entries = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.entries(value) : null;
    if (
      entries === null ||
      entries.length > 100 ||
      entries.some(([name, a]) => name.length > 256 || name.includes('\0') || typeof a !== 'string' || !ADDRESS.test(a))
    ) {
      this.fail('libraries', 'a map of library names to addresses', value);
      return {};
    }
    return Object.fromEntries(entries.map(([name, a]) => [name, (a as string).toLowerCase() as Address]));
  }

  /** Files as text, none holding a NUL character (which PostgreSQL cannot store). */
  files(files: Record<string, string>): Record<string, string> {
    if (Object.entries(files).some(([name, content]) => name.includes('\0') || content.includes('\0')))
      this.fail('files', 'text files without NUL characters', Object.keys(files).join(', '));
    return files;
  }

  done<T>(request: T): T {
    if (this.invalid.length > 0) throw new InvalidParametersError(this.invalid);
    return request;
  }
}

const MAX_RUNS = 2 ** 32 - 1;

/** The verification methods served, and how each one's form becomes a request to the verifier. */
export const verificationMethods = {
  'flattened-code': (form: SubmittedForm): VerificationRequest => {
    const r = new FormReader(form.fields);
    return r.done({
      method: 'flattened-code',
      compilerVersion: r.text('compiler_version', { required: true, maxLength: 128 }) ?? '',
      sourceCode: r.text('source_code', { required: true }) ?? '',
      contractName: r.text('contract_name', { maxLength: 256 }),
      optimizationEnabled: r.boolean('is_optimization_enabled', false),
      optimizationRuns: r.integer('optimization_runs', 200, MAX_RUNS),
      evmVersion: r.text('evm_version', { maxLength: 64 }) ?? 'default',
      libraries: r.libraries(),
      constructorArgs: r.hex('constructor_args'),
      autodetectConstructorArgs: r.boolean('autodetect_constructor_args', true),
      isYul: r.boolean('is_yul_contract', false),
      licenseType: r.licenseType(),
    });
  },
  'standard-input': (form: SubmittedForm): VerificationRequest => {
    const r = new FormReader(form.fields);
    const input = Object.values(r.files(form.files)).find((content) => isJsonObject(content));
    if (input === undefined) r.invalid.push({ param: 'files', detail: 'Expected a standard JSON input file (JSON files not found).' });
    return r.done({
      method: 'standard-input',
      compilerVersion: r.text('compiler_version', { required: true, maxLength: 128 }) ?? '',
      input: input ?? '',
      contractName: r.text('contract_name', { maxLength: 512 }),
      constructorArgs: r.hex('constructor_args'),
      autodetectConstructorArgs: r.boolean('autodetect_constructor_args', true),
      licenseType: r.licenseType(),
    });
  },
  'multi-part': (form: SubmittedForm): VerificationRequest => {
    const r = new FormReader(form.fields);
    if (Object.keys(form.files).length === 0) r.invalid.push({ param: 'files', detail: 'Expected one or more source files.' });
    return r.done({
      method: 'multi-part',
      compilerVersion: r.text('compiler_version', { required: true, maxLength: 128 }) ?? '',
      evmVersion: r.text('evm_version', { maxLength: 64 }) ?? 'default',
      optimizationEnabled: r.boolean('is_optimization_enabled', false),
      optimizationRuns: r.integer('optimization_runs', 200, MAX_RUNS),
      libraries: r.libraries(),
      files: r.files(form.files),
      licenseType: r.licenseType(),
    });
  },
  sourcify: (form: SubmittedForm): VerificationRequest => {
    const r = new FormReader(form.fields);
    if (!Object.values(form.files).some(isJsonObject))
      r.invalid.push({ param: 'files', detail: 'Expected a metadata JSON file (JSON files not found).' });
    const index = r.integer('chosen_contract_index', -1, 10_000);
    return r.done({
      method: 'sourcify',
      files: r.files(form.files),
      chosenContractIndex: index < 0 ? null : index,
      licenseType: r.licenseType(),
    });
  },
} as const;

export type VerificationMethod = keyof typeof verificationMethods;

function isJsonObject(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}
