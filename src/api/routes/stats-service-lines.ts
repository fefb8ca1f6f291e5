import { Type } from '@sinclair/typebox';
import { readLine } from '../../store/read/daily-figures.js';
import { NotFoundError } from '../errors.js';
import type { ApiRoute } from '../route.js';
import { StringEnum } from '../schemas.js';
import {
  LineChartSchema,
  LineChartsSchema,
  lineChartView,
  lineDefinitions,
  lineInfo,
  lineSections,
  resolutionOf,
  resolutions,
  utcDay,
} from '../views/stats-service.js';

// Blockscout's stats service (blockscout-rs `stats`) under its own paths, so that the frontend's
// NEXT_PUBLIC_STATS_API_HOST can name Sextant. `/api/v1` itself stays the Etherscan-style API.

const dateParameter = (name: string) =>
  Type.Optional(Type.String({ format: 'date', description: `${name}: a day of the calendar, YYYY-MM-DD` }));

const LineQuery = Type.Object({
  from: dateParameter('from'),
  to: dateParameter('to'),
  resolution: Type.Optional(StringEnum(['RESOLUTION_UNSPECIFIED', ...resolutions] as const)),
});

/** The stats service's line charts: the list, and one line's points per day, week, month or year. */
export const statsServiceLinesRoute: ApiRoute = (app, { db }) => {
  app.get('/api/v1/lines', { schema: { response: { 200: LineChartsSchema } } }, () => ({
    sections: lineSections.map((section) => ({ id: section.id, title: section.title, charts: section.charts.map(lineInfo) })),
  }));

  app.get(
    '/api/v1/lines/:name',
    {
      schema: {
        params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
        querystring: LineQuery,
        response: { 200: LineChartSchema },
      },
    },
    async (request) => {
      const line = lineDefinitions.get(request.params.name);
      if (line === undefined) throw new NotFoundError();
      const name = request.query.resolution ?? 'DAY';
      const resolution = resolutionOf(name === 'RESOLUTION_UNSPECIFIED' ? 'DAY' : name);
      const points = await readLine(db, line.figure, resolution, request.query.from ?? null, request.query.to ?? null);
      return lineChartView(line, points, utcDay(new Date()));
    },
  );
};
