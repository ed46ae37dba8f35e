// The `explorer` section: the flow explorer's page and API (docs/explorer.md), on by default.
import { z } from 'zod';
import { byteSize, duration } from '../../lib/config/types.js';

export const explorerSection = z
  .strictObject({
    enable: z.boolean().default(true).describe('Whether `flowagg run` serves the flow explorer (the page at / and /api/v1/ on the API port); `flowagg explore` runs it regardless.'),
    groupId: z.string().min(1).default('flowagg-explorer').describe('The consumer group on flows.processed.'),
    horizon: duration.pipe(z.number().min(3_600_000).max(7 * 86_400_000)).default(86_400_000).describe('How far back the rollups go (1h to 7d); rebuilt from the log at start, as far as its retention allows.'),
    maxMemory: byteSize.pipe(z.number().int().min(16 * 1024 * 1024)).default(256 * 1024 * 1024).describe('Ceiling of the rollups\' memory; past it the top-K sketches grow less exact, never larger.'),
    maxScanRecords: z.number().int().min(1000).max(10_000_000).default(50_000).describe('Records of the log one flow search or path query reads at most (the newest of its range): what keeps a call within about half a second (docs/explorer.md).'),
    maxQueries: z.number().int().min(1).max(64).default(4).describe('Searches and path queries reading the log at once, in all; more are refused with 429.'),
    maxQueriesPerClient: z.number().int().min(1).max(64).default(2).describe('The same, from one client address.'),
  })
  .prefault({})
  .describe('The flow explorer: the page, its JSON API and the rollups behind them (docs/explorer.md). Needs a restart.');

export type ExplorerConfig = z.output<typeof explorerSection>;
