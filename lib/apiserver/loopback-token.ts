// The loopback token: a random bearer token made at each start and written to a file only this user can
// read, as Antrea's API server writes /var/run/antrea/apiserver/loopback-client-token for antctl. Whoever
// can read the file may call the API as the server itself (every path allowed, as Kubernetes allows its
// loopback client through the system:masters group).
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { FlowaggError } from '../errors.js';
import { API_TOKEN_FILE } from './errors.js';

export function newLoopbackToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Writes the token through a new file renamed into place, so the file is 0600 even when an older one
 * was not; returns what removes it at stop (unless another process has written its own token since).
 */
export function writeLoopbackToken(path: string, token: string): () => void {
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, token, { mode: 0o600 });
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw new FlowaggError(API_TOKEN_FILE, `cannot write the API loopback token to ${path}: ${(err as Error).message} (set apiServer.loopbackTokenFile to a writable path)`, { cause: err, context: { path } });
  }
  return () => {
    if (readTokenFile(path) === token) rmSync(path, { force: true });
  };
}

/** Whether a presented token is `expected`, in time that does not depend on where they differ. */
export function isToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token a client presents, read from the file; undefined when there is none. */
export function readTokenFile(path: string): string | undefined {
  try {
    const token = readFileSync(path, 'utf8').trim();
    return token === '' ? undefined : token;
  } catch {
    return undefined;
  }
}
