import type { ApiContext } from '../route.js';
import type { ActionAnswer } from './envelope.js';
import type { ActionParams } from './params.js';

/** One action of a module: its answer to the request's parameters. */
export type Action = (params: ActionParams, context: ApiContext) => Promise<ActionAnswer>;

/** A module's actions, by their names in lower case (the router lowers the requested name). */
export type ModuleActions = Readonly<Record<string, Action>>;
