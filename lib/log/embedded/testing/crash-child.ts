// Child process of crash.test.ts: appends forever, in transactions to `out` (with the consumed offset of
// `in` committed in the same transaction) and plainly to `plain`, and prints one stdout line per
// acknowledged operation, until the test kills it with SIGKILL.
//   node --import tsx crash-child.ts <dir> <firstSeq>
import { openEmbeddedLog } from '../index.js';
import { meantToAbort, recordsIn } from './crash-plan.js';

const [dir, first] = process.argv.slice(2);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const log = await openEmbeddedLog({ dir: dir!, maintenanceInterval: '1h' });
  await log.admin().createTopics([
    { topic: 'out', partitions: 3 },
    { topic: 'in', partitions: 1 },
    { topic: 'plain', partitions: 2 },
  ]);
  const txns = log.transactionalProducer('crash-writer');
  const plain = log.producer();
  say('ready');
  const transactional = async () => {
    for (let seq = Number(first); ; seq++) {
      const txn = await txns.begin();
      const n = recordsIn(seq);
      await txn.send('out', Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`${seq}-${i}`), value: Buffer.from(JSON.stringify({ seq, i, n })) })));
      await txn.sendOffsets('crash-group', [{ topic: 'in', partition: 0, offset: seq + 1 }]);
      if (meantToAbort(seq)) {
        await txn.abort();
      } else {
        await txn.commit();
        say(`committed ${seq}`);
      }
    }
  };
  const plainWriter = async (lane: number) => {
    for (let k = 0; ; k++) {
      const id = `${first}-${lane}-${k}`;
      await plain.send('plain', [{ key: Buffer.from(id), value: Buffer.from(id) }]);
      say(`acked ${id}`);
    }
  };
  await Promise.all([transactional(), plainWriter(0), plainWriter(1), plainWriter(2)]);
}

main().catch((err: unknown) => {
  process.stderr.write(`crash-child failed: ${String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
