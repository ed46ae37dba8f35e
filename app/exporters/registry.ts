// The exporter kinds flowagg knows, each behind one module: the section of the configuration it reads,
// whether that section is enabled, and how to build the exporter. `flowagg export KIND` runs one of them;
// `flowagg run` runs every one whose section is enabled, as Antrea does.
import { FlowaggError } from '../../lib/errors.js';
import type { MessageLog } from '../../lib/log/types.js';
import type { Logger } from '../../lib/telemetry/logger.js';
import { EXPORT_UNKNOWN_KIND } from '../../exporters/errors.js';
import type { Exporter, ExporterKind } from '../../exporters/types.js';

export interface ExporterDeps {
  readonly log: MessageLog;
  readonly logger?: Logger;
}

export interface ExporterModule<C> {
  readonly kind: ExporterKind;
  /** Its configuration section (Antrea's name: flowCollector, clickHouse, s3Uploader, flowLogger). */
  readonly section: string;
  enabled(config: C): boolean;
  /** Inert until the runner calls start(). Throws a FlowaggError naming the key for a configuration it refuses. */
  create(config: C, deps: ExporterDeps): Exporter;
}

export function findExporter<C>(modules: readonly ExporterModule<C>[], kind: string): ExporterModule<C> {
  const m = modules.find((x) => x.kind === kind);
  if (m === undefined) {
    throw new FlowaggError(EXPORT_UNKNOWN_KIND, `no exporter "${kind}": the exporters are ${modules.map((x) => x.kind).join(', ')}`, { context: { kind } });
  }
  return m;
}
