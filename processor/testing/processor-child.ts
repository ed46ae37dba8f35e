// A processor in a child process, for the tests that kill it (SIGKILL) or make it join and leave a
// group: `node --import tsx processor-child.ts '<json>'` with the log configuration and the processor
// configuration. Prints "started" once its partitions are assigned (and restored), "caught-up" once the
// group committed every partition of the input to its end; stops cleanly on SIGTERM.
import { setTimeout as sleep } from 'node:timers/promises';
import { openLog } from '../../lib/log/index.js';
import { logConfigSchema, type LogConfigInput } from '../../lib/log/config.js';
import { processorConfig } from '../config.js';
import { createProcessor } from '../index.js';

const { log: logInput, processor: processorInput } = JSON.parse(process.argv[2]!) as { log: LogConfigInput; processor: unknown };
const config = processorConfig.parse(processorInput);
const log = await openLog(logConfigSchema.parse(logInput));
const processor = createProcessor(config, { log });
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
  void processor.stop().then(() => log.close()).then(() => process.exit(0));
});
await processor.start();
process.stdout.write('started\n');
const topic = config.log.topics.flowsRaw;
while (!stopping) {
  const ends = await log.admin().fetchTopicOffsets(topic);
  const lag = await log.admin().fetchGroupLag(config.processor.groupId);
  if (ends.every((e) => e.high === 0 || (lag.find((l) => l.topic === topic && l.partition === e.partition)?.committed ?? 0) >= e.high)) {
    process.stdout.write('caught-up\n');
    break;
  }
  await sleep(50);
}
