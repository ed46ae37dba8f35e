// The inventory file's schema: Pods (namespace, name, uid, node, IPs, labels, optional creation and
// deletion times), Nodes, Services and an optional cluster UUID. Beyond each entry's own keys it checks
// what would make lookups ambiguous: a UID, Node or Service listed twice, and two Pods holding one IP
// (or one name) at the same time.
import { z } from 'zod';
import { canonicalUuid } from './cluster-identity.js';
import { canonicalIp } from './ip.js';

const name = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty');

const uid = z
  .string()
  .transform((v, ctx) => {
    const u = canonicalUuid(v);
    if (u === undefined) ctx.addIssue({ code: 'custom', message: `"${v}" is not a UID (a UUID: 8-4-4-4-12 hex digits)` });
    return u ?? '';
  })
  .default('');

const ip = z.string().transform((v, ctx) => {
  const text = canonicalIp(v);
  if (text === undefined) ctx.addIssue({ code: 'custom', message: `"${v}" is not an IPv4 or IPv6 address` });
  return text ?? '';
});

/** RFC 3339 text ("2026-11-30T10:00:00Z"; YAML may hand over a Date) or milliseconds since the epoch. */
const time = z.union([z.string(), z.number(), z.date()]).transform((v, ctx) => {
  const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) ctx.addIssue({ code: 'custom', message: `"${String(v)}" is not a time (RFC 3339, e.g. 2026-11-30T10:00:00Z, or ms since the epoch)` });
  return ms;
});

const podEntry = z.strictObject({
  namespace: name,
  name,
  uid,
  node: z.string().default(''),
  ips: z.array(ip).min(1, 'a Pod needs at least one IP: lookups are by IP'),
  labels: z.record(z.string(), z.string()).default({}),
  /** Since when the Pod had its IPs; absent: always. */
  created: time.optional(),
  /** When it was deleted; absent: never. */
  deleted: time.optional(),
});

const nodeEntry = z.strictObject({ name, uid });
const serviceEntry = z.strictObject({ namespace: name, name, uid });

export type PodEntry = z.output<typeof podEntry>;

export const inventorySchema = z
  .strictObject({
    clusterUuid: z
      .string()
      .transform((v, ctx) => {
        const u = canonicalUuid(v);
        if (u === undefined) ctx.addIssue({ code: 'custom', message: `"${v}" is not a UUID` });
        return u ?? '';
      })
      .optional(),
    pods: z.array(podEntry).default([]),
    nodes: z.array(nodeEntry).default([]),
    services: z.array(serviceEntry).default([]),
  })
  .superRefine((inv, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    inv.pods.forEach((p, i) => {
      if (p.created !== undefined && p.deleted !== undefined && p.deleted <= p.created) issue(['pods', i, 'deleted'], 'must be after created');
    });
    const uids = new Map<string, string>();
    const claimUid = (u: string, path: (string | number)[]) => {
      if (u === '') return;
      const first = uids.get(u);
      if (first !== undefined) issue([...path, 'uid'], `UID ${u} is already ${first}'s`);
      else uids.set(u, `${path[0]}[${path[1]}]`);
    };
    inv.pods.forEach((p, i) => claimUid(p.uid, ['pods', i]));
    inv.nodes.forEach((n, i) => claimUid(n.uid, ['nodes', i]));
    inv.services.forEach((s, i) => claimUid(s.uid, ['services', i]));
    unique(inv.nodes.map((n) => n.name), (i, j) => issue(['nodes', i, 'name'], `Node ${inv.nodes[i]!.name} is listed twice (also nodes[${j}])`));
    unique(inv.services.map((s) => `${s.namespace}/${s.name}`), (i, j) => issue(['services', i, 'name'], `Service ${inv.services[i]!.namespace}/${inv.services[i]!.name} is listed twice (also services[${j}])`));
    overlapping(inv.pods, (p) => p.ips, (i, j, ip) => issue(['pods', i, 'ips'], `${ip} also belongs to pods[${j}] (${inv.pods[j]!.namespace}/${inv.pods[j]!.name}) at the same time; give them created/deleted times that do not overlap`));
    overlapping(inv.pods, (p) => [`${p.namespace}/${p.name}`], (i, j) => issue(['pods', i, 'name'], `pods[${j}] has the same namespace and name at the same time`));
  });

export type Inventory = z.output<typeof inventorySchema>;

function unique(keys: string[], duplicate: (i: number, first: number) => void): void {
  const seen = new Map<string, number>();
  keys.forEach((k, i) => {
    const first = seen.get(k);
    if (first === undefined) seen.set(k, i);
    else duplicate(i, first);
  });
}

/** Calls `clash` for each Pod that shares a key with an earlier one whose lifetime overlaps its own. */
function overlapping(pods: readonly PodEntry[], keysOf: (p: PodEntry) => string[], clash: (i: number, j: number, key: string) => void): void {
  const byKey = new Map<string, number[]>();
  pods.forEach((p, i) => {
    for (const key of new Set(keysOf(p))) {
      const earlier = byKey.get(key) ?? [];
      const j = earlier.find((k) => lifetimesOverlap(pods[k]!, p));
      if (j !== undefined) clash(i, j, key);
      earlier.push(i);
      byKey.set(key, earlier);
    }
  });
}

function lifetimesOverlap(a: PodEntry, b: PodEntry): boolean {
  return (a.created ?? -Infinity) < (b.deleted ?? Infinity) && (b.created ?? -Infinity) < (a.deleted ?? Infinity);
}
