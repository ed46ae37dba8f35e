// Offline validation of rendered Kubernetes manifests against the API's OpenAPI schemas, as carried by
// the kubernetes-models package (one model class per apiVersion and kind, with an AJV validator).
import { parseAllDocuments } from 'yaml';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** The documents of `helm template` output; empty documents (a template that rendered nothing) are dropped. */
export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
      return doc.toJSON() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

/** Every problem of one manifest against its schema ("Deployment/x: /spec/...: must be integer"); empty when valid. */
export async function validateManifest(m: Manifest): Promise<string[]> {
  const where = `${m.kind ?? '(no kind)'}/${m.metadata?.name ?? '(no name)'}`;
  if (typeof m.apiVersion !== 'string' || typeof m.kind !== 'string') return [`${where}: apiVersion and kind are required`];
  let model: ModelClass | undefined;
  try {
    const module = (await import(`kubernetes-models/${m.apiVersion}`)) as Record<string, ModelClass | undefined>;
    model = module[m.kind];
  } catch {
    model = undefined;
  }
  if (model === undefined) return [`${where}: no schema for ${m.apiVersion} ${m.kind}`];
  try {
    new model(m).validate();
    return [];
  } catch (err) {
    const details = (err as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (details === undefined) return [`${where}: ${(err as Error).message}`];
    return details.map((d) => `${where}: ${d.instancePath || '/'} ${d.message ?? 'is invalid'}`);
  }
}
