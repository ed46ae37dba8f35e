// The registry client's side of the Confluent REST protocol, over real HTTPS with a private CA and
// basic auth: the requests it sends, the ids and schemas it takes from the answers, the errors it
// names. The protocol peer here is the test; the real registry test is registry.functional.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isFlowaggError } from '../../errors.js';
import { issueCA, issueServerCert } from '../../tls/issue.js';
import { schemaRegistrySection } from './config.js';
import { SchemaRegistryClient } from './client.js';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

async function registry(answer: (req: Seen) => { status: number; body: unknown }) {
  const validity = { now: new Date(), validityMs: 86_400_000 };
  const ca = await issueCA(validity);
  const server: Server = createServer(await issueServerCert(ca, ['127.0.0.1'], validity), (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const a = answer({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(a.status, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const caFile = join(mkdtempSync(join(tmpdir(), 'flowagg-registry-')), 'ca.crt');
  writeFileSync(caFile, ca.cert);
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caFile, close: () => server.close() };
}

const SCHEMA = { type: 'record', name: 'FlowRecord', namespace: 'io.flowagg', fields: [{ name: 'a', type: 'long' }] };

test('register posts the schema text under the subject with basic auth over TLS, and returns the id; schemaById fetches it', async (t) => {
  const seen: Seen[] = [];
  const r = await registry((req) => {
    seen.push(req);
    return req.method === 'POST' ? { status: 200, body: { id: 17 } } : { status: 200, body: { schema: JSON.stringify(SCHEMA) } };
  });
  t.after(r.close);
  const client = new SchemaRegistryClient(schemaRegistrySection.parse({ url: `${r.url}/ccompat/`, basicAuth: { username: 'flowagg', password: 's3cret' }, tls: { ca: r.caFile } })!);
  assert.equal(await client.register('flows.raw-value', SCHEMA), 17);
  assert.deepEqual(await client.schemaById(17), SCHEMA);
  assert.equal(seen[0]!.url, '/ccompat/subjects/flows.raw-value/versions');
  assert.equal(seen[0]!.headers['content-type'], 'application/vnd.schemaregistry.v1+json');
  assert.equal(seen[0]!.headers.authorization, `Basic ${Buffer.from('flowagg:s3cret').toString('base64')}`);
  assert.deepEqual(JSON.parse(JSON.parse(seen[0]!.body).schema as string), SCHEMA);
  assert.equal(seen[1]!.method, 'GET');
  assert.equal(seen[1]!.url, '/ccompat/schemas/ids/17');
});

test("the registry's refusal, a certificate that does not verify and an answer without an id are named errors", async (t) => {
  const r = await registry(() => ({ status: 409, body: { error_code: 409, message: 'Schema being registered is incompatible with an earlier schema' } }));
  t.after(r.close);
  const client = new SchemaRegistryClient(schemaRegistrySection.parse({ url: r.url, tls: { ca: r.caFile } })!);
  await assert.rejects(client.register('flows.raw-value', SCHEMA), (err: unknown) => {
    assert.ok(isFlowaggError(err, 'FLOWAGG_ERR_LOG_SCHEMA_REGISTRY'));
    assert.match(err.message, /POST \/subjects\/flows\.raw-value\/versions: HTTP 409 \(error 409\): Schema being registered is incompatible/);
    return true;
  });
  const untrusted = new SchemaRegistryClient(schemaRegistrySection.parse({ url: r.url })!);
  await assert.rejects(untrusted.register('flows.raw-value', SCHEMA), /schema registry https:\/\/127\.0\.0\.1:\d+: POST .*: .*(certificate|self.signed)/i);
  const odd = await registry(() => ({ status: 200, body: { version: 3 } }));
  t.after(odd.close);
  const noId = new SchemaRegistryClient(schemaRegistrySection.parse({ url: odd.url, tls: { ca: odd.caFile } })!);
  await assert.rejects(noId.register('x-value', SCHEMA), /without a schema id/);
});

test('configuration: a registry URL must be http or https, and cert goes with key', () => {
  assert.equal(schemaRegistrySection.safeParse({ url: 'ftp://r:8081' }).success, false);
  assert.equal(schemaRegistrySection.safeParse({ url: 'http://r:8081', tls: { cert: 'c.pem' } }).success, false);
});
