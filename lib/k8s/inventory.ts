// Kubernetes metadata outside a cluster: an inventory file (YAML or JSON) of Pods, Nodes and Services,
// served through the same store as the informers', so that `flowagg pipeline --inventory FILE` and a
// processor running without an API server enrich records exactly as one in a cluster would. Pod
// creation and deletion times make history replayable, so deleted entries never expire here.
//
//   clusterUuid: 1e6c0a95-2d3b-4f8c-9a7e-5b4c3d2e1f00
//   pods:
//     - { namespace: shop, name: web-1, uid: 8d0f…, node: node-a, ips: [10.244.1.5, fd00::5], labels: { app: web } }
//     - { namespace: shop, name: web-0, node: node-b, ips: [10.244.1.5], created: 2026-11-30T09:00:00Z, deleted: 2026-11-30T10:00:00Z }
//   nodes: [{ name: node-a, uid: … }]
//   services: [{ namespace: shop, name: web, uid: … }]
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { FlowaggError } from '../errors.js';
import { K8S_ERR } from './errors.js';
import { type Inventory, inventorySchema } from './inventory-schema.js';
import type { MetadataSource } from './metadata.js';
import { labelsJson, type MetadataEvent } from './store/events.js';
import { DEFAULT_STORE_OPTIONS, MetadataStore, type StoreOptions } from './store/metadata-store.js';
import { StoreLookups } from './store/store-lookups.js';

export class InventoryMetadataSource extends StoreLookups implements MetadataSource {
  readonly #summary: string;

  private constructor(store: MetadataStore, summary: string) {
    super(store);
    this.#summary = summary;
  }

  /** Reads and validates `file`; throws a FlowaggError naming every entry and key at fault. */
  static load(file: string, opts: { clockSkewToleranceMs?: number } = {}): InventoryMetadataSource {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new FlowaggError(K8S_ERR.INVENTORY_UNREADABLE, `cannot read inventory file ${file}: ${(err as Error).message}`, { cause: err, context: { file } });
    }
    let doc: unknown;
    try {
      doc = parseYaml(text) ?? {};
    } catch (err) {
      throw new FlowaggError(K8S_ERR.INVENTORY_UNREADABLE, `inventory file ${file} is not YAML or JSON: ${(err as Error).message}`, { cause: err, context: { file } });
    }
    return InventoryMetadataSource.fromDocument(doc, { ...opts, file });
  }

  /** Validates an already parsed document (`file` only names it in errors). */
  static fromDocument(doc: unknown, opts: { clockSkewToleranceMs?: number; file?: string } = {}): InventoryMetadataSource {
    const result = inventorySchema.safeParse(doc);
    const where = opts.file === undefined ? 'inventory' : `inventory file ${opts.file}`;
    if (!result.success) {
      throw new FlowaggError(K8S_ERR.INVENTORY_INVALID, `${where} is invalid:\n${formatInventoryIssues(result.error, doc)}`, { context: { file: opts.file } });
    }
    const inv = result.data;
    const options: StoreOptions = { ...DEFAULT_STORE_OPTIONS, ...(opts.clockSkewToleranceMs !== undefined && { clockSkewToleranceMs: opts.clockSkewToleranceMs }) };
    const store = new MetadataStore(options);
    for (const event of inventoryEvents(inv)) store.apply(event);
    return new InventoryMetadataSource(store, `${where}: ${inv.pods.length} Pods, ${inv.nodes.length} Nodes, ${inv.services.length} Services`);
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  readiness(): { ready: boolean; detail?: string } {
    return { ready: true, detail: this.#summary };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The inventory as store events, in time order, so that a Pod deleted before another takes its name or IP is gone first. */
function inventoryEvents(inv: Inventory): MetadataEvent[] {
  const events: MetadataEvent[] = [];
  inv.pods.forEach((p, i) => {
    const object = {
      kind: 'Pod',
      id: p.uid === '' ? `pods[${i}]` : p.uid,
      info: Object.freeze({ namespace: p.namespace, name: p.name, uid: p.uid, nodeName: p.node, labels: Object.freeze({ ...p.labels }), labelsJson: labelsJson(p.labels) }),
      ips: p.ips,
      hostNetwork: false,
      createdMs: p.created ?? -Infinity,
    } as const;
    events.push({ type: 'upsert', object, timeMs: object.createdMs });
    if (p.deleted !== undefined) events.push({ type: 'delete', object, timeMs: p.deleted });
  });
  events.sort(byTime);
  for (const n of inv.nodes) events.push({ type: 'upsert', object: { kind: 'Node', info: Object.freeze({ ...n }) }, timeMs: -Infinity });
  for (const s of inv.services) events.push({ type: 'upsert', object: { kind: 'Service', info: Object.freeze({ ...s }) }, timeMs: -Infinity });
  if (inv.clusterUuid !== undefined) events.push({ type: 'clusterUuid', uuid: inv.clusterUuid });
  return events;
}

/** By time (-Infinity included), deletions first at equal times. */
function byTime(a: MetadataEvent, b: MetadataEvent): number {
  const ta = a.type === 'clusterUuid' ? 0 : a.timeMs;
  const tb = b.type === 'clusterUuid' ? 0 : b.timeMs;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a.type === 'delete' ? 0 : 1) - (b.type === 'delete' ? 0 : 1);
}

/** One line per problem: `pods[3] (shop/web-1) ips[1]: "10.0.0.300" is not an IPv4 or IPv6 address`. */
export function formatInventoryIssues(error: z.ZodError, doc: unknown): string {
  return error.issues
    .map((issue) => {
      const [section, index, ...rest] = issue.path;
      if (typeof section !== 'string') return `  - (top level): ${issue.message}`;
      if (typeof index !== 'number') return `  - ${section}: ${issue.message}`;
      const entry = (doc as Record<string, unknown[]>)[section]?.[index] as { namespace?: unknown; name?: unknown } | undefined;
      const label = typeof entry?.name === 'string' ? ` (${typeof entry.namespace === 'string' ? `${entry.namespace}/` : ''}${entry.name})` : '';
      const key = rest.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('').replace(/^\./, '');
      return `  - ${section}[${index}]${label}${key === '' ? '' : ` ${key}`}: ${issue.message}`;
    })
    .join('\n');
}
