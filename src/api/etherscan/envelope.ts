/**
 * The Etherscan-style answer: `{status, message, result}`, status and message always strings ("1"
 * and "OK" on success; "0" and what went wrong otherwise, result then null or the data there is, such
 * as `[]` for an empty list), as forge, hardhat-verify and Etherscan clients parse it.
 */
export interface Envelope {
  status: '0' | '1';
  message: string;
  result: unknown;
}

/** An action's answer: its body and HTTP status (200 but for a request the API cannot route). */
export interface ActionAnswer {
  httpStatus: number;
  body: unknown;
}

export const ok = (result: unknown): ActionAnswer => ({ httpStatus: 200, body: { status: '1', message: 'OK', result } });

/** A body already serialized, sent as it is. */
export class SerializedBody {
  constructor(readonly json: string) {}
}

/** A success whose result is JSON text already (a long list the database wrote). */
export const okSerialized = (resultJson: string): ActionAnswer => ({
  httpStatus: 200,
  body: new SerializedBody(`{"status":"1","message":"OK","result":${resultJson}}`),
});

/** A refusal or an empty answer, which Etherscan's API also gives with HTTP 200. */
export const failure = (message: string, result: unknown = null): ActionAnswer => ({
  httpStatus: 200,
  body: { status: '0', message, result },
});

/** The body of an error that is not an action's: a request the router cannot serve, a database that cannot answer. */
export const errorBody = (message: string): Envelope => ({ status: '0', message, result: null });
