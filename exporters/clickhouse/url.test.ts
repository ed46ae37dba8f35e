import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { httpEndpoint } from './url.js';

const refused = (url: string, why: RegExp) =>
  assert.throws(() => httpEndpoint(url), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_CONFIG') && err.message.startsWith('clickHouse.databaseURL') && why.test(err.message));

describe('clickHouse.databaseURL', () => {
  it('takes http and https as they are', () => {
    assert.deepEqual(httpEndpoint('http://ch:8123'), { url: 'http://ch:8123', tls: false });
    assert.deepEqual(httpEndpoint('https://ch.example:8443/'), { url: 'https://ch.example:8443', tls: true });
    assert.deepEqual(httpEndpoint('http://[fd00::1]:8123'), { url: 'http://[fd00::1]:8123', tls: false });
  });

  it('maps the native protocol on its default ports to the HTTP interface on its default ports', () => {
    assert.deepEqual(httpEndpoint('tcp://clickhouse-clickhouse.flow-visibility.svc:9000'), {
      url: 'http://clickhouse-clickhouse.flow-visibility.svc:8123', tls: false, mappedFrom: 'tcp://clickhouse-clickhouse.flow-visibility.svc:9000',
    });
    assert.deepEqual(httpEndpoint('tls://ch:9440'), { url: 'https://ch:8443', tls: true, mappedFrom: 'tls://ch:9440' });
    assert.equal(httpEndpoint('tcp://ch').url, 'http://ch:8123');
  });

  it('refuses what it cannot serve, saying what to write instead', () => {
    refused('tcp://ch:19000', /native protocol.*http:\/\/ch:8123/);
    refused('grpc://ch:9100', /scheme grpc is not supported/);
    refused('http://user:pw@ch:8123', /user info/);
    refused('http://ch:8123/db', /path/);
    refused('not a url', /not a URL/);
  });
});
