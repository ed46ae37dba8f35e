import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFlowaggError } from '../../lib/errors.js';
import { clickHouseSection } from './config.js';
import { httpEndpoint } from './url.js';

const refused = (url: string, why: RegExp, httpPort?: number) =>
  assert.throws(() => httpEndpoint(url, httpPort), (err: unknown) => isFlowaggError(err, 'FLOWAGG_ERR_CLICKHOUSE_CONFIG') && err.message.startsWith('clickHouse.databaseURL') && why.test(err.message));

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

  it('maps a native URL on any port to the HTTP port clickHouse.httpPort names', () => {
    assert.deepEqual(httpEndpoint('tcp://ch:19000', 18123), { url: 'http://ch:18123', tls: false, mappedFrom: 'tcp://ch:19000' });
    assert.deepEqual(httpEndpoint('tls://[fd00::1]:19440', 18443), { url: 'https://[fd00::1]:18443', tls: true, mappedFrom: 'tls://[fd00::1]:19440' });
    assert.equal(httpEndpoint('tcp://ch:9000', 8124).url, 'http://ch:8124', 'httpPort wins over the default mapping');
  });

  it('refuses what it cannot serve, saying exactly what to set', () => {
    refused('tcp://ch:19000', /native protocol.*port 19000 is not the native default \(9000\).*set clickHouse\.httpPort to that server's HTTP port \(its http_port setting, 8123 by default\), or write databaseURL as http:\/\/ch:<HTTP port>/);
    refused('tls://ch:19440', /set clickHouse\.httpPort .*its https_port setting, 8443 by default.*https:\/\/ch:<HTTP port>/);
    refused('http://ch:8123', /httpPort is for a tcp:\/\/ or tls:\/\/ URL.*remove httpPort/, 8124);
    refused('grpc://ch:9100', /scheme grpc is not supported/);
    refused('http://user:pw@ch:8123', /user info/);
    refused('http://ch:8123/db', /path/);
    refused('not a url', /not a URL/);
  });

  it('is checked with the section, so `flowagg config check` refuses it too', () => {
    const issue = clickHouseSection.safeParse({ databaseURL: 'tcp://ch:19000' }).error?.issues[0];
    assert.deepEqual(issue?.path, ['databaseURL']);
    assert.match(issue!.message, /set clickHouse\.httpPort/);
    assert.equal(clickHouseSection.parse({ databaseURL: 'tcp://ch:19000', httpPort: 18123 }).httpPort, 18123);
  });
});
