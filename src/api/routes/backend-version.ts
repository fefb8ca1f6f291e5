import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import type { ApiRoute } from '../route.js';

// package.json is three levels up from src/api/routes and from dist/api/routes alike.
export const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

const Response = Type.Object({ backend_version: Type.String() });

/** The version of Sextant answering, which Blockscout's frontend shows in its footer. */
export const backendVersionRoute: ApiRoute = (app) => {
  app.get('/api/v2/config/backend-version', { schema: { response: { 200: Response } } }, async () => ({
    backend_version: `Sextant v${version}`,
  }));
};
