// The service configuration of a YAML text, as `flowagg run` reads its file, for tests of what a key does.
import assert from 'node:assert/strict';
import { readConfig } from '../../lib/config/load.js';
import { type ServiceConfig, serviceConfigSchema } from '../service-config.js';

export function serviceConfigOf(yaml: string): ServiceConfig {
  const r = readConfig(serviceConfigSchema, { text: yaml, env: {} });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  return r.config;
}
