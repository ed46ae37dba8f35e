// The `clickHouse` section: Antrea's keys and defaults (reference §3), plus flowagg's where Antrea has
// none (the CA file's path, the row limit of a batch, the table's TTL, whether to create the schema).
// Credentials come from CH_USERNAME and CH_PASSWORD, as in Antrea (the chart fills them from a Secret).
// A databaseURL flowagg cannot serve is refused here, by the exporter's own parser (url.ts), so that
// `flowagg config check` refuses it as the exporter would.
import { z } from 'zod';
import { emptyIsDefault } from '../../lib/config/empty.js';
import { duration, port } from '../../lib/config/types.js';
import { resolveEndpoint } from './url.js';

export const clickHouseSection = z
  .strictObject({
    enable: z.boolean().default(false).describe('Whether `flowagg run` starts the ClickHouse exporter (`flowagg export clickhouse` runs it regardless).'),
    database: emptyIsDefault(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a database name is letters, digits and underscores').default('default').describe('The database of the flows table and its views.')),
    databaseURL: emptyIsDefault(
      z
        .string()
        .default('tcp://clickhouse-clickhouse.flow-visibility.svc:9000')
        .describe(
        "tcp://, tls://, http:// or https:// host and port. flowagg speaks ClickHouse's HTTP interface only: a tcp:// (tls://) URL is taken as http:// (https://) on the same host, on httpPort when set, else 8123 (8443) when the URL names the native default 9000 (9440); another native port needs httpPort (docs/exporters.md).",
        ),
    ),
    httpPort: port
      .min(1)
      .optional()
      .describe("flowagg: the server's HTTP (or, for tls://, HTTPS) port, used when databaseURL is tcp:// or tls:// (the native protocol, which flowagg does not speak): Antrea's chart names port 9000, whose server serves HTTP on 8123 unless its http_port says otherwise."),
    debug: z.boolean().default(false).describe('Logs every request of the ClickHouse client.'),
    compress: z.boolean().default(true).describe('gzip request bodies (at level 1, the fastest) and response bodies (Antrea: LZ4 on the native protocol).'),
    commitInterval: emptyIsDefault(duration.default(8000).refine((ms) => ms >= 1000, { message: 'commitInterval must be at least 1s' }).describe('A batch is inserted at the latest this long after its first record arrived.')),
    tls: z
      .strictObject({
        insecureSkipVerify: z.boolean().default(false).describe('Do not verify the server\'s certificate.'),
        caCert: z.boolean().default(false).describe('Verify the server against the CA in caCertPath instead of the system\'s roots.'),
      })
      .prefault({}),
    caCertPath: z.string().default('/etc/flow-aggregator/certs/clickhouse/ca.crt').describe('The CA file used when tls.caCert is true (where Antrea\'s chart mounts the clickhouse-ca Secret).'),
    maxBatchRows: z.number().int().min(1).max(1_000_000).default(20_000).describe('A batch is inserted at the latest once it holds this many rows. The runner holds up to three batches of records per partition, as read from the log.'),
    createSchema: z.boolean().default(true).describe('Create the database (other than `default`), the flows table and its views when they do not exist.'),
    tableTTL: duration.default(12 * 3_600_000).describe('Rows older than this are removed by the server (Theia\'s default, 12h), on servers that have TTL (19.6 and later); 0 keeps them.'),
    startTimeout: duration.default(10_000).describe('How long one start keeps trying to reach the server before the exporter reports it unreachable (and tries again with backoff).'),
    requestTimeout: duration.default(30_000).describe('A request without an answer this long fails (and is retried).'),
  })
  .superRefine((c, ctx) => {
    // A URL that can never work is refused at start and by `flowagg config check`, not at the first connection.
    const endpoint = resolveEndpoint(c.databaseURL, c.httpPort);
    if (typeof endpoint === 'string') ctx.addIssue({ code: 'custom', path: ['databaseURL'], message: endpoint });
  })
  .prefault({});

export type ClickHouseConfig = z.output<typeof clickHouseSection>;

export interface ClickHouseCredentials {
  readonly username: string;
  readonly password: string;
}

/** CH_USERNAME / CH_PASSWORD, or ClickHouse's `default` user without a password. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv = process.env): ClickHouseCredentials {
  return { username: env.CH_USERNAME || 'default', password: env.CH_PASSWORD ?? '' };
}
