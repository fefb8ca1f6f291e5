/**
 * Decoding with contract ABIs and known signatures: calls, logs and revert data into Blockscout's decoded shapes, the
 * rows of contract_methods an ABI gives, and the signature database Sextant ships. The ABIs come from the caller.
 */
export { type Abi, type AbiEntry, type ItemType, abiEntries, abiOfSignature } from './abi-items.js';
export {
  type DecodedInput,
  type DecodedLog,
  type DecodedLogParameter,
  type DecodedParameter,
  type DecodingAbis,
  decodeCall,
  decodeLog,
  decodeRevert,
} from './decode.js';
export type { DecodedValue } from './values.js';
export { readSignatureDatabase, signatureDatabaseSource } from './signature-database.js';
