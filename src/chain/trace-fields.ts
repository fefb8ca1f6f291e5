import type { CallType } from '../model.js';
import type { Complain } from './node-fields.js';

/** Readers for the string members of trace frames, which NodeFields (hex members only) leaves out. */

const callTypes: readonly CallType[] = ['call', 'delegatecall', 'staticcall', 'callcode'];

export function readCallType(value: unknown, field: string, complain: Complain): CallType {
  const callType = typeof value === 'string' ? value.toLowerCase() : value;
  if (!callTypes.includes(callType as CallType)) complain(field, `is not a call type (${JSON.stringify(value)})`);
  return callType as CallType;
}

/** A frame's error: null when absent or empty. */
export function readError(value: unknown, field: string, complain: Complain): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') complain(field, `is not an error message (${JSON.stringify(value)})`);
  return value;
}

export function readObject(value: unknown, field: string, complain: Complain): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) complain(field, 'is not an object');
  return value as Record<string, unknown>;
}
