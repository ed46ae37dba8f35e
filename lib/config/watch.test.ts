import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import { componentLogger } from '../telemetry/logger.js';
import { loadConfig } from './load.js';
import { reloadable } from './meta.js';
import { type ReloadOutcome, ConfigWatcher } from './watch.js';

const schema = z.strictObject({
  mode: reloadable(z.enum(['Aggregate', 'Proxy']).default('Aggregate'), 'refused'),
  activeFlowRecordTimeout: z.number().default(60),
  recordContents: z.strictObject({ podLabels: reloadable(z.boolean().default(false), 'live') }).prefault({}),
  flowCollector: reloadable(z.strictObject({ address: z.string().default('') }).prefault({}), 'live'),
});

function setup(initial: string) {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-watch-'));
  const file = join(dir, 'flowagg.yaml');
  writeFileSync(file, initial);
  const watcher = new ConfigWatcher(schema, loadConfig(schema, { file, env: {} }), { file, env: {}, logger: componentLogger('config-test'), debounceMs: 50 });
  /** Replaces the file as a ConfigMap update does (a new file renamed over the old) and waits for the reload it causes. */
  const edit = async (text: string): Promise<ReloadOutcome> => {
    const applied = new Promise<ReloadOutcome>((resolve) => {
      const onReload = (o: ReloadOutcome) => {
        if (o.kind === 'unchanged') return;
        watcher.off('reload', onReload);
        resolve(o);
      };
      watcher.on('reload', onReload);
    });
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
    return applied;
  };
  return { watcher, edit };
}

test('an edited file notifies the subscribers of live keys, keeps restart keys and refuses a mode change', async (t) => {
  const { watcher, edit } = setup('recordContents:\n  podLabels: false\n');
  t.after(() => watcher.close());
  watcher.start();
  const labels: [boolean, boolean][] = [];
  const collectors: string[] = [];
  watcher.subscribe((c) => c.recordContents.podLabels, (next, prev) => void labels.push([next, prev]));
  watcher.subscribe((c) => c.flowCollector, (next) => void collectors.push(next.address));

  const first = await edit('recordContents:\n  podLabels: true\nactiveFlowRecordTimeout: 5\nmode: Proxy\n');
  assert.deepEqual(first, { kind: 'applied', changes: { live: ['recordContents.podLabels'], restart: ['activeFlowRecordTimeout'], refused: ['mode'] } });
  assert.deepEqual(labels, [[true, false]]);
  assert.deepEqual(collectors, [], 'a section that did not change is not replaced');
  assert.equal(watcher.current.recordContents.podLabels, true);
  assert.equal(watcher.current.activeFlowRecordTimeout, 60, 'the running value is kept until a restart');
  assert.equal(watcher.current.mode, 'Aggregate');

  const second = await edit('recordContents:\n  podLabels: true\nflowCollector:\n  address: c:4739\n');
  assert.equal(second.kind, 'applied');
  assert.deepEqual(collectors, ['c:4739']);
  assert.deepEqual(labels, [[true, false]]);
});

test('an invalid file is reported and the running configuration kept', async (t) => {
  const { watcher, edit } = setup('activeFlowRecordTimeout: 30\n');
  t.after(() => watcher.close());
  watcher.start();
  let called = 0;
  watcher.subscribe((c) => c, () => void called++);
  const outcome = await edit('mode: Sideways\nrecordContents:\n  podLabels: true\n');
  assert.equal(outcome.kind, 'invalid');
  assert.match(JSON.stringify(outcome), /"Sideways\\" is not one of: Aggregate, Proxy/);
  assert.equal(watcher.current.recordContents.podLabels, false);
  assert.equal(called, 0);
});

test('a subscriber that fails does not stop the others', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flowagg-watch-'));
  const file = join(dir, 'f.yaml');
  writeFileSync(file, '{}\n');
  const watcher = new ConfigWatcher(schema, loadConfig(schema, { file, env: {} }), { file, env: {}, logger: componentLogger('config-test') });
  const seen: string[] = [];
  watcher.subscribe((c) => c.flowCollector.address, () => {
    throw new Error('cannot connect');
  });
  watcher.subscribe((c) => c.flowCollector.address, (next) => void seen.push(next));
  writeFileSync(file, 'flowCollector: {address: "x:1"}\n');
  const [outcome] = await Promise.all([once(watcher, 'reload'), watcher.reload()]);
  assert.equal((outcome[0] as ReloadOutcome).kind, 'applied');
  assert.deepEqual(seen, ['x:1']);
});
