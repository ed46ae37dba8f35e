// The owner's thread of remote.test.ts: an embedded log in a directory, served over the port it was given.
import type { MessagePort } from 'node:worker_threads';
import type { ThreadMain } from '../../../thread/boot.js';
import { openEmbeddedLog } from '../../embedded/index.js';
import { serveLog } from '../serve.js';

const main: ThreadMain<{ dir: string; port: MessagePort }> = async ({ dir, port }) => {
  serveLog(await openEmbeddedLog({ dir }), port);
};
export default main;
