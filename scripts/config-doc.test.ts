import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { configKeys } from '../lib/config/keys.js';
import { serviceConfigSchema } from '../app/service-config.js';
import { CONFIG_DOC, configurationDoc } from './config-doc.js';

test('docs/configuration.md is what the schema renders (run npm run generate after changing a key)', () => {
  assert.equal(readFileSync(CONFIG_DOC, 'utf8'), configurationDoc(), 'docs/configuration.md is stale: run npm run generate');
});

test('every configuration key has a description, so the generated doc explains it', () => {
  const missing = configKeys(serviceConfigSchema).filter((k) => !k.section && k.description === undefined).map((k) => k.path.join('.'));
  assert.deepEqual(missing, []);
});
