import type { ApiContext } from '../route.js';
import type { ActionAnswer } from './envelope.js';
import type { ActionParams } from './params.js';

/** One action of a module: its answer to the request's parameters. */
export type Action = (params: ActionParams, context: ApiContext) => Promise<ActionAnswer>;

/** A module's actions, by their names in lower case (the router lowers the requested name). */
export type ModuleActions = Readonly<Record<string, Action>>;

const listActions = new WeakSet<Action>();

/** Marks an action whose answer is a list of up to 10,000 rows (1,000 logs): the router computes it in one of the large answers' slots (answer-slots.ts). */
export function listAction(action: Action): Action {
  listActions.add(action);
  return action;
}

export const isListAction = (action: Action): boolean => listActions.has(action);
