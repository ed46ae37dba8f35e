import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flowsTableDdl, schemaDdl, viewDdl, VIEWS } from './schema.js';

const OLD = { version: '18.16.1', ttl: false, insertDeduplicationToken: false, nonReplicatedDeduplication: false };
const NEW = { version: '24.8.1', ttl: true, insertDeduplicationToken: true, nonReplicatedDeduplication: true };

describe('ClickHouse schema', () => {
  it('has Theia\'s 53 columns: timeInserted first, trusted after clusterUUID (and the batch column without insert tokens)', () => {
    const lines = flowsTableDdl(NEW, { database: 'default', ttlSeconds: 3600 }).split('\n').filter((l) => l.startsWith('  '));
    assert.equal(lines.length, 53);
    const old = flowsTableDdl(OLD, { database: 'default', ttlSeconds: 3600 }).split('\n').filter((l) => l.startsWith('  '));
    assert.deepEqual(old.slice(0, 53).map((l) => l.replace(/,$/, '')), lines.map((l) => l.replace(/,$/, '')));
    assert.equal(old[53]!.trim(), "flowaggBatchId String DEFAULT ''");
    assert.equal(lines[0]!.trim(), 'timeInserted DateTime DEFAULT now(),');
    const names = lines.map((l) => l.trim().split(' ')[0]);
    assert.equal(names[names.indexOf('clusterUUID') + 1], 'trusted');
    assert.equal(names.at(-1), 'egressNodeName');
  });

  it('uses TTL and the deduplication window only where the server has them', () => {
    const old = flowsTableDdl(OLD, { database: 'default', ttlSeconds: 3600 });
    assert.doesNotMatch(old, /TTL|SETTINGS/);
    const modern = flowsTableDdl(NEW, { database: 'flows_db', ttlSeconds: 43_200 });
    assert.match(modern, /^CREATE TABLE IF NOT EXISTS `flows_db`\.flows/);
    assert.match(modern, /TTL timeInserted \+ INTERVAL 43200 SECOND/);
    assert.match(modern, /SETTINGS merge_with_ttl_timeout = 14400, non_replicated_deduplication_window = 1000/);
    assert.doesNotMatch(flowsTableDdl(NEW, { database: 'd', ttlSeconds: 0 }), /TTL/);
  });

  it('creates the database unless it is default, then the table, then the three views', () => {
    assert.equal(schemaDdl(OLD, { database: 'default', ttlSeconds: 0 }).length, 4);
    const ddl = schemaDdl(OLD, { database: 'x', ttlSeconds: 0 });
    assert.equal(ddl[0], 'CREATE DATABASE IF NOT EXISTS `x`');
    assert.deepEqual(VIEWS.map((v) => v.name), ['flows_pod_view', 'flows_node_view', 'flows_policy_view']);
    assert.match(viewDdl(VIEWS[0]!, OLD, { database: 'x', ttlSeconds: 0 }), /ENGINE = SummingMergeTree\nORDER BY \(timeInserted, flowEndSeconds, /);
  });
});
