// The TLS material of flowCollector.tls: in Kubernetes from the Secrets Antrea names (caSecretName with
// ca.crt; clientSecretName, a kubernetes.io/tls Secret, for mutual TLS), outside it from PEM files. Read
// once at start; a missing file or Secret fails the start naming the key.
import { readFile } from 'node:fs/promises';
import { FlowaggError, errorMessage } from '../../lib/errors.js';
import type { FlowCollectorConfig } from './config.js';
import type { TlsMaterial } from './connection.js';
import { IPFIX_EXPORT_TLS } from './errors.js';

/** A Secret's data (values decoded from base64), or undefined when it does not exist. */
export type SecretReader = (name: string) => Promise<Readonly<Record<string, Buffer>> | undefined>;

type TlsConfig = FlowCollectorConfig['tls'];

function tlsError(key: string, message: string, cause?: unknown): FlowaggError {
  return new FlowaggError(IPFIX_EXPORT_TLS, `flowCollector.tls.${key}: ${message}`, { context: { key: `flowCollector.tls.${key}` }, cause });
}

async function file(key: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (err) {
    throw tlsError(key, `cannot read ${path}: ${errorMessage(err)}`, err);
  }
}

async function secretKey(readSecret: SecretReader | undefined, key: string, name: string, item: string): Promise<Buffer> {
  if (readSecret === undefined) throw tlsError(key, `Secret ${name} cannot be read outside Kubernetes: give ${key === 'caSecretName' ? 'caFile' : 'certFile and keyFile'} instead`);
  let data: Readonly<Record<string, Buffer>> | undefined;
  try {
    data = await readSecret(name);
  } catch (err) {
    throw tlsError(key, `cannot read Secret ${name}: ${errorMessage(err)}`, err);
  }
  const value = data?.[item];
  if (value === undefined) throw tlsError(key, data === undefined ? `Secret ${name} does not exist` : `Secret ${name} has no ${item}`);
  return value;
}

export async function loadTlsMaterial(c: TlsConfig, readSecret?: SecretReader): Promise<TlsMaterial> {
  const material: { -readonly [K in keyof TlsMaterial]: TlsMaterial[K] } = { minVersion: c.minVersion === 'VersionTLS13' ? 'TLSv1.3' : 'TLSv1.2' };
  if (c.caFile !== '') material.ca = await file('caFile', c.caFile);
  else if (c.caSecretName !== '') material.ca = await secretKey(readSecret, 'caSecretName', c.caSecretName, 'ca.crt');
  if (c.certFile !== '') {
    material.cert = await file('certFile', c.certFile);
    material.key = await file('keyFile', c.keyFile);
  } else if (c.clientSecretName !== '') {
    material.cert = await secretKey(readSecret, 'clientSecretName', c.clientSecretName, 'tls.crt');
    material.key = await secretKey(readSecret, 'clientSecretName', c.clientSecretName, 'tls.key');
  }
  if (c.serverName !== '') material.servername = c.serverName;
  return material;
}
